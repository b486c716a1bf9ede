import Foundation
public import MessagePack
public import SousSchema
public import SousUnits

/// What the list knows about an ingredient: the catalog's facts as of the last time a recipe or
/// item using it was added.
///
/// Coded under the names of ``Ingredient``'s fields, so that ``RecipeForList`` reads it from the
/// catalog's reply.
@MessagePackCodable
public struct ListIngredientFacts: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    /// The unit the ingredient is usually measured in; mixed lines are shown in its family.
    public var unit: MeasureUnit
    public var gramsPerPiece: Double?
    public var gramsPerMl: Double?
    /// Nil when the catalog knows no price: the line says "no price".
    public var price: Price?
    public var category: ShoppingCategory
    /// False for tap water: recipes' shares of it are left off the list.
    public var bought: Bool
    /// The packs a shop sells it in (nil or empty: sold loose).
    public var packs: [PackSize]?

    public init(
        id: String, name: String, unit: MeasureUnit, gramsPerPiece: Double?, gramsPerMl: Double?, price: Price?, category: ShoppingCategory,
        bought: Bool = true, packs: [PackSize]? = nil
    ) {
        self.packs = packs
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
            id: ingredient.id, name: ingredient.name, unit: ingredient.unit, gramsPerPiece: ingredient.gramsPerPiece,
            gramsPerMl: ingredient.gramsPerMl,
            price: ingredient.price, category: ingredient.category, bought: ingredient.bought, packs: ingredient.packs
        )
    }

    /// Its units, density, piece weight and price, for converting and pricing (``IngredientMeasures``).
    public var measures: IngredientMeasures {
        IngredientMeasures(unit: unit, gramsPerPiece: gramsPerPiece, gramsPerMl: gramsPerMl, price: price)
    }

    /// `amount` base units of `source` in base units of `target`, meeting through grams; nil when
    /// a density or piece weight is missing.
    public func convert(_ amount: Double, from source: QuantityDimension, to target: QuantityDimension) -> Double? {
        measures.convert(amount, from: source, to: target)
    }

    /// Whether `unit` can meet the other families on a list (the catalog's rule for recipe lines).
    public func accepts(_ unit: MeasureUnit) -> Bool { measures.accepts(unit) }
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

    /// Estimated EUR for `amounts` (see ``IngredientMeasures/price(of:)``); nil without a price.
    public static func price(of amounts: [QuantityDimension: Double], _ facts: ListIngredientFacts) -> Double? {
        facts.measures.price(of: amounts)
    }
}

extension Double {
    func clamped(min lower: Double) -> Double { Swift.max(self, lower) }
}
