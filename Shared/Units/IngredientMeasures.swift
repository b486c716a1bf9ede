public import SousSchema

// The one place Sous converts quantities and prices them: the catalog deriving a recipe's grams
// and cost, and the grocery list summing and pricing lines, both go through here.
//
// Quantities fall in three families (`QuantityDimension`): mass (g, kg), volume (ml, l, tsp =
// 5 ml, tbsp = 15 ml) and count (pieces). Families meet through grams: an ingredient's grams per
// ml (density) and grams per piece.

/// The three families a quantity belongs to.
public enum QuantityDimension: Int, Sendable, CaseIterable, Comparable {
    case mass, volume, count

    public init(_ unit: MeasureUnit) {
        switch unit {
        case .g, .kg: self = .mass
        case .ml, .l, .tsp, .tbsp: self = .volume
        case .piece: self = .count
        }
    }

    /// The unit exact totals are kept in: g, ml or piece.
    public var baseUnit: MeasureUnit {
        switch self {
        case .mass: .g
        case .volume: .ml
        case .count: .piece
        }
    }

    public static func < (lhs: QuantityDimension, rhs: QuantityDimension) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension MeasureUnit {
    /// Base units (g, ml or piece) in one of this unit.
    public var baseFactor: Double { grams ?? millilitres ?? 1 }
}

/// What converting and pricing an ingredient needs: its usual unit, density, piece weight and
/// price.
public struct IngredientMeasures: Equatable, Sendable {
    /// The unit the ingredient is usually measured in.
    public var unit: MeasureUnit
    public var gramsPerPiece: Double?
    public var gramsPerMl: Double?
    /// Nil when no price is known.
    public var price: Price?

    public init(unit: MeasureUnit, gramsPerPiece: Double?, gramsPerMl: Double?, price: Price?) {
        self.unit = unit
        self.gramsPerPiece = gramsPerPiece
        self.gramsPerMl = gramsPerMl
        self.price = price
    }

    public init(_ ingredient: Ingredient) {
        self.init(unit: ingredient.unit, gramsPerPiece: ingredient.gramsPerPiece, gramsPerMl: ingredient.gramsPerMl, price: ingredient.price)
    }

    /// Grams in one base unit (g, ml, piece) of `dimension`, if known.
    public func gramsPerBaseUnit(of dimension: QuantityDimension) -> Double? {
        switch dimension {
        case .mass: 1
        case .volume: gramsPerMl.flatMap { $0 > 0 ? $0 : nil }
        case .count: gramsPerPiece.flatMap { $0 > 0 ? $0 : nil }
        }
    }

    /// Grams in `quantity` `unit`, or nil when the unit needs a density or piece weight the
    /// ingredient does not have.
    public func grams(of quantity: Double, _ unit: MeasureUnit) -> Double? {
        if let grams = unit.grams { return quantity * grams }
        if let millilitres = unit.millilitres { return gramsPerMl.map { quantity * millilitres * $0 } }
        return gramsPerPiece.map { quantity * $0 }
    }

    /// `amount` base units of `source` in base units of `target`, meeting through grams; nil when
    /// a density or piece weight is missing.
    public func convert(_ amount: Double, from source: QuantityDimension, to target: QuantityDimension) -> Double? {
        if source == target { return amount }
        guard let from = gramsPerBaseUnit(of: source), let to = gramsPerBaseUnit(of: target) else { return nil }
        return amount * from / to
    }

    /// Whether `unit` can meet the other families (volumes need a density, pieces a piece weight).
    public func accepts(_ unit: MeasureUnit) -> Bool {
        gramsPerBaseUnit(of: QuantityDimension(unit)) != nil
    }

    /// Estimated EUR for `amounts` (base units per family), from the price per kg, l or piece:
    /// each family is converted to the priced one. A volume priced by mass (or the reverse)
    /// without a density counts 1 g per ml; pieces without a piece weight cost nothing extra.
    /// Nil when the ingredient has no price.
    public func price(of amounts: [QuantityDimension: Double]) -> Double? {
        guard let price else { return nil }
        let priced: QuantityDimension =
            switch price.per {
            case .kg: .mass
            case .l: .volume
            case .piece: .count
            }
        let perBaseUnit = priced == .count ? price.amount : price.amount / 1000
        var cost = 0.0
        for source in amounts.keys.sorted() {
            let amount = amounts[source]!
            if let converted = convert(amount, from: source, to: priced) {
                cost += converted * perBaseUnit
            } else if source != .count, priced != .count {
                cost += amount * perBaseUnit
            }
        }
        return cost
    }

    /// Estimated EUR for `grams` of the ingredient.
    public func price(ofGrams grams: Double) -> Double? { price(of: [.mass: grams]) }
}
