public import SousSchema
public import SousUnits

/// One share of an ingredient on the list: a recipe's quantity (multiplier applied) or a manual
/// edible item.
public struct GroceryContribution: Equatable, Sendable {
    public var ingredient: String
    public var quantity: Double
    public var unit: MeasureUnit
    public var source: GroceryLineSource

    public init(ingredient: String, quantity: Double, unit: MeasureUnit, source: GroceryLineSource) {
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.source = source
    }
}

/// A manual non-edible item ("paper towels").
public struct NonEdibleItem: Equatable, Sendable {
    public var id: Int64
    public var text: String
    public var count: Int?

    public init(id: Int64, text: String, count: Int?) {
        self.id = id
        self.text = text
        self.count = count
    }

    /// Its line id.
    public var lineID: String { GroceryLineID.item(id).description }
}

/// What the pantry holds that the list takes off: each ingredient's stock per family (in g, ml
/// or pieces), and the staples in stock, whose recipe shares stay off the list.
public struct PantryStock: Equatable, Sendable {
    public var amounts: [String: [QuantityDimension: Double]]
    public var staples: Set<String>

    public init(amounts: [String: [QuantityDimension: Double]] = [:], staples: Set<String> = []) {
        self.amounts = amounts
        self.staples = staples
    }
}

/// Builds the list a person shops with from its parts. Pure: the store reads the parts, this
/// sums them, so every read recomputes lines from the recipes' shares and nothing drifts.
public enum GroceryAggregator {
    public static func build(
        recipes: [ListRecipe],
        contributions: [GroceryContribution],
        items: [NonEdibleItem],
        ingredients: [String: ListIngredientFacts],
        checked: Set<String>,
        pantry: PantryStock = PantryStock()
    ) -> GroceryList {
        // Sum within each family in the order given (recipes in the order they were added), so
        // the same shares always give bit-identical totals.
        var order: [String] = []
        var amounts: [String: [QuantityDimension: Double]] = [:]
        var sources: [String: [GroceryLineSource]] = [:]
        for contribution in contributions {
            let id = contribution.ingredient
            // Tap water in a recipe is not shopped for; a manual item of it is what the user asked.
            if contribution.source.recipe != nil, ingredients[id]?.bought == false || pantry.staples.contains(id) { continue }
            if amounts[id] == nil { order.append(id) }
            amounts[id, default: [:]][QuantityDimension(contribution.unit), default: 0] += contribution.quantity * contribution.unit.baseFactor
            sources[id, default: []].append(contribution.source)
        }
        var lines: [GroceryLine] = []
        for id in order {
            guard let facts = ingredients[id], let lineAmounts = amounts[id] else { continue }
            let dimension = GroceryUnits.displayDimension(for: lineAmounts, facts)
            let exact = GroceryUnits.total(lineAmounts, in: dimension, facts)
            // The pantry's stock of it, in the line's family; what is left is what to buy.
            var cover: PantryCover?
            if let stock = pantry.amounts[id] {
                let have = GroceryUnits.total(stock, in: dimension, facts)
                if have > 0 { cover = PantryCover(have: have, buy: max(exact - have, 0)) }
            }
            let buy = cover?.buy ?? exact
            let shown = GroceryUnits.display(buy, dimension)
            lines.append(
                GroceryLine(
                    id: id, ingredient: id, name: facts.name, category: facts.category, quantity: shown.quantity, unit: shown.unit, count: nil,
                    exactQuantity: exact, exactUnit: dimension.baseUnit,
                    price: cover == nil ? GroceryUnits.price(of: lineAmounts, facts) : GroceryUnits.price(of: [dimension: buy], facts),
                    checked: checked.contains(id), sources: sources[id] ?? [], packs: PackOptimizer.choose(need: buy, in: dimension, facts),
                    pantry: cover
                ))
        }
        for item in items {
            lines.append(
                GroceryLine(
                    id: item.lineID, ingredient: nil, name: item.text, category: .other, quantity: item.count.map(Double.init), unit: nil,
                    count: item.count,
                    exactQuantity: nil, exactUnit: nil, price: nil, checked: checked.contains(item.lineID), sources: []
                ))
        }
        return group(lines, recipes: recipes)
    }

    /// Lines under their categories in shopping order; within a category by name, so a checked
    /// line stays where it was.
    static func group(_ lines: [GroceryLine], recipes: [ListRecipe]) -> GroceryList {
        let byCategory = Dictionary(grouping: lines, by: \.category)
        var groups: [GroceryCategoryGroup] = []
        for category in ShoppingCategory.allCases {
            guard let members = byCategory[category], !members.isEmpty else { continue }
            // Each name lowered once, not at every comparison.
            let sorted = members.map { (key: $0.name.lowercased(), line: $0) }
                .sorted { $0.key != $1.key ? $0.key < $1.key : $0.line.id < $1.line.id }
                .map(\.line)
            groups.append(GroceryCategoryGroup(category: category, lines: sorted, subtotal: sorted.reduce(0) { $0 + ($1.price ?? 0) }))
        }
        let total = groups.reduce(0) { $0 + $1.subtotal }
        let byPacks = groups.flatMap(\.lines).reduce(0) { $0 + ($1.packs?.price ?? $1.price ?? 0) }
        return GroceryList(
            recipes: recipes, categories: groups, total: total, totalByPacks: byPacks,
            lineCount: lines.count, checkedCount: lines.count { $0.checked }
        )
    }
}
