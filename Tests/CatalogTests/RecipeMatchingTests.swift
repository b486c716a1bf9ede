import CatalogService
import CatalogTesting
import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Matching recipe lines to the USDA foods when no curated ingredient is called that, with a
/// confidence, and the mappings users give, remembered.
@Suite(.closesItsSockets)
struct RecipeMatchingTests {
    static func document(_ lines: [String], name: String = "Test") -> String {
        let ingredients = lines.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"@type": "Recipe", "name": "\#(name)", "recipeYield": "2", "recipeIngredient": [\#(ingredients)], "recipeInstructions": "Cook."}"#
    }

    @Test func aFoodWithTheLinesWordsIsTakenAndListed() async throws {
        try await withCatalog { _, client in
            let lines = ["200 g fontina cheese, grated", "1 head iceberg lettuce", "1 cup shredded white cabbage", "2 onions"]
            let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: Self.document(lines)), user: "ada")
            #expect(report.unmatched.isEmpty && report.imported.count == 1, "\(report.unmatched)")
            // Only SR28 has fontina: every word of the line is in "Cheese, fontina", so it is taken, and said.
            #expect(
                report.matched == [
                    MatchedIngredientLine(
                        recipe: "Test", line: "200 g fontina cheese, grated", ingredient: "usda-01020", name: "Cheese, fontina", how: .food,
                        confidence: 1)
                ])
            let recipe = try await client.call(CatalogAPI.getRecipe, .init(id: try #require(report.imported.first).id), user: "ada")
            let grams = Dictionary(uniqueKeysWithValues: recipe.ingredients.map { ($0.ingredient, $0.grams) })
            #expect(grams["usda-01020"] == 200)
            // A head is the food's own measure of that name, the medium one (SR28: 539 g); a cup of
            // cabbage weighs what SR28's cup of chopped cabbage does (89 g).
            #expect(grams["iceberg-lettuce"] == 539)
            #expect(abs((grams["white-cabbage"] ?? 0) - 89) < 1e-9)
            // The USDA food has no price: the cost leaves it out and says so.
            #expect(recipe.unpriced == ["Cheese, fontina"])
            #expect(recipe.ingredients.first { $0.ingredient == "usda-01020" }?.cost == nil)
        }
    }

    @Test func anUnsureMatchIsAskedWithItsSuggestionNeverTaken() async throws {
        try await withCatalog { _, client in
            let document = Self.document(["1 cup vegetable oil", "2 onions"])
            let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "ada")
            #expect(report.imported.isEmpty && report.matched.isEmpty)
            let line = try #require(report.unmatched.first)
            // SR28 has no plain vegetable oil: "Vegetable oil, palm kernel" has the words, but they
            // are half of its name.
            #expect(line.line == "1 cup vegetable oil" && line.suggestion == "usda-04513" && line.confidence == 0.5)
            #expect(line.reason.contains("\"Vegetable oil, palm kernel\" (50 % sure)"), "\(line.reason)")
            #expect(try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada").recipes.isEmpty)
            // Taking the suggestion is the person's choice, and listed as theirs.
            let mapped = try await client.call(
                CatalogAPI.importRecipes, RecipeImport(document: document, mappings: ["1 cup vegetable oil": "usda-04513"]), user: "ada")
            #expect(mapped.imported.count == 1 && mapped.matched.map(\.how) == [.mapping] && mapped.matched.first?.ingredient == "usda-04513")
        }
    }

    @Test func aMappingIsRememberedForItsUserOnlyUntilForgotten() async throws {
        try await withCatalog { _, client in
            let document = Self.document(["1 dragonfruit", "2 onions"])
            let first = try await client.call(
                CatalogAPI.importRecipes, RecipeImport(document: document, mappings: ["1 dragonfruit": "1 banana", "not in it": "salt"]),
                user: "ada")
            #expect(first.imported.count == 1)
            // The same line again, written with other case and spaces: not asked.
            let again = try await client.call(
                CatalogAPI.importRecipes, RecipeImport(document: Self.document(["1  Dragonfruit"])), user: "ada")
            #expect(again.imported.count == 1 && again.matched.map(\.how) == [.remembered] && again.matched.first?.ingredient == "banana")
            // Only lines the document had are remembered; and only for ada.
            let remembered = try await client.call(CatalogAPI.mappings, Empty(), user: "ada")
            #expect(remembered.mappings == [RememberedMapping(line: "1 dragonfruit", target: "1 banana", household: false)])
            let bob = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "bob")
            #expect(bob.imported.isEmpty && bob.unmatched.map(\.line) == ["1 dragonfruit"])
            // Forgotten, it is asked again; forgetting twice is notFound.
            _ = try await client.call(CatalogAPI.forgetMapping, ForgetMapping(line: "1 DRAGONFRUIT"), user: "ada")
            let asked = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "ada")
            #expect(asked.unmatched.map(\.line) == ["1 dragonfruit"])
            let twice = await serviceError { try await client.call(CatalogAPI.forgetMapping, ForgetMapping(line: "1 dragonfruit"), user: "ada") }
            #expect(twice?.code == .notFound && twice?.field == "line")
        }
    }

    @Test func mappingsPastTheLimitsAreRefusedNamingTheField() async throws {
        try await withCatalog { _, client in
            let document = Self.document(["2 onions"])
            for mappings in [
                [String(repeating: "x", count: 501): "salt"], ["2 onions": ""],
                Dictionary(uniqueKeysWithValues: (0...1000).map { ("line \($0)", "salt") }),
            ] {
                let error = await serviceError {
                    try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document, mappings: mappings), user: "ada")
                }
                #expect(error?.code == .badRequest && error?.field == "mappings", "\(String(describing: error))")
            }
            let neither = await serviceError { try await client.call(CatalogAPI.importRecipes, RecipeImport(), user: "ada") }
            #expect(neither?.code == .badRequest && neither?.field == "document")
            let mine = try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada")
            #expect(mine.recipes.isEmpty)
        }
    }
}
