import Foundation
public import SousSchema

/// The three families a list sums quantities within: mass (g, kg), volume (ml, l, tsp, tbsp)
/// and count (pieces).
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

/// What the list knows about an ingredient: the catalog's facts as of the last time a recipe or
/// item using it was added.
public struct ListIngredientFacts: Equatable, Sendable {
    public var id: String
    public var name: String
    /// The unit the ingredient is usually measured in; mixed lines are shown in its family.
    public var unit: MeasureUnit
    public var gramsPerPiece: Double?
    public var gramsPerMl: Double?
    public var price: Price
    public var category: ShoppingCategory
    /// False for tap water: recipes' shares of it are left off the list.
    public var bought: Bool

    public init(
        id: String, name: String, unit: MeasureUnit, gramsPerPiece: Double?, gramsPerMl: Double?, price: Price, category: ShoppingCategory,
        bought: Bool = true
    ) {
        self.id = id
        self.name = name
        self.unit = unit
        self.gramsPerPiece = gramsPerPiece
        self.gramsPerMl = gramsPerMl
        self.price = price
        self.category = category
        self.bought = bought
    }

    public init(_ ingredient: Ingredient) {
        self.init(
            id: ingredient.id, name: ingredient.name, unit: ingredient.unit, gramsPerPiece: ingredient.gramsPerPiece, gramsPerMl: ingredient.gramsPerMl,
            price: ingredient.price, category: ingredient.category, bought: ingredient.bought
        )
    }

    /// Grams in one base unit (g, ml, piece) of `dimension`, if known.
    public func gramsPerBaseUnit(of dimension: QuantityDimension) -> Double? {
        switch dimension {
        case .mass: 1
        case .volume: gramsPerMl.flatMap { $0 > 0 ? $0 : nil }
        case .count: gramsPerPiece.flatMap { $0 > 0 ? $0 : nil }
        }
    }

    /// `amount` base units of `source` in base units of `target`, meeting through grams; nil when
    /// a density or piece weight is missing.
    public func convert(_ amount: Double, from source: QuantityDimension, to target: QuantityDimension) -> Double? {
        if source == target { return amount }
        guard let from = gramsPerBaseUnit(of: source), let to = gramsPerBaseUnit(of: target) else { return nil }
        return amount * from / to
    }

    /// Whether `unit` can meet the other families on a list (the catalog's rule for recipe lines:
    /// volumes need a density, pieces a piece weight).
    public func accepts(_ unit: MeasureUnit) -> Bool {
        gramsPerBaseUnit(of: QuantityDimension(unit)) != nil
    }
}

/// Pure unit arithmetic of the list: which family a line is shown in, rounding, and price.
public enum GroceryUnits {
    /// The family a line with `amounts` (base units per family) is shown in: its only family,
    /// except that spoonfuls of something sold by weight (salt, spices, flour) are shown in
    /// grams when its density is known; when mixed, the ingredient's usual family if everything
    /// converts to it, else mass.
    public static func displayDimension(for amounts: [QuantityDimension: Double], _ facts: ListIngredientFacts) -> QuantityDimension {
        let present = amounts.keys.sorted()
        let usual = QuantityDimension(facts.unit)
        if present == [.volume], usual == .mass, facts.convert(1, from: .volume, to: .mass) != nil { return .mass }
        if present.count == 1 { return present[0] }
        if present.allSatisfy({ facts.convert(1, from: $0, to: usual) != nil }) { return usual }
        if present.allSatisfy({ facts.convert(1, from: $0, to: .mass) != nil }) { return .mass }
        return present.first ?? usual
    }

    /// The exact total of `amounts` in base units of `dimension` (families that cannot convert
    /// are left out; the service never stores such a mix).
    public static func total(_ amounts: [QuantityDimension: Double], in dimension: QuantityDimension, _ facts: ListIngredientFacts) -> Double {
        amounts.keys.sorted().reduce(0) { sum, source in sum + (facts.convert(amounts[source]!, from: source, to: dimension) ?? 0) }
    }

    /// A shopper-friendly quantity for `exact` base units of `dimension`:
    /// - g / ml: below 10 to 0.1, otherwise whole; from 1000 on in kg / l to 0.01 (1500 g → 1.5 kg);
    /// - pieces: rounded up to whole pieces (half an onion is bought as one), with a tolerance of
    ///   1e-6 so 2.0000001 stays 2.
    public static func display(_ exact: Double, _ dimension: QuantityDimension) -> (quantity: Double, unit: MeasureUnit) {
        switch dimension {
        case .count:
            return ((exact - 1e-6).rounded(.up).clamped(min: exact > 0 ? 1 : 0), .piece)
        case .mass, .volume:
            let small = exact < 10 ? (exact * 10).rounded() / 10 : exact.rounded()
            if small >= 1000 {
                return ((exact / 10).rounded() / 100, dimension == .mass ? .kg : .l)
            }
            return (small == 0 && exact > 0 ? 0.1 : small, dimension.baseUnit)
        }
    }

    /// Estimated EUR for `amounts`, from the price per kg, l or piece: each family is converted
    /// to the priced one. Like the catalog, a volume priced by mass (or the reverse) without a
    /// density counts 1 g per ml, and pieces without a piece weight cost nothing extra.
    public static func price(of amounts: [QuantityDimension: Double], _ facts: ListIngredientFacts) -> Double {
        let priced: QuantityDimension = switch facts.price.per {
        case .kg: .mass
        case .l: .volume
        case .piece: .count
        }
        let perBaseUnit = priced == .count ? facts.price.amount : facts.price.amount / 1000
        var cost = 0.0
        for source in amounts.keys.sorted() {
            let amount = amounts[source]!
            if let converted = facts.convert(amount, from: source, to: priced) {
                cost += converted * perBaseUnit
            } else if source != .count, priced != .count {
                cost += amount * perBaseUnit
            }
        }
        return cost
    }
}

extension Double {
    func clamped(min lower: Double) -> Double { Swift.max(self, lower) }
}
