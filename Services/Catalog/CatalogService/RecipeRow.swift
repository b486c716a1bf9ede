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
        rowID = row["rowid"]
        key = row["key"]
        id = row["id"]
        origin = RecipeOrigin(rawValue: row["origin"]) ?? .custom
        owner = row["owner"]
        basedOn = row["based_on"]
        name = row["name"]
        summary = row["summary"]
        servings = row["servings"]
        prepMinutes = row["prep_minutes"]
        cookMinutes = row["cook_minutes"]
        energyLevel = row["energy_level"]
        equipment = Bitmask.values(row["equipment"], as: Appliance.self)
        dishTypes = Bitmask.values(row["dish_types"], as: DishType.self)
        link = row["link"]
        image = row["image"]
        let stepsJSON: String = row["steps"]
        steps = try Self.stepsDecoder.decode([RecipeStep].self, from: Data(stepsJSON.utf8))
        diets = Bitmask.values(row["diets"], as: Diet.self)
        allergens = Bitmask.values(row["allergens"], as: Allergen.self)
        contains = Bitmask.values(row["contains"], as: DietFact.self)
        cost = row["cost"]
        costPerServing = row["cost_per_serving"]
        kcalPerServing = row["kcal_per_serving"]
        shared = row["shared"]
        deleted = row["deleted"]
        version = row["version"]
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
        let synonyms: String = row["synonyms"]
        try self.init(
            id: row["id"], name: row["name"], usdaNdb: row["usda_ndb"], unit: MeasureUnit(rawValue: row["unit"]) ?? .g,
            gramsPerPiece: row["grams_per_piece"], gramsPerMl: row["grams_per_ml"],
            price: Price(amount: row["price_amount"], per: PriceUnit(rawValue: row["price_per"]) ?? .kg),
            category: ShoppingCategory(rawValue: row["category"]) ?? .other,
            nutrition: Nutrition(
                kcal: row["kcal"], carbohydrates: row["carbohydrates"], protein: row["protein"], fat: row["fat"], fibre: row["fibre"],
                sugar: row["sugar"], salt: row["salt"]),
            contains: Bitmask.values(row["contains"], as: DietFact.self), allergens: Bitmask.values(row["allergens"], as: Allergen.self),
            synonyms: RecipeRow.stepsDecoder.decode([String].self, from: Data(synonyms.utf8)), bought: row["bought"]
        )
    }

    /// What recipe search indexes for this ingredient: its name and synonyms.
    var searchText: String { ([name] + synonyms).joined(separator: " ") }
}

/// Lowercased and without diacritics, so "Crème" is found by "creme".
func folded(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
}
