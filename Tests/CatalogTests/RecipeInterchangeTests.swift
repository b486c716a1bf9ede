import CatalogService
import CatalogTesting
import Foundation
import SousInterchange
import SousRuntime
import SousSchema
import SousTestSupport
import Testing

/// Every shipped recipe written as schema.org JSON-LD and read back: the document parses, and each
/// ingredient line parses to the same quantity and unit and names the same catalog ingredient.
@Suite(.closesItsSockets)
struct RecipeInterchangeTests {
    @Test func everyShippedRecipeRoundTripsThroughJSONLD() throws {
        let store = try CatalogStore(database: CatalogFixture.database(), copyOf: CatalogFixture.template)
        let seed = try CatalogFixture.seed
        let details = try seed.recipes.map { try store.recipe($0.id, user: nil, people: nil) }
        #expect(details.count == seed.recipes.count && !details.isEmpty)

        let exported = details.map { SchemaRecipe($0) }
        let read = try SchemaRecipeDocument.recipes(from: SchemaRecipe.jsonLD(exported))
        #expect(read == exported)
        // Nutrition per serving goes out as schema.org writes it.
        let soup = try #require(zip(details, exported).first { $0.0.id == "tomato-lentil-soup" })
        #expect(soup.1.nutrition["calories"] == "\(soup.0.nutritionPerServing.kcal.roundedInt) kcal")
        #expect(soup.1.nutrition["proteinContent"]?.hasSuffix(" g") == true && soup.1.nutrition["servingSize"] == "1 serving")
        #expect(soup.1.imageURLs.allSatisfy { $0.hasPrefix("http") || $0.hasPrefix("data:") }, "no bare file name as an image")
        // More than one piece is written in the plural, and read back to the same ingredient.
        var pieces: [String] = []
        for (detail, recipe) in zip(details, exported) {
            for (ingredient, line) in zip(detail.ingredients, recipe.ingredients) where ingredient.unit == .piece && ingredient.quantity > 1 {
                pieces.append(line)
            }
        }
        let singular = pieces.filter { line in !line.split(separator: " (")[0].split(separator: ",")[0].hasSuffix("s") }
        #expect(!pieces.isEmpty && singular.isEmpty, "\(singular)")

        for (detail, recipe) in zip(details, read) {
            #expect(recipe.name == detail.name && recipe.servings == detail.servings)
            #expect(recipe.prepMinutes == detail.prepMinutes && recipe.cookMinutes == detail.cookMinutes)
            #expect(recipe.steps.map(\.text) == detail.steps.map(\.description))
            #expect(recipe.ingredients.count == detail.ingredients.count)
            for (line, ingredient) in zip(recipe.ingredients, detail.ingredients) {
                let parsed = IngredientLine.parse(line)
                #expect(parsed.quantity.map { abs($0 - ingredient.quantity) < 0.001 } == true, "\(detail.id): \(line)")
                let unit = parsed.unit?.measure?.unit ?? .piece
                #expect(unit == ingredient.unit, "\(detail.id): \(line)")
                let found = parsed.nameCandidates.lazy.compactMap { store.ingredientID(named: $0) }.first
                #expect(found == ingredient.ingredient, "\(detail.id): \(line) → \(parsed.nameCandidates)")
            }
        }
    }

    /// All shipped recipes in one exported document, imported through `recipes.import`: each
    /// becomes the user's own recipe with the same lines, steps, times, equipment and dish types.
    @Test func everyShippedRecipeImportsBackToTheSameContent() async throws {
        try await withCatalog { service, client in
            let seed = try CatalogFixture.seed
            let details = try seed.recipes.map { try service.store.recipe($0.id, user: nil, people: nil) }
            let document = String(decoding: SchemaRecipe.jsonLD(details.map { SchemaRecipe($0) }), as: UTF8.self)
            let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "ada")
            #expect(report.unmatched.isEmpty, "\(report.unmatched)")
            #expect(report.imported.count == details.count && report.imported.allSatisfy(\.unmappedFields.isEmpty))
            for (original, imported) in zip(details, report.imported) {
                let back = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: imported.id), user: "ada")
                #expect(back.name == original.name && back.summary == original.summary && back.servings == original.servings, "\(original.id)")
                #expect(back.prepMinutes == original.prepMinutes && back.cookMinutes == original.cookMinutes, "\(original.id)")
                #expect(back.equipment == original.equipment && back.dishTypes == original.dishTypes, "\(original.id)")
                #expect(back.steps.map(\.description) == original.steps.map(\.description), "\(original.id)")
                #expect(back.ingredients.map(\.ingredient) == original.ingredients.map(\.ingredient), "\(original.id)")
                #expect(
                    zip(back.ingredients, original.ingredients).allSatisfy { abs($0.quantity - $1.quantity) < 0.001 && $0.unit == $1.unit },
                    "\(original.id)")
                // A frying bath stays one, with its share eaten: the nutrition is the same.
                #expect(
                    zip(back.ingredients, original.ingredients).allSatisfy { $0.use == $1.use && abs($0.eatenShare - $1.eatenShare) < 1e-9 },
                    "\(original.id)")
                #expect(abs(back.nutritionPerServing.kcal - original.nutritionPerServing.kcal) < 0.01, "\(original.id)")
                // Only an address goes out as the image; a file name stays behind.
                #expect(back.link == original.link && back.image == original.image.flatMap(SchemaRecipe.absoluteURL), "\(original.id)")
            }
        }
    }
}
