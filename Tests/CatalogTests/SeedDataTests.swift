import CatalogService
import SousSchema
import SousTestSupport
import Testing

/// The shipped data must be usable as it is: every reference resolves, every filter has results.
@Suite(.closesItsSockets)
struct SeedDataTests {
    let seed = TestSeed.shared

    @Test func thereAreEnoughIngredientsAndRecipes() {
        #expect(seed.ingredients.count >= 300)
        #expect(seed.recipes.count >= 60)
        #expect(Set(seed.ingredients.map(\.id)).count == seed.ingredients.count, "ingredient ids are unique")
        #expect(Set(seed.recipes.map(\.id)).count == seed.recipes.count, "recipe ids are unique")
    }

    @Test func everyIngredientIsTraceableAndComplete() {
        for ingredient in seed.ingredients {
            #expect(ingredient.usdaNdb?.count == 5, "\(ingredient.id) has an SR28 number")
            // The curated ingredients have a price; the USDA foods say they have none (never €0).
            if ingredient.factsDerived {
                #expect(ingredient.price == nil && ingredient.id == "usda-\(ingredient.usdaNdb ?? "")", "\(ingredient.id) is a USDA food")
            } else {
                #expect((ingredient.price?.amount ?? 0) > 0, "\(ingredient.id) has a price")
            }
            if ingredient.unit == .piece { #expect(ingredient.gramsPerPiece != nil, "\(ingredient.id) counted in pieces") }
            if ingredient.unit == .ml { #expect(ingredient.gramsPerMl != nil, "\(ingredient.id) measured in ml") }
            if ingredient.contains.contains(.pork) { #expect(ingredient.contains.contains(.meat), "\(ingredient.id): pork is meat") }
        }
        for category in ShoppingCategory.allCases {
            #expect(seed.ingredients.contains { $0.category == category }, "category \(category.rawValue) is used")
        }
    }

    @Test func everyUsdaFoodIsThereWithItsPortionsAndNoPrice() throws {
        // Every SR28 food: the 8 369 the curated ingredients do not already stand for, and those.
        #expect(Set(seed.ingredients.compactMap(\.usdaNdb)).count == 8789)
        let byID = Dictionary(uniqueKeysWithValues: seed.ingredients.map { ($0.id, $0) })
        let fontina = try #require(byID["usda-01020"])
        #expect(fontina.name == "Cheese, fontina" && fontina.price == nil && fontina.factsDerived)
        #expect(fontina.category == .dairy && fontina.allergens == [.milk] && fontina.contains == [.dairy])
        #expect(fontina.nutrition.kcal == 389)
        // WEIGHT.txt's measures: 1 cup of diced fontina is 132 g, so 132/240 g per ml; ounces are
        // left out (grams say that already).
        #expect(fontina.portions.contains(Portion(amount: 1, name: "cup, diced", grams: 132)))
        #expect(!fontina.portions.contains { $0.name == "oz" })
        #expect(fontina.gramsPerMl == 132.0 / 240)
        // A piece is the medium one, never a medium slice; "medium bagel" names one too.
        let boiledOnions = try #require(byID["usda-11283"])
        #expect(boiledOnions.gramsPerPiece == 94 && boiledOnions.gramsPerMl == 210.0 / 240)
        let bagel = try #require(byID["usda-18406"])
        #expect(bagel.gramsPerPiece == 105)
    }

    @Test func everyRecipeReferencesOnlyKnownIngredientsInConvertibleUnits() {
        for recipe in seed.recipes {
            let used = Set(recipe.ingredients.map(\.ingredient))
            for line in recipe.ingredients {
                let ingredient = TestSeed.ingredients[line.ingredient]
                #expect(ingredient != nil, "\(recipe.id) uses unknown \(line.ingredient)")
                guard let ingredient else { continue }
                if line.unit.millilitres != nil { #expect(ingredient.gramsPerMl != nil, "\(recipe.id): \(line.ingredient) in \(line.unit)") }
                if line.unit == .piece { #expect(ingredient.gramsPerPiece != nil, "\(recipe.id): \(line.ingredient) in pieces") }
            }
            for step in recipe.steps {
                #expect(Set(step.ingredients).isSubset(of: used), "\(recipe.id) step uses an ingredient not in the recipe")
            }
        }
    }

    @Test func everyFilterHasResults() {
        #expect(seed.recipes.filter { TestSeed.fits($0, .vegan) }.count >= 10)
        #expect(seed.recipes.filter { TestSeed.fits($0, .glutenFree) }.count >= 10)
        #expect(seed.recipes.filter { TestSeed.fits($0, .halal) }.count >= 10)
        #expect(seed.recipes.filter { TestSeed.fits($0, .vegetarian) }.count >= 10)
        for appliance in Appliance.allCases {
            #expect(seed.recipes.filter { $0.equipment.contains(appliance) }.count >= 5, "\(appliance)")
        }
        for level in 1...5 {
            #expect(seed.recipes.contains { TestSeed.energy($0) == level }, "energy level \(level)")
        }
        for allergen in [Allergen.gluten, .milk, .eggs, .nuts, .fish] {
            #expect(seed.recipes.contains { TestSeed.facts(of: $0).allergens.contains(allergen) }, "some recipe contains \(allergen)")
            #expect(seed.recipes.contains { !TestSeed.facts(of: $0).allergens.contains(allergen) }, "some recipe is free of \(allergen)")
        }
    }

    @Test func energyLevelBuckets() {
        #expect(EnergyLevel.forTotalMinutes(0) == 1)
        #expect(EnergyLevel.forTotalMinutes(15) == 1)
        #expect(EnergyLevel.forTotalMinutes(16) == 2)
        #expect(EnergyLevel.forTotalMinutes(30) == 2)
        #expect(EnergyLevel.forTotalMinutes(45) == 3)
        #expect(EnergyLevel.forTotalMinutes(75) == 4)
        #expect(EnergyLevel.forTotalMinutes(76) == 5)
    }
}
