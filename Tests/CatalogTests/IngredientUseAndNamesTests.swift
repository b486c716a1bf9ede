import CatalogService
import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Frying baths and cooking water count only what is eaten; the grocery list still buys them.
@Suite(.closesItsSockets)
struct IngredientUseTests {
    /// Fish & chips serves 4; the catalog must agree with the independent sum below (1 008 kcal
    /// and 48 g fat per serving, a tenth of the 2 l of oil included) and be nowhere near the
    /// 4 668 kcal it charged for the whole bath.
    @Test func aFryingBathCountsATenthAndIsStillPaidInFull() async throws {
        try await withCatalog { _, client in
            let recipe = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: "beer-battered-fish-chips"))
            let oil = try #require(recipe.ingredients.first { $0.ingredient == "sunflower-oil" })
            #expect(oil.use == .frying && oil.eatenShare == 0.1)
            #expect(near(oil.grams, 1840), "the whole bath is listed")
            #expect(near(oil.cost, 2 * 2.5), "and paid for: 2 l at €2.50/l")
            let expected = TestSeed.nutritionPerServing(of: "beer-battered-fish-chips")
            #expect(near(recipe.nutritionPerServing.kcal, expected.kcal))
            #expect(near(recipe.nutritionPerServing.fat, expected.fat))
            #expect((900...1100).contains(recipe.nutritionPerServing.kcal), "a chip-shop portion, not 4 668 kcal")
        }
    }

    /// The audit of every shipped recipe: no serving is charged a frying bath or cooking water.
    @Test func noShippedRecipeChargesWhatIsLeftInThePan() async throws {
        try await withCatalog { _, client in
            for recipe in TestSeed.shared.recipes {
                for line in recipe.ingredients {
                    let ingredient = try #require(TestSeed.ingredients[line.ingredient])
                    let grams =
                        line.quantity
                        * (line.unit.grams ?? line.unit.millilitres.map { $0 * (ingredient.gramsPerMl ?? 1) } ?? ingredient.gramsPerPiece ?? 0)
                    // Half a litre or more of fat in one line can only be a frying bath.
                    if ingredient.nutrition.fat >= 80, grams >= 500 {
                        #expect(line.use == .frying, "\(recipe.id): \(line.ingredient) \(line.quantity) \(line.unit) is eaten whole?")
                    }
                }
            }
            let page = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(pageSize: 100))
            #expect(page.recipes.count == TestSeed.shared.recipes.count)
            for summary in page.recipes {
                #expect(summary.kcalPerServing < 1300, "\(summary.id): \(summary.kcalPerServing) kcal per serving")
            }
        }
    }

    @Test func saltedPastaWaterCountsATenthOfItsSalt() async throws {
        try await withCatalog { _, client in
            let recipe = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: "spaghetti-carbonara"))
            let salt = try #require(recipe.ingredients.first { $0.ingredient == "salt" })
            #expect(salt.use == .discarded && salt.eatenShare == 0.1)
            let expected = TestSeed.nutritionPerServing(of: "spaghetti-carbonara")
            #expect(near(recipe.nutritionPerServing.salt, expected.salt))
        }
    }

    @Test func aUserMarksFryingOilAndSharesAreChecked() async throws {
        try await withCatalog { _, client in
            let lines = [
                RecipeIngredient(ingredient: "potato", quantity: 500, unit: .g),
                RecipeIngredient(ingredient: "sunflower-oil", quantity: 1, unit: .l, use: .frying, eatenShare: 0.05),
            ]
            let draft = RecipeDraft(name: "Home fries", summary: "Fried twice.", servings: 2, ingredients: lines)
            let created = try await client.call(CatalogAPI.createRecipe, draft, user: "ada")
            // 500 g potato × 79 + 5 % of 920 g oil × 884 = 395 + 406.64 = 801.64 kcal, ÷ 2.
            #expect(near(created.nutritionPerServing.kcal, 400.82))
            #expect(created.ingredients[1].use == .frying && created.ingredients[1].eatenShare == 0.05)
            let reread = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: created.id), user: "ada")
            #expect(reread.ingredients == created.ingredients, "use and share are stored")

            for share in [-0.1, 1.5, .nan, .infinity] {
                var bad = lines
                bad[1].eatenShare = share
                let error = await #expect(throws: ServiceError.self) {
                    try await client.call(CatalogAPI.createRecipe, RecipeDraft(name: "Bad", summary: "Bad.", ingredients: bad), user: "ada")
                }
                #expect(error?.code == .badRequest && error?.field == "ingredients.1.eatenShare")
            }
            #expect(try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada").recipes.count == 1, "nothing half-written")
        }
    }
}

/// Ingredients are found by the names cooks use, in free text and by name.
@Suite(.closesItsSockets)
struct IngredientNameSearchTests {
    @Test func freeTextFindsRecipesByTheirIngredientsNamesAndSynonyms() async throws {
        try await withCatalog { _, client in
            let withEggplant = Set(TestSeed.shared.recipes.filter { $0.ingredients.contains { $0.ingredient == "eggplant" } }.map(\.id))
            #expect(!withEggplant.isEmpty)
            let aubergine = Set(try await client.allRecipeIDs(RecipeSearch(query: "aubergine")))
            #expect(withEggplant.isSubset(of: aubergine), "aubergine is eggplant")
            let eggplant = Set(try await client.allRecipeIDs(RecipeSearch(query: "eggplant")))
            #expect(withEggplant.isSubset(of: eggplant))

            let withZucchini = Set(TestSeed.shared.recipes.filter { $0.ingredients.contains { $0.ingredient == "zucchini" } }.map(\.id))
            #expect(!withZucchini.isEmpty)
            for word in ["zucchini", "courgette", "Courgettes"] {
                #expect(withZucchini.isSubset(of: Set(try await client.allRecipeIDs(RecipeSearch(query: word)))), "\(word)")
            }
        }
    }

    @Test func aNameMatchRanksBeforeAnIngredientMatch() async throws {
        try await withCatalog { _, client in
            // "lentil" is in the soup's name and is an ingredient of other recipes too.
            let page = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "lentil"))
            let names = page.recipes.map { $0.name.lowercased().contains("lentil") || $0.summary.lowercased().contains("lentil") }
            #expect(names == names.sorted { $0 && !$1 }, "recipes naming lentils come first")
        }
    }

    @Test func theIngredientFilterTakesANameOrSynonym() async throws {
        try await withCatalog { _, client in
            let byID = try await client.allRecipeIDs(RecipeSearch(ingredients: ["eggplant"]))
            #expect(!byID.isEmpty)
            for name in ["aubergine", "Aubergines", "EGGPLANT", "eggplants"] {
                #expect(try await client.allRecipeIDs(RecipeSearch(ingredients: [name])) == byID, "\(name)")
            }
            let spelledOut = try await client.allRecipeIDs(RecipeSearch(ingredients: ["red lentils"]))
            #expect(spelledOut == (try await client.allRecipeIDs(RecipeSearch(ingredients: ["red-lentils"]))))
            let unknown = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.searchRecipes, RecipeSearch(ingredients: ["eggplant", "unobtainium"]))
            }
            #expect(unknown?.code == .notFound && unknown?.field == "ingredients.1")
        }
    }

    @Test func ingredientSearchFindsSynonyms() async throws {
        try await withCatalog { _, client in
            for (typed, id) in [("aubergine", "eggplant"), ("courgette", "zucchini"), ("garbanzo", nil as String?), ("aub", "eggplant")] {
                let found = try await client.call(CatalogAPI.searchIngredients, IngredientSearch(query: typed)).ingredients
                if let id {
                    #expect(found.first?.id == id, "\(typed)")
                } else {
                    #expect(found.contains { $0.id.contains("chickpea") }, "\(typed)")
                }
            }
        }
    }

    /// A user's own recipe is indexed with its ingredients, and an import that gives an
    /// ingredient a new synonym re-indexes the recipes using it.
    @Test func userRecipesAndImportedSynonymsAreSearchable() async throws {
        try await withCatalog { _, client in
            let draft = RecipeDraft(
                name: "Purple stew", summary: "Slow and soft.", servings: 2,
                ingredients: [RecipeIngredient(ingredient: "eggplant", quantity: 400, unit: .g)]
            )
            let created = try await client.call(CatalogAPI.createRecipe, draft, user: "ada")
            #expect(try await client.allRecipeIDs(RecipeSearch(query: "aubergine"), user: "ada").contains(created.id))
            #expect(try await client.allRecipeIDs(RecipeSearch(query: "melanzana"), user: "ada").isEmpty)

            var eggplant = try #require(TestSeed.ingredients["eggplant"])
            eggplant.synonyms.append("melanzana")
            _ = try await client.call(
                CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [eggplant]), session: TestSessions.operatorToken
            )
            let found = try await client.allRecipeIDs(RecipeSearch(query: "melanzana"), user: "ada")
            #expect(found.contains(created.id) && found.contains { $0 != created.id }, "built-in and user recipes re-indexed")

            eggplant.synonyms = [" padded "]
            let bad = await #expect(throws: ServiceError.self) {
                try await client.call(
                    CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [eggplant]), session: TestSessions.operatorToken
                )
            }
            #expect(bad?.code == .badRequest && bad?.field == "ingredients.0.synonyms.0")
        }
    }
}

extension TestSeed {
    /// A seed recipe's nutrition per serving, summed here independently of the catalog: the
    /// share eaten of each line's grams.
    static func nutritionPerServing(of id: String) -> Nutrition {
        let recipe = shared.recipes.first { $0.id == id }!
        var total = Nutrition.zero
        for line in recipe.ingredients {
            let ingredient = ingredients[line.ingredient]!
            let grams: Double =
                if let perGram = line.unit.grams {
                    line.quantity * perGram
                } else if let millilitres = line.unit.millilitres {
                    line.quantity * millilitres * ingredient.gramsPerMl!
                } else {
                    line.quantity * ingredient.gramsPerPiece!
                }
            let share = line.eatenShare ?? line.use.defaultEatenShare
            total = total + ingredient.nutrition.scaled(by: grams * share / 100)
        }
        return total.scaled(by: 1 / Double(recipe.servings))
    }
}

/// What a grocery list needs of a recipe comes in one call.
@Suite(.closesItsSockets)
struct RecipeWithIngredientsTests {
    @Test func aLookupCanBringTheFactsOfEveryIngredientInLineOrder() async throws {
        try await withCatalog { _, client in
            let plain = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: "red-lentil-dal"))
            #expect(plain.ingredientFacts == nil, "only when asked")
            let full = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: "red-lentil-dal", people: 2, withIngredients: true))
            #expect(full.ingredientFacts?.map(\.id) == full.ingredients.map(\.ingredient))
            #expect(full.ingredientFacts?.first { $0.id == "water" }?.bought == false)
            #expect(full.people == 2)
        }
    }
}
