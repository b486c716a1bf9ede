import Foundation
import GRDB
import SousSchema

/// One row of the `recipe` table. Originals use their id as key; a personal version uses
/// "<id>@<owner>" so it can share the original's public id.
struct RecipeRow: Sendable {
    var rowID: Int64
    var key: String
    var id: String
    var origin: RecipeOrigin
    var owner: String?
    var basedOn: String?
    var name: String
    var summary: String
    var servings: Int
    var prepMinutes: Int
    var cookMinutes: Int
    var energyLevel: Int
    var equipment: [Appliance]
    var dishTypes: [DishType]
    var link: String?
    var image: String?
    var steps: [RecipeStep]
    var diets: [Diet]
    var allergens: [Allergen]
    var contains: [DietFact]
    var cost: Double
    var costPerServing: Double
    var kcalPerServing: Double
    var shared: Bool
    var deleted: Bool
    var version: Int64

    static let columns = """
        rowid, key, id, origin, owner, based_on, name, summary, servings, prep_minutes, cook_minutes, energy_level, equipment, \
        dish_types, link, image, steps, diets, allergens, contains, cost, cost_per_serving, kcal_per_serving, shared, deleted, version
        """

    /// `columns` qualified with a table alias, for joins.
    static func columns(as alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }.joined(separator: ", ")
    }

    static let stepsDecoder = JSONDecoder()
    static let stepsEncoder = JSONEncoder()

    init(row: Row) throws {
        rowID = row[0]
        key = row[1]
        id = row[2]
        origin = RecipeOrigin(rawValue: row[3]) ?? .custom
        owner = row[4]
        basedOn = row[5]
        name = row[6]
        summary = row[7]
        servings = row[8]
        prepMinutes = row[9]
        cookMinutes = row[10]
        energyLevel = row[11]
        equipment = Bitmask.values(row[12], as: Appliance.self)
        dishTypes = Bitmask.values(row[13], as: DishType.self)
        link = row[14]
        image = row[15]
        let stepsJSON: String = row[16]
        steps = try Self.stepsDecoder.decode([RecipeStep].self, from: Data(stepsJSON.utf8))
        diets = Bitmask.values(row[17], as: Diet.self)
        allergens = Bitmask.values(row[18], as: Allergen.self)
        contains = Bitmask.values(row[19], as: DietFact.self)
        cost = row[20]
        costPerServing = row[21]
        kcalPerServing = row[22]
        shared = row[23]
        deleted = row[24]
        version = row[25]
    }

    func summary(isFavorite: Bool) -> RecipeSummary {
        RecipeSummary(
            id: id, name: name, summary: summary, servings: servings, totalMinutes: prepMinutes + cookMinutes, energyLevel: energyLevel,
            diets: diets, allergens: allergens, equipment: equipment, dishTypes: dishTypes, kcalPerServing: kcalPerServing,
            costPerServing: costPerServing, origin: origin, owner: owner, isFavorite: isFavorite
        )
    }

    var asValidRecipe: ValidRecipe {
        ValidRecipe(
            name: name, summary: summary, servings: servings, prepMinutes: prepMinutes, cookMinutes: cookMinutes, ingredients: [],
            steps: steps, equipment: equipment, dishTypes: dishTypes, link: link, image: image
        )
    }
}

extension Ingredient {
    static let columns = """
        id, name, usda_ndb, unit, grams_per_piece, grams_per_ml, price_amount, price_per, category, kcal, carbohydrates, protein, fat, \
        fibre, sugar, salt, contains, allergens, synonyms, bought
        """

    init(row: Row) throws {
        let synonyms: String = row[18]
        try self.init(
            id: row[0], name: row[1], usdaNdb: row[2], unit: MeasureUnit(rawValue: row[3]) ?? .g, gramsPerPiece: row[4], gramsPerMl: row[5],
            price: Price(amount: row[6], per: PriceUnit(rawValue: row[7]) ?? .kg), category: ShoppingCategory(rawValue: row[8]) ?? .other,
            nutrition: Nutrition(kcal: row[9], carbohydrates: row[10], protein: row[11], fat: row[12], fibre: row[13], sugar: row[14], salt: row[15]),
            contains: Bitmask.values(row[16], as: DietFact.self), allergens: Bitmask.values(row[17], as: Allergen.self),
            synonyms: RecipeRow.stepsDecoder.decode([String].self, from: Data(synonyms.utf8)), bought: row[19]
        )
    }

    /// What recipe search indexes for this ingredient: its name and synonyms.
    var searchText: String { ([name] + synonyms).joined(separator: " ") }
}

/// Lowercased and without diacritics, so "Crème" is found by "creme".
func folded(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
}
