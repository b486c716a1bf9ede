import CatalogService
import Foundation
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// Searching and filling the week for a household: every member's diets, allergens and
/// dislikes apply, each one named with whose it is; a search for oneself, and a person alone,
/// see what they always saw.
@Suite(.closesItsSockets)
struct HouseholdFilterTests {
    func allergens(_ page: RecipePage) -> Set<Allergen> { Set(page.recipes.flatMap(\.allergens)) }

    @Test func aSearchForTheHouseholdAvoidsEveryMembersAllergensAndSaysWhose() async throws {
        try await HouseholdTests().withStack { stack, _ in
            let suite = HouseholdTests()
            let ada = try await suite.person("Ada", on: stack)
            let bob = try await suite.person("Bob", on: stack)
            let catalogAda = stack.client(Catalog.self, session: ada.token)
            let search = RecipeSearch(useSavedProfile: true, pageSize: 100)
            let alone = try await catalogAda.call(CatalogAPI.searchRecipes, search)
            #expect(alone.household == nil, "a person alone: nothing added")
            #expect(allergens(alone).contains(.milk), "the catalog has recipes with milk")

            _ = try await bob.planner.call(PlannerAPI.updateProfile, ProfileUpdate(diets: [.vegetarian], allergens: [.milk], dislikes: ["mushrooms"]))
            // The catalog keeps Ada's household (one member) since her search; the planner's
            // announcement of the change drops it.
            await stack.catalog.households.waitUntilSubscribed()
            let dropped = stack.catalog.households.applied.subscribe()
            try await bob.join(try await ada.invite())
            _ = try await firstElement(of: dropped, within: .seconds(30)) { $0 == ada.user }

            let together = try await catalogAda.call(CatalogAPI.searchRecipes, search)
            #expect(!allergens(together).contains(.milk), "Bob's allergen applies to Ada's search for the household")
            #expect(together.recipes.allSatisfy { $0.diets.contains(.vegetarian) }, "and his diet")
            let named = Set((together.household ?? []).map { "\($0.name):\($0.kind.rawValue):\($0.value)" })
            #expect(named == ["Bob:allergen:milk", "Bob:diet:vegetarian", "Bob:dislike:mushrooms"], "\(named)")
            #expect(together.total < alone.total)

            var ownOnly = search
            ownOnly.forHousehold = false
            let own = try await catalogAda.call(CatalogAPI.searchRecipes, ownOnly)
            #expect(own.total == alone.total && own.household == nil, "for herself alone, as before")

            // A layer switched off is off for everyone.
            var noAllergens = search
            noAllergens.switches = FilterSwitches(allergens: false)
            let switched = try await catalogAda.call(CatalogAPI.searchRecipes, noAllergens)
            #expect(!(switched.household ?? []).contains { $0.kind == .allergen })

            // Filling the household's week takes only what every member may eat.
            let filled = try await ada.planner.call(PlannerAPI.fill, PlanFill(seed: 7))
            #expect(!filled.filled.isEmpty)
            let catalog = stack.client(Catalog.self, session: ada.token)
            for slot in filled.filled {
                let recipe = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: slot.recipe))
                #expect(!recipe.allergens.contains(.milk) && recipe.diets.contains(.vegetarian), "\(slot.recipe)")
            }

            // Once Bob leaves, Ada's search is hers alone again.
            let droppedAgain = stack.catalog.households.applied.subscribe()
            _ = try await bob.planner.call(HouseholdAPI.leave, Empty())
            _ = try await firstElement(of: droppedAgain, within: .seconds(30)) { $0 == ada.user }
            let after = try await catalogAda.call(CatalogAPI.searchRecipes, search)
            #expect(after.household == nil && after.total == alone.total)
        }
    }
}
