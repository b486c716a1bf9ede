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

    /// Worked out by hand: 1 oz = 28.3495 g, 1 lb = 453.592 g; spoons as Sous measures them
    /// (1 tsp = 5 ml, 1 tbsp = 15 ml) and the cup an import reads (240 ml; 1 qt = 960 ml).
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
        Row(quantity: 1, unit: .l, us: "1.04 qt"),
        Row(quantity: 240, unit: .ml, us: "1 cup"),
        Row(quantity: 2, unit: .tbsp, us: "2 tbsp"),
        Row(quantity: 0.5, unit: .tsp, us: "0.5 tsp"),
        Row(quantity: 3, unit: .piece, us: "3"),
        Row(quantity: 1, unit: .ml, us: "¼ tsp"),
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
    }
}
