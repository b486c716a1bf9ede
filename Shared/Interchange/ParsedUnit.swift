public import SousSchema

/// A unit as recipe writers name it: metric, US customary, and the containers and portions
/// ingredient lines count in (a can, a bunch, a clove).
public enum ParsedUnit: String, Sendable, CaseIterable {
    case g, kg, mg, ml, cl, dl, l, tsp, tbsp, cup, pint, quart, gallon
    case flOz = "fl oz"
    case oz, lb, pinch, dash, can, jar, pack, bunch, clove, slice, stick, sprig, head, knob, handful, piece

    /// The unit a written spelling names: "tablespoons", "Tbsp", "T", "tsp.", "c.", "lbs",
    /// "grams", "litre", "fl oz", "tins"… Case does not matter, except that a capital "T" is the
    /// tablespoon and a small "t" the teaspoon (the old cookbook convention). Dots are ignored.
    public init?(spelling: String) {
        let withoutDots = String(spelling.filter { $0 != "." })
        if withoutDots == "T" {
            self = .tbsp
            return
        }
        if withoutDots == "t" {
            self = .tsp
            return
        }
        guard let unit = Self.spellings[withoutDots.lowercased()] else { return nil }
        self = unit
    }

    /// How this unit converts to one of the catalog's units: `quantity` of this unit is
    /// `quantity * factor` of `unit`. Nil for a can, a jar, a pack, a bunch, a clove, a slice, a
    /// sprig, a head, a knob or a handful: their weight
    /// depends on the ingredient (its piece weight, which the caller has).
    public var measure: MeasureConversion? {
        switch self {
        case .g: MeasureConversion(unit: .g, factor: 1)
        case .kg: MeasureConversion(unit: .kg, factor: 1)
        case .mg: MeasureConversion(unit: .g, factor: 0.001)
        case .ml: MeasureConversion(unit: .ml, factor: 1)
        case .cl: MeasureConversion(unit: .ml, factor: 10)
        case .dl: MeasureConversion(unit: .ml, factor: 100)
        case .l: MeasureConversion(unit: .l, factor: 1)
        case .tsp: MeasureConversion(unit: .tsp, factor: 1)
        case .tbsp: MeasureConversion(unit: .tbsp, factor: 1)
        case .cup: MeasureConversion(unit: .ml, factor: Self.millilitresPerCup)
        case .pint: MeasureConversion(unit: .ml, factor: Self.millilitresPerPint)
        case .quart: MeasureConversion(unit: .ml, factor: Self.millilitresPerQuart)
        case .gallon: MeasureConversion(unit: .l, factor: Self.millilitresPerGallon / 1000)
        case .flOz: MeasureConversion(unit: .ml, factor: Self.millilitresPerFluidOunce)
        case .oz: MeasureConversion(unit: .g, factor: Self.gramsPerOunce)
        case .lb: MeasureConversion(unit: .g, factor: Self.gramsPerPound)
        case .stick: MeasureConversion(unit: .g, factor: Self.gramsPerStickOfButter)
        case .pinch: MeasureConversion(unit: .ml, factor: Self.millilitresPerPinch)
        case .dash: MeasureConversion(unit: .ml, factor: Self.millilitresPerDash)
        case .piece: MeasureConversion(unit: .piece, factor: 1)
        case .can, .jar, .pack, .bunch, .clove, .slice, .sprig, .head, .knob, .handful: nil
        }
    }

    /// The US legal cup (nutrition labelling), 240 ml. The US customary cup is 236.6 ml and the
    /// metric cup (Australia, Canada) 250 ml: recipes do not say which, and 240 ml sits between.
    public static let millilitresPerCup = 240.0
    /// The US liquid pint, quart and gallon (1/8, 1/4 and 1 US gallon of 231 cubic inches): a
    /// recipe that names them is American. (A dry or imperial pint is larger; none is assumed.)
    public static let millilitresPerPint = 473.176473
    public static let millilitresPerQuart = 946.352946
    public static let millilitresPerGallon = 3785.411784
    /// The US fluid ounce: 1/128 US gallon, 29.5735295625 ml.
    public static let millilitresPerFluidOunce = 29.5735
    /// The avoirdupois ounce: 28.349523125 g exactly.
    public static let gramsPerOunce = 28.3495
    /// The avoirdupois pound: 453.59237 g exactly.
    public static let gramsPerPound = 453.592
    /// A US stick of butter: a quarter pound (113.4 g), printed as 113 g on the wrapper. A
    /// "stick" of celery or cinnamon is not this: the caller should check the ingredient.
    public static let gramsPerStickOfButter = 113.0
    /// A pinch: 1/16 teaspoon (the measuring-spoon sets that have one), 1/16 × 5 ml.
    public static let millilitresPerPinch = 0.3125
    /// A dash: 1/8 teaspoon, as the same sets have it.
    public static let millilitresPerDash = 0.625

    /// Every accepted spelling (lowercased, without dots) and its unit.
    private static let spellings: [String: ParsedUnit] = {
        let table: [(ParsedUnit, [String])] = [
            (.g, ["g", "gr", "grs", "gm", "gms", "gram", "grams", "gramme", "grammes"]),
            (.kg, ["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "kilogramme", "kilogrammes"]),
            (.mg, ["mg", "milligram", "milligrams", "milligramme", "milligrammes"]),
            (.ml, ["ml", "mls", "millilitre", "millilitres", "milliliter", "milliliters"]),
            (.cl, ["cl", "centilitre", "centilitres", "centiliter", "centiliters"]),
            (.dl, ["dl", "decilitre", "decilitres", "deciliter", "deciliters"]),
            (.l, ["l", "lt", "ltr", "ltrs", "litre", "litres", "liter", "liters"]),
            (.tsp, ["tsp", "tsps", "tspn", "teaspoon", "teaspoons"]),
            (.tbsp, ["tbsp", "tbsps", "tbspn", "tbs", "tbl", "tbls", "tablespoon", "tablespoons"]),
            (.cup, ["c", "cup", "cups"]),
            (.pint, ["pt", "pts", "pint", "pints"]),
            (.quart, ["qt", "qts", "quart", "quarts"]),
            (.gallon, ["gal", "gals", "gallon", "gallons"]),
            (.flOz, ["floz", "fl oz", "fluid oz", "fluid ounce", "fluid ounces", "fl ounce", "fl ounces"]),
            (.oz, ["oz", "ozs", "ounce", "ounces"]),
            (.lb, ["lb", "lbs", "pound", "pounds"]),
            (.pinch, ["pinch", "pinches"]),
            (.dash, ["dash", "dashes"]),
            (.can, ["can", "cans", "tin", "tins"]),
            (.jar, ["jar", "jars"]),
            (.pack, ["pack", "packs", "packet", "packets", "package", "packages", "pkg", "pkgs"]),
            (.bunch, ["bunch", "bunches"]),
            (.clove, ["clove", "cloves"]),
            (.slice, ["slice", "slices", "rasher", "rashers"]),
            (.stick, ["stick", "sticks", "stalk", "stalks"]),
            (.sprig, ["sprig", "sprigs"]),
            (.head, ["head", "heads", "bulb", "bulbs"]),
            (.knob, ["knob", "knobs"]),
            (.handful, ["handful", "handfuls"]),
            (.piece, ["piece", "pieces", "pc", "pcs", "whole"]),
        ]
        var spellings: [String: ParsedUnit] = [:]
        for (unit, words) in table {
            for word in words {
                spellings[word] = unit
            }
        }
        return spellings
    }()
}

/// How a ``ParsedUnit`` converts to one of the catalog's units.
public struct MeasureConversion: Equatable, Sendable {
    /// The catalog unit.
    public var unit: MeasureUnit
    /// Catalog units in one of the parsed unit.
    public var factor: Double

    public init(unit: MeasureUnit, factor: Double) {
        self.unit = unit
        self.factor = factor
    }
}
