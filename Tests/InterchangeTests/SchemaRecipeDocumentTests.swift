import Foundation
import SousInterchange
import SousSchema
import Testing

/// Reading JSON-LD as Mealie, Tandoor and recipe sites write it.
struct SchemaRecipeDocumentTests {
    @Test func readsAMealieExport() throws {
        let recipes = try read(Fixtures.mealie)
        #expect(recipes.count == 1)
        let recipe = try #require(recipes.first)
        var mapped = recipe
        mapped.unmapped = [:]
        // Mealie's image is a key in its own media store, kept as given.
        let expected = SchemaRecipe(
            name: "Creamy Tomato Soup", description: "A quick soup from tins & a blender.", imageURLs: ["Zx3k"], servings: 4,
            prepMinutes: 15, totalMinutes: 45,
            ingredients: ["2 tablespoons olive oil", "1 onion, chopped", "2 x 400g tins chopped tomatoes", "salt and pepper to taste"],
            steps: [
                SchemaStep(text: "Soften the onion in the oil."),
                SchemaStep(text: "Add the tomatoes and 500 ml water; simmer 20 minutes.", section: "Soup"),
                SchemaStep(text: "Blend until smooth.", section: "Soup"),
            ],
            categories: ["Soup"], nutrition: ["calories": "180", "fatContent": "7", "carbohydrateContent": "22"]
        )
        #expect(mapped == expected)
        // Nothing is lost: Mealie's own keys, and performTime (its name for cookTime), are kept as JSON.
        let unmappedKeys = ["dateAdded", "groupId", "id", "notes", "orgURL", "performTime", "rating", "settings", "slug", "tags", "tools", "userId"]
        #expect(recipe.unmapped.keys.sorted() == unmappedKeys)
        #expect(recipe.unmapped["performTime"] == #""30 minutes""#)
        #expect(recipe.unmapped["orgURL"] == #""https://example.org/tomato-soup""#)
        #expect(recipe.unmapped["rating"] == "4")
        #expect(recipe.unmapped["tags"] == #"[{"id":"t1","name":"Quick","slug":"quick"}]"#)
        // Its lines go through the ingredient parser like any other.
        try #require(recipe.ingredients.count == 4)
        let tomatoes = IngredientLine.parse(recipe.ingredients[2])
        #expect(tomatoes.quantity == 2 && tomatoes.unit == .can && tomatoes.packageSize == PackageSize(quantity: 400, unit: .g))
    }

    @Test func readsATandoorExport() throws {
        let recipes = try read(Fixtures.tandoor)
        let expected = SchemaRecipe(
            name: "Spaghetti Aglio e Olio", description: "Garlic, oil, chili \u{2013} done in 15 minutes.",
            imageURLs: ["https://tandoor.example.org/media/recipes/7f1e_spaghetti.jpg"], servings: 2, prepMinutes: 5, cookMinutes: 10,
            totalMinutes: 15,
            ingredients: ["200 g spaghetti", "4 cloves garlic, thinly sliced", "4 tbsp olive oil", "½ tsp chili flakes", "salt to taste"],
            steps: [
                SchemaStep(text: "Cook the spaghetti in salted water."),
                SchemaStep(text: "Fry the garlic and chili in the oil until golden."),
                SchemaStep(text: "Toss the pasta with the oil & a splash of pasta water."),
            ],
            categories: ["Main Course"], cuisines: ["Italian"], keywords: ["Pasta", "Quick", "Italian"],
            nutrition: ["calories": "520 kcal", "fatContent": "21.5"], authorName: "admin", unmapped: ["datePublished": #""2024-03-01""#]
        )
        #expect(recipes == [expected])
    }

    @Test func readsTheRecipeOutOfARecipeSitesGraph() throws {
        let recipes = try read(Fixtures.site)
        let expected = SchemaRecipe(
            name: "Best & Easiest Banana Bread", description: "Moist, easy banana bread.",
            imageURLs: [
                "https://cook.example.com/img/bb-1x1.jpg", "https://cook.example.com/img/bb-4x3.jpg", "https://cook.example.com/img/bb-16x9.jpg",
            ],
            servings: 10, yieldText: "1 loaf", prepMinutes: 15, cookMinutes: 60, totalMinutes: 75,
            ingredients: ["3 ripe bananas, mashed", "1 ½ cups flour", "½ tsp salt", "⅓ cup melted butter", "1 tsp baking soda"],
            steps: [
                SchemaStep(text: "Heat the oven to 175°C.", section: "Batter"),
                SchemaStep(text: "Mix the bananas & butter, then fold in the flour.", section: "Batter"),
                SchemaStep(text: "Bake 60 minutes.", section: "Baking"),
            ],
            categories: ["Breakfast", "Snack"], cuisines: ["American"], keywords: ["banana", "bread", "quick bread"], diets: ["VegetarianDiet"],
            nutrition: ["calories": "196 kcal", "servingSize": "1 slice"], authorName: "Jo Baker",
            unmapped: [
                "@id": #""https://cook.example.com/banana-bread/#recipe""#,
                "aggregateRating": #"{"@type":"AggregateRating","ratingCount":"1520","ratingValue":"4.8"}"#,
                "isPartOf": #"{"@id":"https://cook.example.com/banana-bread/#article"}"#,
                "mainEntityOfPage": #""https://cook.example.com/banana-bread/""#,
            ]
        )
        #expect(recipes == [expected])
        #expect(recipes.first?.sousDiets == [Diet.vegetarian])
        // "1 &frac12; cups flour" decoded, then read as a mixed number.
        let flour = IngredientLine.parse(expected.ingredients[1])
        #expect(flour.quantity == 1.5 && flour.unit == .cup && flour.name == "flour")
    }

    @Test func readsOddShapesAndKeepsWhatItCannotMap() throws {
        let recipes = try read(Fixtures.odd)
        let expected = SchemaRecipe(
            name: "Leek & Potato Soup", servings: 4, cookMinutes: 25, ingredients: ["2 leeks", "3 potatoes", "1 l stock"],
            steps: [SchemaStep(text: "Sweat the leeks."), SchemaStep(text: "Add the potatoes & stock."), SchemaStep(text: "Blend.")],
            tools: ["pot", "ladle"], keywords: ["Soup", "soup"], diets: ["VeganDiet", "GlutenFreeDiet"], authorName: "Ann, Bo",
            url: "https://example.org/leek-soup",
            unmapped: ["prepTime": #""about an hour""#, "video": #"{"@type":"VideoObject","name":"How to"}"#]
        )
        #expect(recipes == [expected])
        #expect(recipes.first?.sousDiets == [Diet.glutenFree, .vegan])
    }

    @Test func aRecipeWithNothingButItsTypeIsEmpty() throws {
        #expect(try read(#"{"@context": "https://schema.org", "@type": "Recipe"}"#) == [SchemaRecipe(name: "")])
        let blank = #"{"@type": "Recipe", "name": " ", "description": "", "image": [], "recipeIngredient": [], "cookTime": null}"#
        #expect(try read(blank) == [SchemaRecipe(name: "")])
    }

    @Test func findsRecipesInArraysGraphsAndMainEntities() throws {
        let array = #"[{"@type": "WebSite", "name": "Site"}, {"@type": "Recipe", "name": "A"}, {"@type": "Recipe", "name": "B"}]"#
        #expect(try read(array).map(\.name) == ["A", "B"])
        let nested = #"""
            {"@graph": [
              {"@graph": [{"@type": "schema:Recipe", "name": "Inner"}]},
              {"@type": "http://schema.org/Recipe", "name": "Second"},
              {"@type": ["https://schema.org/Recipe"], "name": "Third"}
            ]}
            """#
        #expect(try read(nested).map(\.name) == ["Inner", "Second", "Third"])
        let page = #"{"@type": "WebPage", "mainEntity": {"@type": "Recipe", "name": "Main"}}"#
        #expect(try read(page).map(\.name) == ["Main"])
        let multiType = #"{"@type": ["NewsArticle", "Recipe"], "name": "Both"}"#
        #expect(try read(multiType).map(\.name) == ["Both"])
    }

    @Test func keywordsAsAListOrACommaString() throws {
        let list = #"{"@type": "Recipe", "keywords": ["quick", "vegan dinner", ""]}"#
        let string = #"{"@type": "Recipe", "keywords": "quick, vegan dinner,  "}"#
        #expect(try read(list).first?.keywords == ["quick", "vegan dinner"])
        #expect(try read(string).first?.keywords == ["quick", "vegan dinner"])
    }

    @Test func commentsKeepTheirNamesAndLineBreaks() throws {
        let document = #"""
            {"@type": "Recipe", "name": "Noted", "comment": [
              {"@type": "Comment", "name": "Notes", "text": "First line.\n\nAfter a blank line."},
              "Plain &amp; simple",
              {"@type": "Comment", "text": "<p>One</p><p>Two</p>"},
              {"@type": "Comment", "name": "Variation", "description": "With beans"},
              {"@type": "Comment", "name": "Empty", "text": "   "}
            ]}
            """#
        let recipe = try #require(try read(document).first)
        #expect(
            recipe.comments == [
                SchemaComment(name: "Notes", text: "First line.\n\nAfter a blank line."), SchemaComment(text: "Plain & simple"),
                SchemaComment(text: "One\nTwo"), SchemaComment(name: "Variation", text: "With beans"),
            ])
        #expect(recipe.unmapped.isEmpty)
        #expect(try SchemaRecipeDocument.recipes(from: recipe.jsonLD()) == [recipe], "written back and read again: the same")
    }

    @Test func recipeYieldInItsShapes() throws {
        let cases: [(String, Int?, String?)] = [
            (#""4""#, 4, nil),
            (#""4 servings""#, 4, nil),
            (#""Serves 4-6""#, 4, nil),
            ("6", 6, nil),
            ("2.5", 3, nil),
            (#"["4", "4 people"]"#, 4, nil),
            (#"["1", "1 loaf"]"#, 1, "1 loaf"),
            (#""12 cookies""#, 12, "12 cookies"),
            (#""a big pot""#, nil, "a big pot"),
            ("0", nil, nil),
            (#""99999999999999999999 servings""#, nil, nil),
        ]
        for (written, servings, text) in cases {
            let recipe = try #require(try read(#"{"@type": "Recipe", "recipeYield": "# + written + "}").first)
            #expect(recipe.servings == servings, "\(written)")
            #expect(recipe.yieldText == text, "\(written)")
        }
    }

    @Test func malformedJSONIsRefused() throws {
        for text in [#"{"@type": "Recipe", "name": "#, "", "  \n", "not json at all", #"{"name": "A" "description": "B"}"#] {
            let error = try #require(throws: SchemaRecipeError.self) {
                _ = try SchemaRecipeDocument.recipes(from: Data(text.utf8))
            }
            #expect(error.code == .invalidJSON)
            #expect(error.path == "$")
            #expect(error.message.contains("not valid JSON"))
        }
    }

    @Test func aDocumentWithoutARecipeIsRefused() throws {
        let graph = #"{"@context": "https://schema.org", "@graph": [{"@type": "WebPage", "name": "x"}, {"@type": "Organization", "name": "y"}]}"#
        let error = try #require(throws: SchemaRecipeError.self) {
            _ = try SchemaRecipeDocument.recipes(from: Data(graph.utf8))
        }
        #expect(error.code == .noRecipe)
        #expect(error.message == "no schema.org Recipe in the document (found WebPage, Organization)")
        for text in [#""just text""#, "42", "[]", "{}"] {
            let other = try #require(throws: SchemaRecipeError.self) {
                _ = try SchemaRecipeDocument.recipes(from: Data(text.utf8))
            }
            #expect(other.code == .noRecipe)
        }
    }

    @Test func aValueThatCannotBeWhatItsKeyMeansIsRefusedWithItsPath() throws {
        let cases: [(String, String)] = [
            (
                #"[{"@type": "WebPage"}, {"@type": "Recipe"}, {"@type": "Recipe", "recipeIngredient": ["1 egg", "2 cups milk", "salt", "pepper", 7]}]"#,
                "$[2].recipeIngredient[4]"
            ),
            (#"{"@type": "Recipe", "recipeIngredient": [{"quantity": 2}]}"#, "$.recipeIngredient[0]"),
            (#"{"@type": "Recipe", "recipeIngredient": 3}"#, "$.recipeIngredient"),
            (
                #"{"@graph": [{"@type": "Recipe", "recipeInstructions": [{"@type": "HowToSection", "name": "A", "itemListElement": [true]}]}]}"#,
                #"$["@graph"][0].recipeInstructions[0].itemListElement[0]"#
            ),
        ]
        for (document, path) in cases {
            let error = try #require(throws: SchemaRecipeError.self) {
                _ = try SchemaRecipeDocument.recipes(from: Data(document.utf8))
            }
            #expect(error.code == .invalidValue)
            #expect(error.path == path)
            #expect("\(error)".hasPrefix(path + ": expected "))
        }
    }

    private func read(_ json: String) throws -> [SchemaRecipe] {
        try SchemaRecipeDocument.recipes(from: Data(json.utf8))
    }
}
