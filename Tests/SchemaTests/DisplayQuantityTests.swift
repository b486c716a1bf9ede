import Foundation
import SousSchema
import SousUnits
import Testing

/// Quantities as a person reads them: metric as stored, or US customary.
struct DisplayQuantityTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let quantity: Double
        let unit: MeasureUnit
        let us: String
        var testDescription: String { "\(quantity) \(unit.rawValue) → \(us)" }
    }

    /// Worked out by hand with the US customary measures: 1 oz = 28.3495 g, 1 lb = 453.592 g,
    /// 1 qt = 946.353 ml = 4 cups, 1 cup = 236.588 ml = 16 tbsp, 1 tbsp = 14.787 ml = 3 tsp; the
    /// 5 and 15 ml spoons Sous stores and the 240 ml cup an import reads show as 1 tsp, 1 tbsp
    /// and 1 cup.
    static let rows: [Row] = [
        Row(quantity: 200, unit: .g, us: "7.1 oz"),
        Row(quantity: 28.35, unit: .g, us: "1 oz"),
        Row(quantity: 453.6, unit: .g, us: "1 lb"),
        Row(quantity: 1, unit: .kg, us: "2.2 lb"),
        Row(quantity: 1.5, unit: .kg, us: "3.31 lb"),
        Row(quantity: 5, unit: .ml, us: "1 tsp"),
        Row(quantity: 10, unit: .ml, us: "2 tsp"),
        Row(quantity: 30, unit: .ml, us: "2 tbsp"),
        Row(quantity: 60, unit: .ml, us: "¼ cup"),
        Row(quantity: 250, unit: .ml, us: "1 cup"),
        Row(quantity: 355, unit: .ml, us: "1 ½ cups"),
        Row(quantity: 0.5, unit: .l, us: "2 cups"),
        Row(quantity: 1, unit: .l, us: "1 qt"),
        Row(quantity: 1.5, unit: .l, us: "1 ½ qt"),
        Row(quantity: 946, unit: .ml, us: "4 cups"),
        Row(quantity: 240, unit: .ml, us: "1 cup"),
        Row(quantity: 2, unit: .tbsp, us: "2 tbsp"),
        Row(quantity: 0.5, unit: .tsp, us: "½ tsp"),
        Row(quantity: 1.5, unit: .tbsp, us: "1 ½ tbsp"),
        Row(quantity: 0.1, unit: .tbsp, us: "¼ tsp"),
        Row(quantity: 0.01, unit: .tsp, us: "< ¼ tsp"),
        Row(quantity: 3, unit: .piece, us: "3"),
        Row(quantity: 1, unit: .ml, us: "¼ tsp"),
        Row(quantity: 0.2, unit: .ml, us: "< ¼ tsp"),
    ]

    @Test(arguments: rows)
    func usCustomary(_ row: Row) {
        #expect(DisplayQuantity(row.quantity, row.unit, in: .us).description == row.us)
    }

    @Test func metricShowsTheStoredUnitAndNothingOddEver() {
        #expect(DisplayQuantity(200, .g, in: .metric).description == "200 g")
        #expect(DisplayQuantity(1.25, .l, in: .metric).description == "1.25 l")
        #expect(DisplayQuantity(2, .piece, in: .metric).description == "2")
        #expect(DisplayQuantity(.nan, .g, in: .us).description == "? g")
        #expect(DisplayQuantity(1e300, .g, in: .us).description.contains("e") == false)
        #expect(DisplayQuantity(0.001, .g, in: .metric).description == "< 0.01 g")
    }

    /// A litre is 1000 / 946.353 = 1.057 US quarts: "1 qt" to the quarter (it showed "1.04 qt",
    /// a quart of 4 × 240 ml).
    @Test func aLitreIsAboutAUSQuart() {
        #expect(DisplayQuantity(1, .l, in: .us).description == "1 qt")
        #expect(DisplayQuantity(1000, .ml, in: .us) == DisplayQuantity(1, .l, in: .us))
        // Where the measures part: 1.07 l is 1.131 US quarts (1.115 of 960 ml), 268 ml is 1.133
        // US cups (1.117 of 240 ml), nearer 1 ¼ only with the US measures.
        #expect(DisplayQuantity(1.07, .l, in: .us).description == "1 ¼ qt")
        #expect(DisplayQuantity(268, .ml, in: .us).description == "1 ¼ cups")
        // A US gallon is 4 quarts exactly.
        #expect(DisplayQuantity(3.785_411_784, .l, in: .us).description == "4 qt")
    }

    /// Small amounts of what has a density go in spoons; nothing positive is ever shown as 0.
    @Test func smallAmountsAreSpoonsAndNeverZero() {
        // Black pepper, 0.46 g/ml: 2 g is 4.35 ml, 0.88 tsp; 0.6 g (a grocery line) is 0.26 tsp.
        #expect(DisplayQuantity(2, .g, in: .us, gramsPerMl: 0.46).description == "1 tsp")
        #expect(DisplayQuantity(0.6, .g, in: .us, gramsPerMl: 0.46).description == "¼ tsp")
        #expect(DisplayQuantity(0.05, .g, in: .us, gramsPerMl: 0.46).description == "< ¼ tsp")
        // Dry yeast, 0.6 g/ml: a 7 g sachet is 11.7 ml, 2 ¼ tsp; 15 g is 25 ml, 1 ¾ tbsp.
        #expect(DisplayQuantity(7, .g, in: .us, gramsPerMl: 0.6).description == "2 ¼ tsp")
        #expect(DisplayQuantity(15, .g, in: .us, gramsPerMl: 0.6).description == "1 ¾ tbsp")
        // From 2 tbsp's worth it is weighed: 200 g of red lentils (0.85 g/ml) in ounces.
        #expect(DisplayQuantity(200, .g, in: .us, gramsPerMl: 0.85).description == "7.1 oz")
        // Without a density, the smallest US weight, to two decimals below an ounce.
        #expect(DisplayQuantity(2, .g, in: .us).description == "0.07 oz")
        #expect(DisplayQuantity(0.1, .g, in: .us).description == "< 0.01 oz")
        let densities: [Double?] = [nil, 0.46, 1.2]
        for grams in [0.001, 0.05, 0.3, 1, 2, 5] {
            for density in densities {
                let shown = DisplayQuantity(grams, .g, in: .us, gramsPerMl: density)
                #expect(shown.amount != "0" && Double(shown.amount) != 0, "\(grams) g at \(String(describing: density)) g/ml: \(shown)")
            }
        }
    }
}
