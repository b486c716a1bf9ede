import Foundation
public import SousSchema

/// A quantity as a person reads it in their unit system: "7.1 oz", "1 ½ cups", "200 g". Pure,
/// so the conversions are table-tested; Sous stores and computes in metric, this is display only.
public struct DisplayQuantity: Equatable, Sendable, CustomStringConvertible {
    /// The amount as written ("1 ½", "0.75", "200").
    public var amount: String
    /// The unit's name for that amount ("cups", "oz", "g"); empty for pieces.
    public var unit: String

    public var description: String { unit.isEmpty ? amount : "\(amount) \(unit)" }

    static let gramsPerOunce = 28.349_523_125
    static let gramsPerPound = 453.592_37
    // Spoons as Sous measures them (MeasureUnit: 5 and 15 ml) and the cup an import reads (the
    // US legal cup, 240 ml), so "1 cup" read from a recipe shows as 1 cup again.
    static let millilitresPerTeaspoon = 5.0
    static let millilitresPerTablespoon = 15.0
    static let millilitresPerCup = 240.0
    static let millilitresPerQuart = 4 * millilitresPerCup

    /// `quantity` of `unit` in `system`. Metric shows the stored unit. US customary shows mass
    /// in ounces below a pound and in pounds from there; volume in teaspoons below a tablespoon,
    /// tablespoons below a quarter cup, cups below a quart, quarts from there (spoons and cups in
    /// quarters, as measuring sets have them); spoons and pieces stay as they are.
    public init(_ quantity: Double, _ unit: MeasureUnit, in system: UnitSystem) {
        guard quantity.isFinite else {
            self.init(amount: "?", unit: unit.rawValue)
            return
        }
        switch (system, unit) {
        case (.metric, .piece), (.us, .piece):
            self.init(amount: Self.decimal(quantity, places: 2), unit: "")
        case (.metric, _), (.us, .tsp), (.us, .tbsp):
            self.init(amount: Self.decimal(quantity, places: quantity < 10 ? 2 : 0), unit: unit.rawValue)
        case (.us, .g), (.us, .kg):
            let grams = quantity * (unit == .kg ? 1000 : 1)
            if grams < Self.gramsPerPound {
                self.init(amount: Self.decimal(grams / Self.gramsPerOunce, places: 1), unit: "oz")
            } else {
                self.init(amount: Self.decimal(grams / Self.gramsPerPound, places: 2), unit: "lb")
            }
        case (.us, .ml), (.us, .l):
            let millilitres = quantity * (unit == .l ? 1000 : 1)
            if millilitres < Self.millilitresPerTablespoon {
                self.init(quarters: millilitres / Self.millilitresPerTeaspoon, one: "tsp", many: "tsp")
            } else if millilitres < Self.millilitresPerCup / 4 {
                self.init(quarters: millilitres / Self.millilitresPerTablespoon, one: "tbsp", many: "tbsp")
            } else if millilitres < Self.millilitresPerQuart {
                self.init(quarters: millilitres / Self.millilitresPerCup, one: "cup", many: "cups")
            } else {
                self.init(amount: Self.decimal(millilitres / Self.millilitresPerQuart, places: 2), unit: "qt")
            }
        }
    }

    public init(amount: String, unit: String) {
        self.amount = amount
        self.unit = unit
    }

    /// Rounded to the nearest quarter, written with a fraction sign: "¾", "1 ½", "2".
    init(quarters value: Double, one: String, many: String) {
        let quarters = max(min((value * 4).roundedInt, Int.max / 2), 1)
        let whole = quarters / 4
        let fraction = ["", "¼", "½", "¾"][quarters % 4]
        let amount = whole == 0 ? fraction : fraction.isEmpty ? "\(whole)" : "\(whole) \(fraction)"
        self.init(amount: amount, unit: quarters <= 4 ? one : many)
    }

    /// At most `places` decimals, trailing zeros dropped, never an exponent.
    static func decimal(_ value: Double, places: Int) -> String {
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
