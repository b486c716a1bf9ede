public import Foundation
public import SousSchema
import SousTestSupport
import SousWire

extension StackFixture {
    /// A small PNG-like photo the fill attaches to a recipe and a journal entry.
    public static let samplePhoto = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<300).map { UInt8($0 % 200) })

    /// What went wrong while filling an account.
    public struct FillError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Gives `user` something in every table an archive covers, through the services' own
    /// methods: a personal recipe with a photo, an edited and two favourite recipes, two planned
    /// meals (one cooked), an order, a list with recipes, items and check marks, a diary with
    /// goals, drinks, a saved food, a product, a journal entry, a gluten prediction and result,
    /// and a reminder outcome. `today` is the stack clock's day in UTC.
    public func fillEveryArchivedTable(user: String, today: LocalDate, instant: Date) async throws {
        let catalog = client(Catalog.self), planner = client(Planner.self), groceries = client(Groceries.self)
        let tracker = client(Tracker.self), notifier = client(Notifier.self)
        let png = Self.samplePhoto
        _ = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(people: 3, diets: [.vegetarian], units: .us), user: user)
        let toast = try await catalog.call(
            CatalogAPI.createRecipe,
            RecipeDraft(
                name: "Garlic toast", summary: "Toast with garlic.", servings: 2, prepMinutes: 5, cookMinutes: 5,
                ingredients: [RecipeIngredient(ingredient: "garlic", quantity: 2, unit: .piece)],
                steps: [RecipeStep(description: "Toast it.", type: .cooking)],
                notes: "Rub while hot.", variations: ["With chilli"], tags: ["snack"], photo: png),
            user: user)
        _ = try await catalog.call(
            CatalogAPI.editRecipe, RecipeEdit(id: "tomato-lentil-soup", changes: RecipeDraft(notes: "More cumin.", tags: ["winter"])), user: user)
        _ = try await catalog.call(CatalogAPI.favorite, RecipeID(id: toast.id), user: user)
        _ = try await catalog.call(CatalogAPI.favorite, RecipeID(id: "minestrone"), user: user)

        _ = try await planner.call(PlannerAPI.putSlot, SlotAssignment(date: today, slot: 2, recipe: toast.id), user: user)
        _ = try await planner.call(PlannerAPI.putSlot, SlotAssignment(date: today.adding(days: 1), slot: 1, recipe: "tomato-lentil-soup"), user: user)
        let cooked = try await planner.call(PlannerAPI.cooked, CookedSlot(date: today, slot: 2), user: user)
        guard cooked.logged else { throw FillError(description: "plan.cooked logged nothing") }

        _ = try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "minestrone"), user: user)
        _ = try await groceries.call(
            GroceriesAPI.checkout,
            Checkout(phone: "+390612345678", address: DeliveryAddress(street: "Via Roma 1", postalCode: "00100", city: "Roma")), user: user)
        _ = try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: toast.id, exclude: ["garlic"]), user: user)
        _ = try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "tomato-lentil-soup"), user: user)
        _ = try await groceries.call(GroceriesAPI.addItem, AddListItem(ingredient: "onion", quantity: 2), user: user)
        let towels = try await groceries.call(GroceriesAPI.addItem, AddListItem(text: "Paper towels", count: 2, withList: true), user: user)
        guard let towelLine = towels.list?.lines.first(where: { $0.name.contains("Paper towels") })?.id else {
            throw FillError(description: "the list has no line for the paper towels just added")
        }
        _ = try await groceries.call(GroceriesAPI.check, CheckLines(lines: ["onion", towelLine], checked: true), user: user)

        _ = try await tracker.call(
            TrackerAPI.addEntry,
            DiaryAdd(meal: .breakfast, grams: 150, food: "Porridge", per100g: Macros(kcal: 70, carbohydrates: 12, protein: 2.5, fat: 1.5)), user: user
        )
        _ = try await tracker.call(TrackerAPI.setGoals, GoalsChange(from: today, preset: "maintenance"), user: user)
        _ = try await tracker.call(TrackerAPI.changeDrink, DrinkChange(drink: .water, delta: 3), user: user)
        _ = try await tracker.call(
            TrackerAPI.createFood, SavedFoodDraft(name: "Apple", grams: 180, per100g: Macros(kcal: 52, carbohydrates: 14, protein: 0.3, fat: 0.2)),
            user: user)
        _ = try await tracker.call(
            TrackerAPI.addProduct,
            Product(
                code: "4006381333931", name: "Oat drink", brand: nil, quantity: "1 l",
                per100g: Macros(kcal: 46, carbohydrates: 6.7, protein: 1, fat: 1.5), allergens: []), user: user)
        _ = try await tracker.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "Lunch out", description: "GF pizza", photo: png), user: user)
        _ = try await tracker.call(CoeliacAPI.predict, GlutenPredictionRequest(date: today.adding(days: -1), expectsGluten: false), user: user)
        _ = try await tracker.call(CoeliacAPI.recordResult, GlutenResultRequest(date: today.adding(days: -1), positive: false), user: user)
        // A reminder outcome, through the notifier's own import (no clock needs to reach 19:00).
        let reminder = ReminderLogEntry(
            date: today.adding(days: -1), outcome: .sent, dueAt: instant.addingTimeInterval(-54_000), recordedAt: instant.addingTimeInterval(-54_000),
            kcal: 1200, kcalGoal: 2000)
        _ = try await notifier.call(NotifierAPI.importArchive, NotifierArchiveImport(archive: NotifierArchive(log: [reminder])), user: user)
    }
}
