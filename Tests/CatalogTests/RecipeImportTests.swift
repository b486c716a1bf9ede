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

    /// The same ingredient twice in different units ("100 g butter" and "3 tbsp butter") is one
    /// line, added up through the ingredient's density, as the grocery list adds them.
    @Test func theSameIngredientInTwoUnitsIsAddedUpThroughItsDensity() async throws {
        try await withCatalog { _, client in
            let document = Self.document(extraLines: ["100 g butter", "3 tbsp butter", "1 pinch salt"])
            let report = try await client.call(
                CatalogAPI.importRecipes, RecipeImport(document: document, mappings: ["salt to taste": "1 tsp salt"]), user: "ada")
            #expect(report.unmatched.isEmpty, "\(report.unmatched)")
            let imported = try #require(report.imported.first)
            let recipe = try await client.call(CatalogAPI.getRecipe, .init(id: imported.id), user: "ada")
            let butter = try #require(recipe.ingredients.first { $0.ingredient == "butter" })
            // 3 tbsp = 45 ml of butter at 0.95 g/ml = 42.75 g.
            #expect(butter.unit == .g && abs(butter.quantity - 142.75) < 1e-9)
            let salt = try #require(recipe.ingredients.first { $0.ingredient == "salt" })
            // A pinch is 1/16 tsp.
            #expect(salt.unit == .tsp && abs(salt.quantity - 1.0625) < 1e-9)
        }
    }

    /// A recipe site's page: entities, fractions such as ½ and ⅓, sections, several images, a
    /// yield in words, an author; lines with preparation words ("3 ripe bananas, mashed", "⅓ cup
    /// melted butter") read as the food they name, and the recipe as the page meant it.
    @Test func aRecipeSitesPageWithFractionsAndEntitiesImportsAsThePageMeantIt() async throws {
        let document = #"""
            {"@context": "https://schema.org", "@graph": [{"@type": "Recipe", "name": "Best &amp; Easiest Banana Bread",
              "author": {"@type": "Person", "name": "Jo Baker"}, "description": "<p>Moist, <em>easy</em> banana bread.</p>",
              "image": ["https://cook.example.com/img/bb-1x1.jpg", {"@type": "ImageObject", "url": "https://cook.example.com/img/bb-4x3.jpg"}],
              "recipeYield": ["10", "1 loaf"], "prepTime": "PT15M", "totalTime": "PT1H15M", "keywords": "baking, Quick & Easy",
              "recipeIngredient": ["3 ripe bananas, mashed", "1 &frac12; cups flour", "&#189; tsp salt", "⅓ cup melted butter", "1 tsp baking soda"],
              "recipeInstructions": [{"@type": "HowToSection", "name": "Batter", "itemListElement": [
                  {"@type": "HowToStep", "text": "Heat the oven to 175&deg;C."}, {"@type": "HowToStep", "text": "Mix &amp; fold."}]},
                {"@type": "HowToStep", "text": "Bake 60 minutes."}],
              "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4.8}}]}
            """#
        try await withCatalog { _, client in
            let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "ada")
            let imported = try #require(report.imported.first, "\(report.unmatched)")
            #expect(imported.unmappedFields == ["aggregateRating", "author", "image", "keywords", "recipeYield"])
            let recipe = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: imported.id), user: "ada")
            #expect(recipe.name == "Best & Easiest Banana Bread" && recipe.summary == "Moist, easy banana bread.")
            #expect(recipe.servings == 10 && recipe.prepMinutes == 15 && recipe.cookMinutes == 60)
            #expect(recipe.image == "https://cook.example.com/img/bb-1x1.jpg" && recipe.tags == ["baking"])
            #expect(recipe.steps.map(\.description) == ["Batter: Heat the oven to 175°C.", "Batter: Mix & fold.", "Bake 60 minutes."])
            let lines = recipe.ingredients.map { "\($0.ingredient) \(String(format: "%.2f", $0.quantity)) \($0.unit.rawValue)" }
            // A cup is the US legal cup, 240 ml (ParsedUnit): 1 ½ cups = 360 ml, ⅓ cup = 80 ml.
            #expect(lines == ["banana 3.00 piece", "flour 360.00 ml", "salt 0.50 tsp", "butter 80.00 ml", "baking-soda 1.00 tsp"], "\(lines)")
            let notes = try #require(recipe.notes)
            #expect(notes.hasPrefix("From the imported recipe:\n") && notes.contains("author: Jo Baker") && notes.contains("recipeYield: 1 loaf"))
            #expect(notes.contains("image: https://cook.example.com/img/bb-4x3.jpg") && notes.contains("keywords: Quick & Easy"), "\(notes)")
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
