import CatalogService
import CatalogTesting
import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// `recipes.import`: schema.org JSON-LD into the caller's own recipes, every line matched to a
/// catalog ingredient or listed, all recipes or none.
@Suite(.closesItsSockets)
struct RecipeImportTests {
    static func document(extraLines: [String] = []) -> String {
        let lines =
            [
                "200 g red lentils", "1 (400 g) can chopped tomatoes", "1 onion, diced", "2 cloves garlic, minced", "2 tbsp olive oil",
                "1 l vegetable stock", "salt to taste",
            ] + extraLines
        let ingredients = lines.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"""
            {"@context": "https://schema.org", "@graph": [
              {"@type": "WebPage", "name": "Soups &amp; more"},
              {"@type": "Recipe", "name": "Lentil &amp; Tomato Soup", "description": "A quick soup.",
               "recipeYield": "4 servings", "prepTime": "PT10M", "cookTime": "PT30M",
               "recipeIngredient": [\#(ingredients)],
               "recipeInstructions": [{"@type": "HowToStep", "text": "Chop the onion and garlic."},
                                      {"@type": "HowToStep", "text": "Simmer everything for 30 minutes."}],
               "recipeCategory": "Soup", "tool": ["Stove"], "recipeCuisine": "Italian"}
            ]}
            """#
    }

    @Test func aDocumentWithEveryLineMatchedOrMappedBecomesTheUsersRecipe() async throws {
        try await withCatalog { _, client in
            let report = try await client.call(
                CatalogAPI.importRecipes, RecipeImport(document: Self.document(), mappings: ["salt to taste": "1 tsp salt"]), user: "ada")
            #expect(report.unmatched.isEmpty)
            let imported = try #require(report.imported.first)
            #expect(report.imported.count == 1 && imported.name == "Lentil & Tomato Soup" && imported.lines == 7)
            #expect(imported.unmappedFields == ["recipeCuisine"])

            let recipe = try await client.call(CatalogAPI.getRecipe, .init(id: imported.id), user: "ada")
            #expect(recipe.servings == 4 && recipe.prepMinutes == 10 && recipe.cookMinutes == 30)
            #expect(recipe.dishTypes == [.soup] && recipe.equipment == [.stove] && recipe.origin == .custom)
            let lines = recipe.ingredients.map { "\($0.ingredient) \($0.quantity) \($0.unit.rawValue)" }
            #expect(
                lines == [
                    "red-lentils 200.0 g", "canned-tomatoes 400.0 g", "onion 1.0 piece", "garlic 2.0 piece", "olive-oil 2.0 tbsp",
                    "vegetable-stock 1.0 l", "salt 1.0 tsp",
                ])
            #expect(recipe.steps.map(\.type) == [.preparation, .cooking])
            #expect(recipe.notes == "From the imported recipe:\nrecipeCuisine: Italian", "what no field holds is kept in the notes")
            #expect(try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada").recipes.map(\.id) == [imported.id])
        }
    }

    /// Unmatched lines are listed with why, and then nothing at all is imported.
    @Test func unmatchedLinesAreListedAndNothingIsImported() async throws {
        try await withCatalog { _, client in
            let document = Self.document(extraLines: ["1 dragonfruit", "1000000000 cups sugar", "1 bunch olive oil"])
            let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "ada")
            #expect(report.imported.isEmpty)
            #expect(report.unmatched.map(\.line) == ["salt to taste", "1 dragonfruit", "1 bunch olive oil", "1000000000 cups sugar"])
            #expect(report.unmatched.allSatisfy { $0.recipe == "Lentil & Tomato Soup" })
            #expect(report.unmatched[0].reason.contains("no quantity") && report.unmatched[1].reason.contains("dragonfruit"))
            #expect(report.unmatched[3].reason.contains("quantity"), "\(report.unmatched[3].reason)")
            #expect(try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada").recipes.isEmpty)
        }
    }

    @Test func aDocumentThatIsNotRecipesIsRefusedNamingTheDocument() async throws {
        try await withCatalog { _, client in
            for (document, words) in [("{not json", "not valid JSON"), (#"{"@type": "Person", "name": "Ada"}"#, "Recipe")] {
                let error = await #expect(throws: ServiceError.self) {
                    try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "ada")
                }
                #expect(
                    error?.code == .badRequest && error?.field == "document" && error?.message.contains(words) == true, "\(String(describing: error))"
                )
            }
        }
    }
}
