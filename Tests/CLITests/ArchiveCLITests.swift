import Foundation
import SousCLI
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// `sous export` and `sous import`: a user with something in every service exported, imported
/// into an empty account, and exported again gives the same content.
@Suite(.closesItsSockets)
struct ArchiveCLITests {
    static let instant = ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<300).map { UInt8($0 % 200) })
    static let today = LocalDate(instant, in: TimeZone(identifier: "UTC")!)

    /// Gives `user` something in every table an archive covers, through the services' own methods.
    static func fill(_ stack: StackFixture, user: String) async throws {
        let catalog = stack.client(Catalog.self), planner = stack.client(Planner.self), groceries = stack.client(Groceries.self)
        let tracker = stack.client(Tracker.self), notifier = stack.client(Notifier.self)
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
        let cooked = try await planner.call(PlannerAPI.cooked, SlotRef(date: today, slot: 2), user: user)
        #expect(cooked.logged)

        _ = try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "minestrone"), user: user)
        _ = try await groceries.call(
            GroceriesAPI.checkout,
            Checkout(phone: "+390612345678", address: DeliveryAddress(street: "Via Roma 1", postalCode: "00100", city: "Roma")), user: user)
        _ = try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: toast.id, exclude: ["garlic"]), user: user)
        _ = try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "tomato-lentil-soup"), user: user)
        _ = try await groceries.call(GroceriesAPI.addItem, AddListItem(ingredient: "onion", quantity: 2), user: user)
        let towels = try await groceries.call(GroceriesAPI.addItem, AddListItem(text: "Paper towels", count: 2, withList: true), user: user)
        let towelLine = try #require(towels.list?.lines.first { $0.name.contains("Paper towels") }).id
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

    static func export(_ stack: StackFixture, user: String) async throws -> SousArchive {
        SousArchive(
            exportedAt: instant, user: "someone",
            catalog: try await stack.client(Catalog.self).call(CatalogAPI.exportArchive, Empty(), user: user),
            planner: try await stack.client(Planner.self).call(PlannerAPI.exportArchive, Empty(), user: user),
            groceries: try await stack.client(Groceries.self).call(GroceriesAPI.exportArchive, Empty(), user: user),
            tracker: try await stack.client(Tracker.self).call(TrackerAPI.exportArchive, Empty(), user: user),
            notifier: try await stack.client(Notifier.self).call(NotifierAPI.exportArchive, Empty(), user: user))
    }

    /// The archive with what an import renumbers taken out: a recipe of the user's own is known
    /// by its name, records by their content, ids of diary entries, foods, journal entries and
    /// orders set to 0 (a cooked slot keeps whether it has its entry).
    static func content(_ archive: SousArchive) -> SousArchive {
        var names: [String: String] = [:]
        for recipe in archive.catalog.recipes where recipe.origin != .personal { names[recipe.id] = "own:" + (recipe.draft.name ?? "") }
        // Which diary entry a cooked slot has is renumbered; that it has one is content.
        let linked = Dictionary(archive.tracker.entries.map { ($0.id, Int64(0)) }, uniquingKeysWith: { first, _ in first })
        var content = archive.remapped(recipes: names, entries: linked)
        content.catalog.recipes = archive.catalog.recipes.map { recipe in
            var recipe = recipe
            recipe.id = names[recipe.id] ?? recipe.id
            return recipe
        }
        content.catalog.favorites = archive.catalog.favorites.map { names[$0] ?? $0 }.sorted()
        content.tracker.entries = content.tracker.entries.map { entry in
            var entry = entry
            entry.id = 0
            return entry
        }
        content.tracker.foods = content.tracker.foods.map { food in
            var food = food
            food.id = 0
            return food
        }
        content.tracker.journal = content.tracker.journal.map { item in
            var item = item
            item.entry.id = 0
            return item
        }
        content.groceries.orders = content.groceries.orders.map { order in
            var order = order
            order.id = 0
            return order
        }
        return content
    }

    @Test func everythingExportedImportsIntoAnEmptyAccountWithTheSameContent() async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.instant))
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [String] = []
            for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
            try await Self.fill(stack, user: "ada")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sous-archive-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: file) }

            let exported = await sous(["export", "--output", file] + endpoints + ["--user", "ada"])
            #expect(exported.code == 0 && exported.out.contains("2 recipes, 2 planned meals"), "\(exported.out)\(exported.err)")
            let written = try ArchiveFile.decoder.decode(SousArchive.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(written.user == "ada" && written.version == ArchiveFormat.version)
            let ada = try await Self.export(stack, user: "ada")
            #expect(written.catalog == ada.catalog && written.tracker == ada.tracker, "the file holds what the services hold")
            #expect(ada.tracker.entries.count == 2 && ada.tracker.journal.first?.photo == Self.png && ada.groceries.orders.count == 1)
            #expect(ada.groceries.items.count == 2 && ada.groceries.checkedIngredients == ["onion"] && ada.groceries.items[1].checked)

            let imported = await sous(["import", file] + endpoints + ["--user", "bob"])
            #expect(imported.code == 0 && imported.out.hasPrefix("Imported 2 recipes"), "\(imported.out)\(imported.err)")
            let bo = try await Self.export(stack, user: "bob")
            #expect(Self.content(bo) == Self.content(ada))
            // Ada still has her recipe, so bo's copy got a new id, and his plan and list follow it.
            let toast = try #require(bo.catalog.recipes.first { $0.draft.name == "Garlic toast" })
            #expect(!ada.catalog.recipes.contains { $0.id == toast.id })
            #expect(bo.planner.slots.contains { $0.recipe == toast.id } && bo.groceries.recipes.contains { $0.recipe == toast.id })
            let cooked = try #require(bo.planner.slots.first { $0.recipe == toast.id }?.diaryEntry)
            #expect(bo.tracker.entries.contains { $0.id == cooked && $0.source.reference == toast.id }, "the cooked meal's entry, renumbered")
            let photo = try await stack.client(Catalog.self).call(CatalogAPI.photo, RecipeID(id: toast.id), user: "bob")
            #expect(photo.photo == Self.png)

            // Into an account that has data: refused, nothing changes.
            let again = await sous(["import", file] + endpoints + ["--user", "bob"])
            #expect(again.code == 7 && again.err.contains("import into an empty account"), "\(again.err)")
            #expect(try await Self.export(stack, user: "bob") == bo)
        }
    }

    @Test func aNewerOrBrokenArchiveIsRefusedAndNothingIsImported() async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.instant))
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [String] = []
            for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
            try await Self.fill(stack, user: "ada")
            let archive = try await Self.export(stack, user: "ada")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sous-archive-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            func importing(_ archive: SousArchive) async throws -> CLIResult {
                try ArchiveFile.encoder.encode(archive).write(to: URL(fileURLWithPath: file))
                return await sous(["import", file] + endpoints + ["--user", "adam"])
            }
            var newer = archive
            newer.version = ArchiveFormat.version + 1
            let refused = try await importing(newer)
            #expect(refused.code == 4 && refused.err.contains("from a newer Sous") && refused.err.contains("archive.version"), "\(refused.err)")

            // A bad record in the last part checked: the parts before it are not written either.
            var broken = archive
            broken.notifier.log.append(broken.notifier.log[0])
            let twice = try await importing(broken)
            #expect(twice.code == 4 && twice.err.contains("archive.log.1"), "\(twice.err)")
            var absurd = archive
            absurd.tracker.entries[0].grams = 1e9
            let grams = try await importing(absurd)
            #expect(grams.code == 4 && grams.err.contains("archive.entries.0.grams"), "\(grams.err)")
            var hostilePhoto = archive
            hostilePhoto.catalog.recipes[0].draft.photo = Data("<svg/>".utf8)
            let photo = try await importing(hostilePhoto)
            #expect(photo.code == 4 && photo.err.contains("archive.recipes.0.draft.photo"), "\(photo.err)")
            try Data("{\"format\": \"something else\"}".utf8).write(to: URL(fileURLWithPath: file))
            #expect(await sous(["import", file] + endpoints + ["--user", "adam"]).code == 4)

            let cy = try await Self.export(stack, user: "adam")
            #expect(cy.catalog.recipes.isEmpty && cy.planner.slots.isEmpty && cy.groceries.recipes.isEmpty && cy.tracker.entries.isEmpty)
            #expect(cy.notifier.log.isEmpty && cy.planner.profile == .defaults)
        }
    }
}
