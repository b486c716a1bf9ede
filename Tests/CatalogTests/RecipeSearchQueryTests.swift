import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

@testable import CatalogService

/// The SQL a recipe search runs, built without a database.
@Suite(.closesItsSockets)
struct RecipeSearchQueryTests {
    let book = IngredientBook(all: [
        "eggplant": Ingredient(
            id: "eggplant", name: "Aubergine (eggplant)", usdaNdb: nil, unit: .g, gramsPerPiece: 300, gramsPerMl: nil,
            price: Price(amount: 3, per: .kg), category: .produce, nutrition: .zero, contains: [], allergens: [], synonyms: ["aubergine"]
        ),
        "egg": Ingredient(
            id: "egg", name: "Egg", usdaNdb: nil, unit: .piece, gramsPerPiece: 50, gramsPerMl: nil, price: Price(amount: 0.3, per: .piece),
            category: .dairy, nutrition: .zero, contains: [.egg], allergens: [.eggs]
        ),
    ])

    @Test func textBecomesQuotedPrefixesAndOperatorsAreNotSyntax() throws {
        #expect(try RecipeSearchQuery.matchExpression("Lentil  SOUP") == "\"lentil\"* \"soup\"*")
        #expect(try RecipeSearchQuery.matchExpression("crème brûlée") == "\"creme\"* \"brulee\"*")
        #expect(try RecipeSearchQuery.matchExpression("soup OR NOT \"x\"*") == "\"soup\"* \"or\"* \"not\"* \"x\"*")
        #expect(try RecipeSearchQuery.matchExpression("  ") == nil && RecipeSearchQuery.matchExpression("!!!") == nil)
        #expect(throws: ServiceError.self) { try RecipeSearchQuery.matchExpression(String(repeating: "a", count: 201)) }
        // The same words, each required in the name (the first tier of a broad search).
        let named = try RecipeSearchQuery(RecipeSearch(query: "Lentil  SOUP"), filter: nil, ingredients: book)
        #expect(named.nameMatchExpression == "name : \"lentil\"* name : \"soup\"*")
        #expect(try RecipeSearchQuery(RecipeSearch(query: "soup"), filter: nil, ingredients: book, engine: .postgres).nameMatchExpression == nil)
    }

    @Test func everyFilterLayerIsOneIntegerOrMembershipTest() throws {
        let profile = RecipeFilterProfile(diets: [.vegan], allergens: [.eggs], dislikes: ["egg"], equipment: [.stove, .oven], patience: 3)
        let query = try RecipeSearchQuery(
            RecipeSearch(ingredients: ["aubergines"], energyLevels: [2, 1, 2], dishType: .soup), filter: (profile, FilterSwitches()),
            ingredients: book
        )
        #expect(
            query.conditions == RecipeSearchQuery.integerTests + [
                "r.key IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (SELECT value FROM json_each(?)) GROUP BY recipe_key HAVING COUNT(DISTINCT ingredient_id) = ?)",
                "r.key NOT IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (SELECT value FROM json_each(?)))",
            ])
        let vegan = Bitmask.of([Diet.vegan])
        let soup = Bitmask.of([DishType.soup])
        #expect(
            query.arguments == [
                .integer(0b110), .integer(soup), .integer(soup), .integer(vegan), .integer(vegan), .integer(Bitmask.of([Allergen.eggs])),
                .integer(Bitmask.of([Appliance.mixer, .microwave, .fryer])), .integer(3), .text("[\"eggplant\"]"), .integer(1), .text("[\"egg\"]"),
            ], "the name is resolved to its id, and every value is bound")
    }

    @Test func switchedOffLayersBindValuesThatPassEveryRecipe() throws {
        let profile = RecipeFilterProfile(diets: [.vegan], allergens: [.eggs], dislikes: ["egg"], equipment: [], patience: 1)
        let off = FilterSwitches(diets: false, allergens: false, dislikes: false, equipment: false, patience: false)
        let query = try RecipeSearchQuery(RecipeSearch(), filter: (profile, off), ingredients: book)
        #expect(query.conditions == RecipeSearchQuery.integerTests && query.matchExpression == nil)
        #expect(query.arguments == [.integer(-1), .integer(0), .integer(0), .integer(0), .integer(0), .integer(0), .integer(0), .integer(.max)])
        let unfiltered = try RecipeSearchQuery(RecipeSearch(), filter: nil, ingredients: book)
        #expect(unfiltered == query, "the same text and values as no filter at all")
    }

    @Test func badInputNamesTheField() {
        let unknown = #expect(throws: ServiceError.self) {
            try RecipeSearchQuery(RecipeSearch(ingredients: ["egg", "unobtainium"]), filter: nil, ingredients: book)
        }
        #expect(unknown?.code == .notFound && unknown?.field == "ingredients.1")
        let level = #expect(throws: ServiceError.self) { try RecipeSearchQuery(RecipeSearch(energyLevels: [6]), filter: nil, ingredients: book) }
        #expect(level?.field == "energyLevels.0")
        let dislike = #expect(throws: ServiceError.self) {
            try RecipeSearchQuery(RecipeSearch(), filter: (RecipeFilterProfile(dislikes: ["nope"]), FilterSwitches()), ingredients: book)
        }
        #expect(dislike?.code == .notFound && dislike?.field == "profile.dislikes.0")
    }
}
