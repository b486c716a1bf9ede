public import SousSchema
import SousUnits
public import SousWire

/// Everything the catalog derives from a recipe's ingredients and times — never typed in.
public struct DerivedRecipeFacts: Equatable, Sendable {
    public var lines: [RecipeIngredientDetail]
    public var diets: [Diet]
    public var allergens: [Allergen]
    public var contains: [DietFact]
    /// EUR for the whole recipe at its own servings: the lines that have a price.
    public var cost: Double
    public var costPerServing: Double
    /// Names of the ingredients without a price, in line order.
    public var unpriced: [String]
    public var nutritionPerServing: Nutrition
    public var totalMinutes: Int
    public var energyLevel: Int
}

public enum RecipeDerivation {
    /// Grams in `quantity` `unit` of `ingredient`, or a badRequest naming `field` when the unit
    /// cannot be converted for this ingredient.
    public static func grams(of quantity: Double, _ unit: MeasureUnit, of ingredient: Ingredient, field: String) throws(ServiceError) -> Double {
        guard let grams = IngredientMeasures(ingredient).grams(of: quantity, unit) else {
            throw unit.millilitres != nil
                ? .badRequest("\(ingredient.name) has no known density; give it in g or kg", field: field)
                : .badRequest("\(ingredient.name) is not counted in pieces; give it in g or kg", field: field)
        }
        return grams
    }

    /// Estimated EUR for `grams` of `ingredient`, using its price per kg, l or piece; nil without
    /// a price.
    public static func cost(ofGrams grams: Double, _ ingredient: Ingredient) -> Double? {
        IngredientMeasures(ingredient).price(ofGrams: grams)
    }

    /// Diets a recipe fits given what its ingredients contain.
    public static func diets(for contains: Set<DietFact>) -> [Diet] {
        var diets: [Diet] = []
        if contains.isDisjoint(with: [.meat, .fish, .dairy, .egg, .honey]) { diets.append(.vegan) }
        if contains.isDisjoint(with: [.meat, .fish, .pork]) { diets.append(.vegetarian) }
        if !contains.contains(.gluten) { diets.append(.glutenFree) }
        if contains.isDisjoint(with: [.pork, .alcohol]) { diets.append(.halal) }
        return diets.sorted()
    }

    /// Derives every fact of a recipe. `ingredients` must hold every id the recipe uses.
    public static func derive(
        lines recipeLines: [RecipeIngredient],
        servings: Int,
        prepMinutes: Int,
        cookMinutes: Int,
        people: Int? = nil,
        ingredients: [String: Ingredient]
    ) throws(ServiceError) -> DerivedRecipeFacts {
        let scale = Double(people ?? servings) / Double(servings)
        var lines: [RecipeIngredientDetail] = []
        var contains: Set<DietFact> = []
        var allergens: Set<Allergen> = []
        var totalCost = 0.0
        var unpriced: [String] = []
        var nutrition = Nutrition.zero
        for (index, line) in recipeLines.enumerated() {
            guard let ingredient = ingredients[line.ingredient] else {
                throw .unknownIngredient(line.ingredient, field: "ingredients.\(index).ingredient")
            }
            let grams = try grams(of: line.quantity, line.unit, of: ingredient, field: "ingredients.\(index).unit")
            let lineCost = cost(ofGrams: grams, ingredient)
            if let lineCost { totalCost += lineCost } else { unpriced.append(ingredient.name) }
            // The whole quantity is bought (cost); only the share eaten counts in nutrition.
            let eatenShare = line.resolvedEatenShare
            nutrition = nutrition + ingredient.nutrition.scaled(by: grams * eatenShare / 100)
            contains.formUnion(ingredient.contains)
            allergens.formUnion(ingredient.allergens)
            lines.append(
                RecipeIngredientDetail(
                    ingredient: ingredient.id, name: ingredient.name, quantity: line.quantity * scale, unit: line.unit,
                    grams: grams * scale, cost: lineCost.map { $0 * scale }, category: ingredient.category, use: line.use, eatenShare: eatenShare
                ))
        }
        let total = prepMinutes + cookMinutes
        return DerivedRecipeFacts(
            lines: lines,
            diets: diets(for: contains),
            allergens: allergens.sorted(),
            contains: contains.sorted(),
            cost: totalCost,
            costPerServing: totalCost / Double(servings),
            unpriced: unpriced,
            nutritionPerServing: nutrition.scaled(by: 1 / Double(servings)),
            totalMinutes: total,
            energyLevel: EnergyLevel.forTotalMinutes(total)
        )
    }
}

/// Bit sets the database stores so filters run as integer tests in SQL.
enum Bitmask {
    static func of<T: CaseIterable & Equatable>(_ values: some Sequence<T>) -> Int64 {
        let all = Array(T.allCases)
        var mask: Int64 = 0
        for value in values {
            if let index = all.firstIndex(of: value) { mask |= 1 << Int64(index) }
        }
        return mask
    }

    static func values<T: CaseIterable & Equatable>(_ mask: Int64, as type: T.Type) -> [T] {
        Array(T.allCases).enumerated().filter { mask & (1 << Int64($0.offset)) != 0 }.map(\.element)
    }
}
