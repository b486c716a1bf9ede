/// JSON-LD documents shaped like real exports, inline.
enum Fixtures {
    /// Mealie's own JSON export: no @type, ingredients as objects, times as text, steps with titles.
    static let mealie = #"""
        {
          "id": "5f3c2a9e-6d1b-4c0e-9a57-0b3f0c6f1d2a",
          "userId": "0b1e8f5a-3c2d-4e6f-8a9b-1c2d3e4f5a6b",
          "groupId": "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a",
          "name": "Creamy Tomato Soup",
          "slug": "creamy-tomato-soup",
          "image": "Zx3k",
          "recipeYield": "4 servings",
          "totalTime": "45 minutes",
          "prepTime": "15 minutes",
          "cookTime": null,
          "performTime": "30 minutes",
          "description": "A quick soup from tins &amp; a blender.",
          "recipeCategory": [{ "id": "c1", "name": "Soup", "slug": "soup" }],
          "tags": [{ "id": "t1", "name": "Quick", "slug": "quick" }],
          "tools": [{ "id": "k1", "name": "Blender", "slug": "blender", "onHand": false }],
          "rating": 4,
          "orgURL": "https://example.org/tomato-soup",
          "dateAdded": "2024-02-11",
          "recipeIngredient": [
            {
              "quantity": 2.0, "unit": { "name": "tablespoon" }, "food": { "name": "olive oil" }, "note": "",
              "display": "2 tablespoons olive oil", "title": null, "originalText": null, "referenceId": "r1"
            },
            {
              "quantity": 1.0, "unit": null, "food": { "name": "onion" }, "note": "chopped",
              "display": "1 onion chopped", "title": null, "originalText": "1 onion, chopped", "referenceId": "r2"
            },
            { "quantity": 0, "note": "2 x 400g tins chopped tomatoes", "display": "2 x 400g tins chopped tomatoes", "originalText": null },
            { "quantity": 0, "note": "salt and pepper to taste", "display": "salt and pepper to taste", "originalText": null }
          ],
          "recipeInstructions": [
            { "id": "s1", "title": "", "text": "Soften the onion in the oil.", "ingredientReferences": [] },
            { "id": "s2", "title": "Soup", "text": "Add the tomatoes and 500 ml water; simmer 20 minutes.", "ingredientReferences": [] },
            { "id": "s3", "title": "", "text": "Blend until smooth.", "ingredientReferences": [] }
          ],
          "nutrition": { "calories": "180", "fatContent": "7", "proteinContent": null, "carbohydrateContent": "22" },
          "settings": { "public": true, "showNutrition": false },
          "notes": [{ "title": "Tip", "text": "Freezes well." }]
        }
        """#

    /// Tandoor's JSON-LD: keywords as a list, recipeYield a number, a step with a name and a text.
    static let tandoor = #"""
        {
          "@context": "http://schema.org",
          "@type": "Recipe",
          "name": "Spaghetti Aglio e Olio",
          "description": "Garlic, oil, chili &ndash; done in 15 minutes.",
          "image": "https://tandoor.example.org/media/recipes/7f1e_spaghetti.jpg",
          "keywords": ["Pasta", "Quick", "Italian"],
          "recipeYield": 2,
          "prepTime": "PT5M",
          "cookTime": "P0DT0H10M",
          "totalTime": "PT15M",
          "recipeIngredient": ["200 g spaghetti", "4 cloves garlic, thinly sliced", "4 tbsp olive oil", "½ tsp chili flakes", "salt to taste"],
          "recipeInstructions": [
            { "@type": "HowToStep", "name": "Boil", "text": "Cook the spaghetti in salted water." },
            { "@type": "HowToStep", "text": "Fry the garlic and chili in the oil until golden." },
            { "@type": "HowToStep", "text": "Toss the pasta with the oil &amp; a splash of pasta water." }
          ],
          "recipeCategory": "Main Course",
          "recipeCuisine": "Italian",
          "author": { "@type": "Person", "name": "admin" },
          "datePublished": "2024-03-01",
          "nutrition": { "@type": "NutritionInformation", "calories": "520 kcal", "fatContent": 21.5 }
        }
        """#

    /// A recipe site's Yoast-style @graph: Article, WebPage and Organization nodes around the Recipe,
    /// HTML entities, ImageObjects, HowToSections, a yield list.
    static let site = #"""
        {
          "@context": "https://schema.org",
          "@graph": [
            {
              "@type": "Article",
              "@id": "https://cook.example.com/banana-bread/#article",
              "headline": "Banana Bread",
              "author": { "name": "Jo Baker" }
            },
            {
              "@type": "WebPage",
              "@id": "https://cook.example.com/banana-bread/",
              "url": "https://cook.example.com/banana-bread/",
              "name": "Banana Bread - Cook"
            },
            {
              "@type": "Organization",
              "@id": "https://cook.example.com/#organization",
              "name": "Cook",
              "logo": { "@type": "ImageObject", "url": "https://cook.example.com/logo.png" }
            },
            {
              "@type": ["Recipe", "NewsArticle"],
              "@id": "https://cook.example.com/banana-bread/#recipe",
              "name": "Best &amp; Easiest Banana Bread",
              "author": { "@type": "Person", "name": "Jo Baker" },
              "description": "<p>Moist, <em>easy</em> banana bread.</p>",
              "image": [
                { "@type": "ImageObject", "url": "https://cook.example.com/img/bb-1x1.jpg", "width": 500 },
                "https://cook.example.com/img/bb-4x3.jpg",
                { "@type": "ImageObject", "contentUrl": "https://cook.example.com/img/bb-16x9.jpg" }
              ],
              "recipeYield": ["10", "1 loaf"],
              "prepTime": "PT15M",
              "cookTime": "PT1H",
              "totalTime": "PT1H15M",
              "recipeIngredient": [
                "3 ripe bananas, mashed", "1 &frac12; cups flour", "&#189; tsp salt", "⅓ cup melted butter", "1 tsp baking soda"
              ],
              "recipeInstructions": [
                {
                  "@type": "HowToSection",
                  "name": "Batter",
                  "itemListElement": [
                    { "@type": "HowToStep", "text": "Heat the oven to 175&deg;C.", "url": "https://cook.example.com/banana-bread/#step-1" },
                    { "@type": "HowToStep", "text": "Mix the bananas &amp; butter, then <strong>fold in</strong> the flour." }
                  ]
                },
                {
                  "@type": "HowToSection",
                  "name": "Baking",
                  "itemListElement": [
                    { "@type": "HowToStep", "text": "Bake 60 minutes." },
                    { "@type": "HowToStep", "image": "https://cook.example.com/img/step.jpg" }
                  ]
                }
              ],
              "recipeCategory": "Breakfast, Snack",
              "recipeCuisine": ["American"],
              "keywords": "banana, bread, quick bread",
              "suitableForDiet": "https://schema.org/VegetarianDiet",
              "nutrition": { "@type": "NutritionInformation", "calories": "196 kcal", "servingSize": "1 slice" },
              "aggregateRating": { "@type": "AggregateRating", "ratingValue": "4.8", "ratingCount": "1520" },
              "isPartOf": { "@id": "https://cook.example.com/banana-bread/#article" },
              "mainEntityOfPage": "https://cook.example.com/banana-bread/"
            }
          ]
        }
        """#

    /// Odd shapes: a name list, text durations, instructions as one string, the legacy `ingredients`.
    static let odd = #"""
        {
          "@context": "https://schema.org",
          "@type": "schema:Recipe",
          "name": ["Leek &amp; Potato Soup", "Leek Soup"],
          "recipeYield": "Serves 4-6",
          "prepTime": "about an hour",
          "cookTime": 25,
          "recipeInstructions": "Sweat the leeks.\nAdd the potatoes &amp; stock.\n\n<p>Blend.</p>",
          "keywords": ["Soup", "soup", "Soup"],
          "tool": ["pot", { "@type": "HowToTool", "name": "ladle" }],
          "recipeCategory": null,
          "ingredients": ["2 leeks", "3 potatoes", "1 l stock"],
          "suitableForDiet": ["VeganDiet", "schema:GlutenFreeDiet"],
          "author": [{ "@type": "Person", "name": "Ann" }, { "@type": "Person", "name": "Bo" }],
          "url": "https://example.org/leek-soup",
          "video": { "@type": "VideoObject", "name": "How to" }
        }
        """#
}
