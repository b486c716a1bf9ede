import CatalogService
import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing
import TrackerService

/// `recipes.suggest` (catalog, with the tracker and groceries) and `plan.fill` / `plan.unfill`
/// (planner, with the catalog), against the whole stack.
@Suite(.closesItsSockets)
struct SuggestionTests {
    /// 1 300 kcal of the default 2 000 eaten: 700 kcal, 100 g carbohydrates, 40 g protein and
    /// 20 g fat are left.
    static let breakfast = DiaryAdd(
        meal: .breakfast, grams: 400, food: "Big breakfast", per100g: Macros(kcal: 325, carbohydrates: 37.5, protein: 8.75, fat: 11.25))

    /// An empty recipe (0 kcal) is no meal, and past the day's kcal goal nothing fits: the
    /// reply says so instead of suggesting what is closest to nothing.
    @Test func noEmptyRecipeIsSuggestedAndPastTheGoalTheReplySaysWhy() async throws {
        let stack = try StackFixture.make(clock: .manual(at: referenceInstant))
        try await withRunningServices(stack.hosts) { _ in
            let catalog = stack.client(Catalog.self), tracker = stack.client(Tracker.self)
            _ = try await catalog.call(CatalogAPI.createRecipe, RecipeDraft(name: "Empty", summary: "Nothing in it yet."), user: "ada")
            _ = try await tracker.call(TrackerAPI.addEntry, Self.breakfast, user: "ada")
            let some = try await catalog.call(CatalogAPI.suggest, RecipeSuggestionRequest(limit: 20), user: "ada")
            #expect(!some.suggestions.isEmpty && some.explanation == nil)
            #expect(some.suggestions.allSatisfy { $0.perServing.kcal > 0 && $0.recipe.dishTypes.contains(.mainCourse) })

            let feast = DiaryAdd(meal: .lunch, grams: 1000, food: "Feast", per100g: Macros(kcal: 300, carbohydrates: 30, protein: 10, fat: 15))
            _ = try await tracker.call(TrackerAPI.addEntry, feast, user: "ada")
            let none = try await catalog.call(CatalogAPI.suggest, RecipeSuggestionRequest(), user: "ada")
            #expect(none.suggestions.isEmpty && none.considered == 0)
            #expect(none.explanation?.contains("kcal goal is reached") == true, "\(none.explanation ?? "")")
        }
    }

    @Test func suggestionsFitWhatIsLeftPassTheFiltersAndSayWhy() async throws {
        let stack = try StackFixture.make(clock: .manual(at: referenceInstant))
        try await withRunningServices(stack.hosts) { _ in
            let catalog = stack.client(Catalog.self), planner = stack.client(Planner.self)
            let tracker = stack.client(Tracker.self), groceries = stack.client(Groceries.self)
            _ = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(diets: [.vegetarian], allergens: [.gluten]), user: "ada")
            _ = try await tracker.call(TrackerAPI.addEntry, Self.breakfast, user: "ada")
            // Main courses, unless another dish type is asked for.
            let filtered = try await catalog.call(
                CatalogAPI.searchRecipes, RecipeSearch(dishType: .mainCourse, useSavedProfile: true, pageSize: 100), user: "ada"
            ).recipes
            #expect(filtered.count > 5 && filtered.count <= RecipeSuggestions.maxConsidered, "the fixture's filtered recipes are all scored")
            // A filtered recipe on the grocery list: its ingredients are all on it.
            let listed = try #require(filtered.first)
            _ = try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: listed.id), user: "ada")

            let reply = try await catalog.call(CatalogAPI.suggest, RecipeSuggestionRequest(limit: 20), user: "ada")
            #expect(reply.remaining == Macros(kcal: 700, carbohydrates: 100, protein: 40, fat: 20))
            #expect(reply.target == reply.remaining, "one meal left takes it all")
            #expect(reply.considered == filtered.count && reply.groceryListRead)
            #expect(reply.suggestions.count == min(20, filtered.count))

            // Never outside the saved profile's filters.
            let allowed = Set(filtered.map(\.id))
            for suggestion in reply.suggestions {
                #expect(allowed.contains(suggestion.recipe.id), "\(suggestion.recipe.id) passes the filters")
                #expect(suggestion.recipe.diets.contains(.vegetarian) && !suggestion.recipe.allergens.contains(.gluten))
                #expect(suggestion.reasons.contains { $0.hasPrefix("passes your saved profile: vegetarian; no gluten") })
            }
            // Ranked by fit in steps of 5 points, then cheaper first within a step.
            for (a, b) in zip(reply.suggestions, reply.suggestions.dropFirst()) {
                let (stepA, stepB) = (Int(a.fit / 5), Int(b.fit / 5))
                #expect(stepA >= stepB)
                if stepA == stepB { #expect(a.recipe.costPerServing <= b.recipe.costPerServing) }
            }
            // The fit, worked out by hand for the best one from its serving's macros.
            let best = try #require(reply.suggestions.first)
            func miss(_ value: Double, _ target: Double, _ goal: Double) -> Double { min(abs(value - target) / max(target, goal / 10), 1) }
            let serving = best.perServing
            let expected =
                100
                * (1
                    - (2 * miss(serving.kcal, 700, 2000) + miss(serving.carbohydrates, 100, 250) + miss(serving.protein, 40, 75)
                        + miss(serving.fat, 20, 65)) / 5)
            #expect(abs(best.fit - expected) < 0.06)
            let detail = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: best.recipe.id), user: "ada")
            #expect(abs(detail.nutritionPerServing.kcal - serving.kcal) < 0.001)
            #expect(best.reasons[0].contains("of the 700 kcal left today; protein "), "\(best.reasons)")

            // Each suggestion names exactly its ingredients that the listed recipe put on the list.
            let listedIngredients = Set(
                try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: listed.id), user: "ada").ingredients.map(\.name))
            for suggestion in reply.suggestions {
                let names = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: suggestion.recipe.id), user: "ada").ingredients.map(\.name)
                #expect(Set(suggestion.onGroceryList) == Set(names).intersection(listedIngredients), "\(suggestion.recipe.id)")
                #expect(suggestion.onGroceryList.isEmpty != suggestion.reasons.contains { $0.contains("already on your grocery list") })
            }
            #expect(reply.suggestions.contains { !$0.onGroceryList.isEmpty })

            // Two meals left share what is left.
            let two = try await catalog.call(CatalogAPI.suggest, RecipeSuggestionRequest(meals: 2), user: "ada")
            #expect(two.target == Macros(kcal: 350, carbohydrates: 50, protein: 20, fat: 10) && two.suggestions.count == 5)
            #expect(two.suggestions[0].reasons[0].contains("of the 350 kcal left for each of the 2 meals still to eat"))

            // Switching the allergen filter off lets gluten back in.
            let unfiltered = try await catalog.call(
                CatalogAPI.suggest, RecipeSuggestionRequest(switches: FilterSwitches(allergens: false), limit: 20), user: "ada")
            #expect(unfiltered.considered > reply.considered)

            for (request, field) in [
                (RecipeSuggestionRequest(meals: 0), "meals"), (RecipeSuggestionRequest(meals: 7), "meals"),
                (RecipeSuggestionRequest(limit: 0), "limit"),
                (RecipeSuggestionRequest(limit: 21), "limit"),
            ] {
                let error = await #expect(throws: ServiceError.self) { try await catalog.call(CatalogAPI.suggest, request, user: "ada") }
                #expect(error?.code == .badRequest && error?.field == field)
            }
        }
    }

    @Test func withoutTheGroceriesServiceSuggestionsAreRankedWithoutTheList() async throws {
        let stack = try StackFixture.make(clock: .manual(at: referenceInstant))
        try await withRunningServices([stack.catalog.host, stack.planner.host, stack.tracker.host]) { _ in
            let catalog = stack.client(Catalog.self)
            let reply = try await catalog.call(CatalogAPI.suggest, RecipeSuggestionRequest(limit: 3), user: "bo")
            #expect(!reply.groceryListRead && reply.suggestions.count == 3)
            #expect(reply.remaining == Macros(kcal: 2000, carbohydrates: 250, protein: 75, fat: 65), "an empty diary leaves the default goals")
        }
    }
}

@Suite(.closesItsSockets)
struct PlanFillTests {
    static let range = KcalRange(min: 500, max: 2000)

    @Test func fillingTheWeekKeepsEveryRuleAndIsUndone() async throws {
        let stack = try StackFixture.make(clock: .manual(at: referenceInstant))
        try await withRunningServices(stack.hosts) { _ in
            let catalog = stack.client(Catalog.self), planner = stack.client(Planner.self)
            _ = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(people: 2, diets: [.vegetarian]), user: "ada")
            let today = LocalDate(referenceInstant, in: TimeZone(identifier: "UTC")!)
            _ = try await planner.call(PlannerAPI.putSlot, SlotAssignment(date: today, slot: 2, recipe: minestrone), user: "ada")

            let request = PlanFill(noRepeatDays: 7, weeklyBudget: 200, dailyKcal: Self.range, seed: 42)
            let result = try await planner.call(PlannerAPI.fill, request, user: "ada")
            #expect(result.fill == 1 && result.seed == 42)
            #expect(result.filled.count + result.unfilled.count == 13, "every empty slot is filled or says why not")
            #expect(result.filled.count >= 7)
            for slot in result.unfilled { #expect(!slot.reason.isEmpty) }

            // Every choice passes the saved profile and is a main course.
            let candidates = try await catalog.call(
                CatalogAPI.searchRecipes, RecipeSearch(dishType: .mainCourse, useSavedProfile: true, pageSize: 100), user: "ada"
            ).recipes
            #expect(result.candidates == candidates.count)
            let byID = Dictionary(uniqueKeysWithValues: candidates.map { ($0.id, $0) })
            for choice in result.filled {
                let recipe = try #require(byID[choice.recipe], "\(choice.recipe) passes the filters")
                #expect(recipe.diets.contains(.vegetarian) && recipe.dishTypes.contains(.mainCourse))
                #expect(choice.kcalPerServing == recipe.kcalPerServing && choice.costPerServing == recipe.costPerServing)
                #expect(choice.reasons.contains { $0.contains("seed 42") })
            }

            // No repeats within 7 days: the week holds each recipe once, the manual one included.
            let planned = result.days.flatMap(\.slots).compactMap(\.recipe)
            #expect(Set(planned).count == planned.count)
            #expect(result.days[0].slots[1].recipe == minestrone, "a planned slot is left alone")

            // Each day's meals within the range, and the week's cost within the budget, counted
            // from the catalog's own figures.
            var weekCost = 0.0
            for day in result.days {
                var kcal = 0.0
                for recipe in day.slots.compactMap(\.recipe) {
                    let detail = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: recipe), user: "ada")
                    kcal += detail.nutritionPerServing.kcal
                    weekCost += detail.costPerServing * 2
                }
                if day.slots.allSatisfy({ $0.recipe != nil }) { #expect(Self.range.min - 0.5 <= kcal && kcal <= Self.range.max + 0.5) }
            }
            #expect(abs(result.weekCost - weekCost) < 0.01 && result.weekCost <= 200)

            // Undone, then the same seed gives the same week; another seed another one.
            let undone = try await planner.call(PlannerAPI.unfill, PlanFillRef(), user: "ada")
            #expect(undone.fill == 1 && undone.cleared.count == result.filled.count && undone.kept.isEmpty)
            let week = try await planner.call(PlannerAPI.getPlan, Empty(), user: "ada")
            #expect(week.days.flatMap(\.slots).compactMap(\.recipe) == [minestrone])
            // What the fill picked leaves the selection with it; what was picked before stays.
            #expect(week.selection.map(\.id) == [minestrone])
            #expect(Set(undone.unselected) == Set(result.filled.map(\.recipe)).subtracting([minestrone]))
            let again = try await planner.call(PlannerAPI.fill, request, user: "ada")
            #expect(again.filled.map(\.recipe) == result.filled.map(\.recipe) && again.fill == 1)
            _ = try await planner.call(PlannerAPI.unfill, PlanFillRef(fill: 1), user: "ada")
            var other = request
            other.seed = 43
            let otherWeek = try await planner.call(PlannerAPI.fill, other, user: "ada")
            #expect(otherWeek.filled.map(\.recipe) != result.filled.map(\.recipe))

            // A slot changed since the fill is kept by the undo.
            let changed = try #require(otherWeek.filled.first)
            _ = try await planner.call(PlannerAPI.putSlot, SlotAssignment(date: changed.date, slot: changed.slot, recipe: soup), user: "ada")
            let partly = try await planner.call(PlannerAPI.unfill, PlanFillRef(), user: "ada")
            #expect(partly.kept == [SlotRef(date: changed.date, slot: changed.slot)] && partly.cleared.count == otherWeek.filled.count - 1)
            // A recipe the fill added that a kept slot still holds stays selected.
            let selection = try await planner.call(PlannerAPI.getPlan, Empty(), user: "ada").selection.map(\.id)
            #expect(Set(selection) == [minestrone, soup])
            let error = await #expect(throws: ServiceError.self) { try await planner.call(PlannerAPI.unfill, PlanFillRef(), user: "ada") }
            #expect(error?.code == .notFound && error?.field == "fill", "nothing left to undo")
        }
    }

    @Test func aTightBudgetLeavesSlotsEmptyAndSaysSo() async throws {
        let stack = try StackFixture.make(clock: .manual(at: referenceInstant))
        try await withRunningServices(stack.hosts) { _ in
            let planner = stack.client(Planner.self)
            let result = try await planner.call(PlannerAPI.fill, PlanFill(noRepeatDays: 0, weeklyBudget: 10, seed: 7), user: "bo")
            #expect(result.weekCost <= 10)
            #expect(!result.unfilled.isEmpty && result.unfilled.allSatisfy { $0.reason.contains("budget") })
            #expect(result.filled.allSatisfy { $0.reasons.contains { $0.contains("of the €10.00 budget left") } })
        }
    }

    @Test func badFillRequestsNameTheirField() async throws {
        let stack = try StackFixture.make(clock: .manual(at: referenceInstant))
        try await withRunningServices(stack.hosts) { _ in
            let planner = stack.client(Planner.self)
            let today = LocalDate(referenceInstant, in: TimeZone(identifier: "UTC")!)
            for (request, field) in [
                (PlanFill(from: today.adding(days: -1)), "from"), (PlanFill(to: today.adding(days: 7)), "to"),
                (PlanFill(from: today.adding(days: 3), to: today.adding(days: 2)), "to"), (PlanFill(slots: []), "slots"),
                (PlanFill(slots: [1, 3]), "slots.1"), (PlanFill(noRepeatDays: 29), "noRepeatDays"), (PlanFill(noRepeatDays: -1), "noRepeatDays"),
                (PlanFill(weeklyBudget: 0), "weeklyBudget"), (PlanFill(weeklyBudget: .infinity), "weeklyBudget"),
                (PlanFill(dailyKcal: KcalRange(min: -1, max: 100)), "dailyKcal.min"),
                (PlanFill(dailyKcal: KcalRange(min: 900, max: 800)), "dailyKcal.max"),
                (PlanFill(dailyKcal: KcalRange(min: 0, max: .nan)), "dailyKcal.max"),
            ] {
                let error = await #expect(throws: ServiceError.self) { try await planner.call(PlannerAPI.fill, request, user: "ada") }
                #expect(error?.code == .badRequest && error?.field == field, "\(field)")
            }
            let week = try await planner.call(PlannerAPI.getPlan, Empty(), user: "ada")
            #expect(week.days.flatMap(\.slots).allSatisfy { $0.recipe == nil }, "nothing written")
            let error = await #expect(throws: ServiceError.self) { try await planner.call(PlannerAPI.unfill, PlanFillRef(fill: 5), user: "ada") }
            #expect(error?.code == .notFound && error?.field == "fill")
        }
    }
}
