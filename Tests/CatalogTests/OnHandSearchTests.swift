import CatalogService
import Foundation
import SousClient
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// `recipes.search` with what is on hand: the recipes that use it, ranked by how much of it
/// they use, what goes off soonest weighing most.
@Suite(.closesItsSockets)
struct OnHandSearchTests {
    static func draft(_ name: String, _ lines: [RecipeIngredient]) -> RecipeDraft {
        RecipeDraft(
            name: name, summary: "Uses the cupboard.", servings: 2, prepMinutes: 5, cookMinutes: 10, ingredients: lines,
            steps: [.init(description: "Cook it.", minutes: 10, type: .cooking, ingredients: lines.map(\.ingredient))], equipment: [.stove],
            dishTypes: [.mainCourse])
    }

    @Test func recipesAreRankedByTheShareTheyUseOfWhatGoesOffFirst() async throws {
        try await withCatalog { _, client in
            for (name, lines) in [
                ("Zqx all the spinach", [RecipeIngredient(ingredient: "spinach", quantity: 200, unit: .g)]),
                (
                    "Zqx half and all",
                    [.init(ingredient: "spinach", quantity: 100, unit: .g), .init(ingredient: "basmati-rice", quantity: 500, unit: .g)]
                ),
                ("Zqx rice only", [.init(ingredient: "basmati-rice", quantity: 1, unit: .kg)]),
                ("Zqx neither", [.init(ingredient: "tomato", quantity: 2, unit: .piece)]),
            ] {
                _ = try await client.call(CatalogAPI.createRecipe, Self.draft(name, lines), user: "ada")
            }
            // Spinach goes off on the 1st (weight 1), the rice on the 3rd (weight 1/3), held in two lots.
            let onHand = [
                OnHand(ingredient: "spinach", quantity: 200, unit: .g, bestBefore: LocalDate("2026-12-01")),
                OnHand(ingredient: "Basmati rice", quantity: 300, unit: .g, bestBefore: LocalDate("2026-12-05")),
                OnHand(ingredient: "basmati-rice", quantity: 0.2, unit: .kg, bestBefore: LocalDate("2026-12-03")),
            ]
            let page = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "zqx", onHand: onHand), user: "ada")
            // all the spinach: 1 × 1 = 1; half and all: ½ × 1 + 1 × ⅓ = 0.83; rice only: 1 × ⅓.
            #expect(page.recipes.map(\.name) == ["Zqx all the spinach", "Zqx half and all", "Zqx rice only"])
            #expect(page.total == 3 && page.totalIsExact)
            #expect(page.recipes[0].onHand == [OnHandUse(ingredient: "spinach", name: "Baby spinach", share: 1)])
            #expect(
                page.recipes[1].onHand == [
                    OnHandUse(ingredient: "basmati-rice", name: "Basmati rice", share: 1),
                    OnHandUse(ingredient: "spinach", name: "Baby spinach", share: 0.5),
                ])
            #expect(page.recipes[2].onHand?.map(\.share) == [1])
            #expect(page.recipes[1].onHand?.map(\.summary) == ["Basmati rice (all of it)", "Baby spinach (50 %)"])

            // Rice going off first turns the order round: rice only 1, half and all 1 + ½ × ⅓.
            let riceFirst = [
                OnHand(ingredient: "spinach", quantity: 200, unit: .g, bestBefore: LocalDate("2026-12-03")),
                OnHand(ingredient: "basmati-rice", quantity: 500, unit: .g, bestBefore: LocalDate("2026-12-01")),
            ]
            let turned = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "zqx", onHand: riceFirst), user: "ada")
            #expect(turned.recipes.map(\.name) == ["Zqx half and all", "Zqx rice only", "Zqx all the spinach"])
            // Another user does not see ada's recipes; paging slices the one ranked order.
            let second = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "zqx", pageSize: 2, onHand: riceFirst), user: "ada")
            let third = try await client.call(
                CatalogAPI.searchRecipes, RecipeSearch(query: "zqx", page: 2, pageSize: 2, onHand: riceFirst), user: "ada")
            #expect((second.recipes + third.recipes).map(\.name) == turned.recipes.map(\.name))
            let bob = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "zqx", onHand: riceFirst), user: "bob")
            #expect(bob.recipes.isEmpty)
        }
    }

    @Test func everyShippedRecipeUsingWhatIsOnHandIsListedBestFirst() async throws {
        try await withCatalog { _, client in
            let onHand = [
                OnHand(ingredient: "milk", quantity: 1, unit: .l, bestBefore: LocalDate("2026-12-02")),
                OnHand(ingredient: "egg", quantity: 6, unit: .piece),
                OnHand(ingredient: "tomato", quantity: 500, unit: .g, bestBefore: LocalDate("2026-12-01")),
            ]
            let weights = ["tomato": 1.0, "milk": 0.5, "egg": 1.0 / 31]
            let users = Set(TestSeed.shared.recipes.filter { $0.ingredients.contains { weights[$0.ingredient] != nil } }.map(\.id))
            var listed: [RecipeSummary] = []
            for page in 1...20 {
                let found = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(page: page, pageSize: 100, onHand: onHand))
                listed += found.recipes
                if found.recipes.count < 100 { break }
            }
            #expect(Set(listed.map(\.id)) == users && listed.count == users.count, "each shipped recipe using one of them, once")
            let scores = listed.map { ($0.onHand ?? []).reduce(0) { $0 + $1.share * weights[$1.ingredient, default: .nan] } }
            #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 >= $1 }, "\(scores)")
            #expect(listed.allSatisfy { ($0.onHand ?? []).allSatisfy { (0...1).contains($0.share) } && $0.onHand?.isEmpty == false })
            let none = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(onHand: []))
            #expect(none.recipes.isEmpty && none.total == 0, "nothing on hand: nothing uses it")
        }
    }

    @Test func badEntriesAreRefusedNamingTheField() async throws {
        try await withCatalog { _, client in
            func refusal(_ onHand: [OnHand]) async -> ServiceError? {
                await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.searchRecipes, RecipeSearch(onHand: onHand)) }
            }
            let good = OnHand(ingredient: "milk", quantity: 1, unit: .l)
            let unknown = await refusal([good, OnHand(ingredient: "unobtainium", quantity: 1, unit: .g)])
            #expect(unknown?.code == .notFound && unknown?.field == "onHand.1.ingredient")
            for quantity in [0, -1, .infinity, .nan, 100_001] {
                let error = await refusal([OnHand(ingredient: "milk", quantity: quantity, unit: .l)])
                #expect(error?.code == .badRequest && error?.field == "onHand.0.quantity", "\(quantity)")
            }
            let unit = await refusal([OnHand(ingredient: "spinach", quantity: 3, unit: .piece)])
            #expect(unit?.code == .badRequest && unit?.field == "onHand.0.unit")
            let many = await refusal(Array(repeating: good, count: 501))
            #expect(many?.code == .badRequest && many?.field == "onHand")
        }
    }
}
