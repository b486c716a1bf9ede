import SousSchema
import SousUnits
import Testing

/// The catalog and the grocery list convert and price through the same arithmetic.
struct IngredientMeasuresTests {
    let oil = IngredientMeasures(unit: .ml, gramsPerPiece: nil, gramsPerMl: 0.92, price: Price(amount: 2.5, per: .l))
    let egg = IngredientMeasures(unit: .piece, gramsPerPiece: 50, gramsPerMl: nil, price: Price(amount: 0.3, per: .piece))
    let flour = IngredientMeasures(unit: .g, gramsPerPiece: nil, gramsPerMl: 0.53, price: Price(amount: 0.9, per: .kg))

    @Test func gramsOfEveryUnitAndNilWhereAFactIsMissing() {
        #expect(oil.grams(of: 2, .l) == 1840)
        #expect(oil.grams(of: 1, .tbsp) == 15 * 0.92)
        #expect(flour.grams(of: 1.5, .kg) == 1500)
        #expect(egg.grams(of: 3, .piece) == 150)
        #expect(egg.grams(of: 1, .tsp) == nil, "no density")
        #expect(flour.grams(of: 1, .piece) == nil, "no piece weight")
    }

    @Test func priceByTheUnitItIsSoldIn() {
        // 1840 g of oil is 2 l at €2.50: €5.
        #expect(abs(oil.price(ofGrams: 1840)! - 5) < 1e-12)
        #expect(abs(flour.price(ofGrams: 750)! - 0.675) < 1e-12)
        #expect(abs(egg.price(ofGrams: 100)! - 0.6) < 1e-12)
        // Families meet through grams: 500 ml of oil + 92 g of it is 600 ml.
        #expect(abs(oil.price(of: [.volume: 500, .mass: 92])! - 1.5) < 1e-12)
        // Without a density a volume priced by weight counts 1 g per ml; pieces without a weight cost nothing.
        let noDensity = IngredientMeasures(unit: .g, gramsPerPiece: nil, gramsPerMl: nil, price: Price(amount: 10, per: .kg))
        #expect(abs(noDensity.price(of: [.volume: 100])! - 1) < 1e-12)
        #expect(noDensity.price(of: [.count: 3]) == 0)
    }

    @Test func aFoodWithoutAPriceCostsNothingKnownRatherThanZero() {
        let banana = IngredientMeasures(unit: .g, gramsPerPiece: 118, gramsPerMl: nil, price: nil)
        #expect(banana.price(ofGrams: 500) == nil)
        #expect(banana.price(of: [.count: 2]) == nil)
    }

    @Test func familiesConvertOnlyThroughKnownFacts() {
        #expect(egg.convert(100, from: .mass, to: .count) == 2)
        #expect(oil.convert(92, from: .mass, to: .volume) == 100)
        #expect(egg.convert(1, from: .volume, to: .count) == nil)
        #expect(oil.accepts(.tbsp) && !oil.accepts(.piece) && egg.accepts(.g))
        #expect(QuantityDimension(.tbsp) == .volume && MeasureUnit.tbsp.baseFactor == 15)
    }
}
