import Foundation
public import SousSchema

/// A quantity as a person reads it in their unit system: "7.1 oz", "1 ½ cups", "200 g". Pure,
/// so the conversions are table-tested; Sous stores and computes in metric, this is display only.
public struct DisplayQuantity: Equatable, Sendable, CustomStringConvertible {
    /// The amount as written ("1 ½", "0.75", "200", "< ¼").
    public var amount: String
    /// The unit's name for that amount ("cups", "oz", "g"); empty for pieces.
    public var unit: String

    public var description: String { unit.isEmpty ? amount : "\(amount) \(unit)" }

    // US customary measures (NIST Handbook 44): the avoirdupois ounce and pound, the US liquid
    // quart and what it divides into (4 cups, a cup 16 tbsp, a tbsp 3 tsp). Display only: Sous
    // stores spoons as 5 and 15 ml and an import reads a cup as 240 ml (ParsedUnit): 1.4 % more,
    // so rounded to the quarter they still show as 1 tsp, 1 tbsp and 1 cup.
    static let gramsPerOunce = 28.349_523_125
    static let gramsPerPound = 453.592_37
    static let millilitresPerQuart = 946.352_946
    static let millilitresPerCup = 236.588_236_5
    static let millilitresPerTablespoon = 14.786_764_781_25
    static let millilitresPerTeaspoon = 4.928_921_593_75
    /// Below this much (2 tbsp), something with a density is measured with spoons, not weighed:
    /// a kitchen scale reads no finer than a few grams, and "0.1 oz" of a spice tells nobody anything.
    static let spoonLimit = 2 * millilitresPerTablespoon

    /// `quantity` of `unit` in `system`. Metric shows the stored unit. US customary shows mass
    /// in ounces below a pound and in pounds from there, except that less than 2 tablespoons'
    /// worth of something with a density (`gramsPerMl`: spices, salt, yeast) is shown in spoons;
    /// volume in teaspoons below a tablespoon, tablespoons below a quarter cup, cups below a
    /// quart, quarts from there, all in quarters as measuring sets have them; spoons keep their
    /// unit (in quarters too); pieces stay as they are. A positive amount is never shown as 0:
    /// what rounds to nothing is "< ¼ tsp", "< 0.01 oz" or "< 0.01 g".
    public init(_ quantity: Double, _ unit: MeasureUnit, in system: UnitSystem, gramsPerMl: Double? = nil) {
        guard quantity.isFinite else {
            self.init(amount: "?", unit: unit.rawValue)
            return
        }
        switch (system, unit) {
        case (.metric, .piece), (.us, .piece):
            self.init(amount: Self.decimal(quantity, places: 2), unit: "")
        case (.metric, _):
            self.init(amount: Self.decimal(quantity, places: quantity < 10 ? 2 : 0), unit: unit.rawValue)
        case (.us, .tsp), (.us, .tbsp):
            // Less than a quarter tablespoon reads better in teaspoons than as "< ¼ tbsp".
            if unit == .tbsp, (quantity * 4).roundedInt < 1 {
                self.init(millilitres: quantity * (unit.millilitres ?? 0))
            } else {
                self.init(quarters: quantity, one: unit.rawValue, many: unit.rawValue)
            }
        case (.us, .g), (.us, .kg):
            let grams = quantity * (unit.grams ?? 1)
            if let gramsPerMl, gramsPerMl > 0, grams / gramsPerMl < Self.spoonLimit {
                self.init(millilitres: grams / gramsPerMl)
            } else if grams < Self.gramsPerPound {
                // Two decimals below an ounce, so a pinch of dried herbs is "0.07 oz", not "0.1".
                self.init(amount: Self.decimal(grams / Self.gramsPerOunce, places: grams < Self.gramsPerOunce ? 2 : 1), unit: "oz")
            } else {
                self.init(amount: Self.decimal(grams / Self.gramsPerPound, places: 2), unit: "lb")
            }
        case (.us, .ml), (.us, .l):
            self.init(millilitres: quantity * (unit.millilitres ?? 1))
        }
    }

    public init(amount: String, unit: String) {
        self.amount = amount
        self.unit = unit
    }

    /// A US volume: teaspoons, tablespoons, cups or quarts, in quarters.
    init(millilitres: Double) {
        if millilitres < Self.millilitresPerTablespoon {
            self.init(quarters: millilitres / Self.millilitresPerTeaspoon, one: "tsp", many: "tsp")
        } else if millilitres < Self.millilitresPerCup / 4 {
            self.init(quarters: millilitres / Self.millilitresPerTablespoon, one: "tbsp", many: "tbsp")
        } else if millilitres < Self.millilitresPerQuart {
            self.init(quarters: millilitres / Self.millilitresPerCup, one: "cup", many: "cups")
        } else {
            self.init(quarters: millilitres / Self.millilitresPerQuart, one: "qt", many: "qt")
        }
    }

    /// Rounded to the nearest quarter, written with a fraction sign: "¾", "1 ½", "2"; "< ¼" for
    /// a positive amount nearer 0 than ¼.
    init(quarters value: Double, one: String, many: String) {
        let quarters = max(min((value * 4).roundedInt, Int.max / 2), 0)
        guard quarters > 0 else {
            self.init(amount: value > 0 ? "< ¼" : "0", unit: one)
            return
        }
        let whole = quarters / 4
        let fraction = ["", "¼", "½", "¾"][quarters % 4]
        let amount = whole == 0 ? fraction : fraction.isEmpty ? "\(whole)" : "\(whole) \(fraction)"
        self.init(amount: amount, unit: quarters <= 4 ? one : many)
    }

    /// At most `places` decimals, trailing zeros dropped, never an exponent; a positive value
    /// that would round to 0 is "< 0.01" (or "< 0.1", "< 1": the smallest step shown).
    static func decimal(_ value: Double, places: Int) -> String {
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        guard text == "0", value > 0 else { return text }
        return places > 0 ? "< 0." + String(repeating: "0", count: places - 1) + "1" : "< 1"
    }
}
