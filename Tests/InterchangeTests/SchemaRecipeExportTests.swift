import Foundation
import SousInterchange
import Testing

/// Writing recipes as JSON-LD, and reading them back.
struct SchemaRecipeExportTests {
    @Test(arguments: [Fixtures.mealie, Fixtures.tandoor, Fixtures.site, Fixtures.odd])
    func whatWasReadIsReadBackTheSame(_ document: String) throws {
        let recipes = try SchemaRecipeDocument.recipes(from: Data(document.utf8))
        for recipe in recipes {
            #expect(try SchemaRecipeDocument.recipes(from: recipe.jsonLD()) == [recipe])
        }
        #expect(try SchemaRecipeDocument.recipes(from: SchemaRecipe.jsonLD(recipes)) == recipes)
    }

    @Test func aRecipeBuiltByHandRoundTrips() throws {
        let recipe = SchemaRecipe(
            name: #"Grandma's "Sunday" Stew \ Ragù"#, description: "Slow, rich, better the next day.",
            imageURLs: ["https://example.org/stew.jpg", "https://example.org/stew-2.jpg"], servings: 6, yieldText: "1 large pot",
            prepMinutes: 20, cookMinutes: 150, totalMinutes: 170, ingredients: ["1 kg beef chuck, cubed", "2 tbsp flour", "½ bottle red wine"],
            steps: [
                SchemaStep(text: "Toss the beef in the flour."),
                SchemaStep(text: "Brown it in batches.", section: "Browning"),
                SchemaStep(text: "Deglaze with the wine.", section: "Browning"),
                SchemaStep(text: "Simmer 2½ hours.", section: "Simmering"),
                SchemaStep(text: "Rest before serving."),
            ],
            tools: ["Dutch oven"], categories: ["Main Course", "Stew"], cuisines: ["Italian"], keywords: ["beef", "make ahead"],
            diets: ["GlutenFreeDiet"], nutrition: ["calories": "610 kcal", "proteinContent": "48 g"], authorName: "Grandma",
            url: "https://example.org/stew", unmapped: ["datePublished": #""2020-01-05""#, "recipeRating": "4.5", "notJSON": "kept as text"]
        )
        let read = try SchemaRecipeDocument.recipes(from: recipe.jsonLD())
        var expected = recipe
        // Text that is not JSON is written as a string, so it comes back as that string's JSON.
        expected.unmapped["notJSON"] = #""kept as text""#
        #expect(read == [expected])
    }

    @Test func writesStableSortedSchemaOrgJSONLD() throws {
        let recipe = SchemaRecipe(
            name: "Tea", servings: 1, prepMinutes: 5, ingredients: ["1 tea bag", "250 ml water"],
            steps: [SchemaStep(text: "Boil the water."), SchemaStep(text: "Steep 4 minutes.", section: "Brew")], keywords: ["tea", "hot"],
            diets: ["VeganDiet"]
        )
        let expected = #"""
            {
              "@context": "https://schema.org",
              "@type": "Recipe",
              "keywords": "tea, hot",
              "name": "Tea",
              "prepTime": "PT5M",
              "recipeIngredient": [
                "1 tea bag",
                "250 ml water"
              ],
              "recipeInstructions": [
                {
                  "@type": "HowToStep",
                  "text": "Boil the water."
                },
                {
                  "@type": "HowToSection",
                  "itemListElement": [
                    {
                      "@type": "HowToStep",
                      "text": "Steep 4 minutes."
                    }
                  ],
                  "name": "Brew"
                }
              ],
              "recipeYield": "1 serving",
              "suitableForDiet": [
                "https://schema.org/VeganDiet"
              ]
            }
            """#
        #expect(String(decoding: recipe.jsonLD(), as: UTF8.self) == expected)
        #expect(recipe.jsonLD() == recipe.jsonLD())
        // Other JSON tools read it too.
        let object = try #require(try JSONSerialization.jsonObject(with: recipe.jsonLD()) as? [String: Any])
        #expect(object["@type"] as? String == "Recipe")
    }

    @Test func writesDurationsYieldAndEscapesAsJSONRequires() throws {
        let recipe = SchemaRecipe(
            name: "Line\nbreak \"quoted\" back\\slash tab\t bell\u{7}", servings: 4, cookMinutes: 90, totalMinutes: 0
        )
        let text = String(decoding: recipe.jsonLD(), as: UTF8.self)
        #expect(text.contains(#""name": "Line\nbreak \"quoted\" back\\slash tab\t bell\u0007""#))
        #expect(text.contains(#""cookTime": "PT1H30M""#))
        #expect(text.contains(#""totalTime": "PT0M""#))
        #expect(text.contains(#""recipeYield": "4 servings""#))
        // Names are cleaned on the way in (whitespace collapsed), so this one comes back as one line.
        let read = try SchemaRecipeDocument.recipes(from: recipe.jsonLD())
        #expect(read.first?.name == "Line break \"quoted\" back\\slash tab bell\u{7}")
        #expect(read.first?.cookMinutes == 90 && read.first?.totalMinutes == 0 && read.first?.servings == 4)
    }
}
