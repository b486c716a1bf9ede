import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// The SQL every read and write shares: versions, ingredient rows, recipe rows and their search entries.
extension CatalogStore {
    // MARK: SQL helpers

    /// Runs database work, passing ServiceErrors through and reporting anything else as internal.
    func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        do {
            return try work()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .internal("catalog storage failed: \(error)")
        }
    }

    /// What one user may store in the catalog (docs/PROTOCOL.md, "Quotas").
    static let recipeQuota = Quota("recipes of one's own (created, saved, or personal versions)", limit: 1_000, field: "recipes")

    static func checkRecipeQuota(user: String, _ db: Database) throws {
        try recipeQuota.check(current: Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recipe WHERE owner = ? AND deleted = 0", arguments: [user]) ?? 0)
    }

    static func meta(_ db: Database, _ key: String) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) ?? 0
    }

    /// Bumps and returns the catalog version; every change is stamped with it.
    static func nextVersion(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE meta SET value = value + 1 WHERE key = 'version'")
        return try meta(db, "version")
    }

    static func allIngredients(_ db: Database) throws -> [String: Ingredient] {
        let all = try Row.fetchAll(db, sql: "SELECT \(Ingredient.columns) FROM ingredient").map(Ingredient.init(row:))
        return Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    }

    /// Inserts or updates `ingredient`; true when what recipe search indexes for it (name or
    /// synonyms) changed, so the recipes using it must be indexed again.
    static func upsert(_ ingredient: Ingredient, source: String, version: Int64, _ db: Database) throws -> Bool {
        let previous = try Row.fetchOne(db, sql: "SELECT name, synonyms FROM ingredient WHERE id = ?", arguments: [ingredient.id])
        let synonyms = String(decoding: try RecipeRow.stepsEncoder.encode(ingredient.synonyms), as: UTF8.self)
        let n = ingredient.nutrition
        try db.execute(
            sql: """
                INSERT INTO ingredient (id, name, folded, usda_ndb, unit, grams_per_piece, grams_per_ml, price_amount, price_per, category,
                    kcal, carbohydrates, protein, fat, fibre, sugar, salt, contains, allergens, source, version, synonyms, folded_synonyms, bought)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, folded = excluded.folded, usda_ndb = excluded.usda_ndb, unit = excluded.unit,
                    grams_per_piece = excluded.grams_per_piece, grams_per_ml = excluded.grams_per_ml, price_amount = excluded.price_amount,
                    price_per = excluded.price_per, category = excluded.category, kcal = excluded.kcal, carbohydrates = excluded.carbohydrates,
                    protein = excluded.protein, fat = excluded.fat, fibre = excluded.fibre, sugar = excluded.sugar, salt = excluded.salt,
                    contains = excluded.contains, allergens = excluded.allergens, source = excluded.source, version = excluded.version,
                    synonyms = excluded.synonyms, folded_synonyms = excluded.folded_synonyms, bought = excluded.bought
                """,
            arguments: [
                ingredient.id, ingredient.name, folded(ingredient.name), ingredient.usdaNdb, ingredient.unit.rawValue, ingredient.gramsPerPiece,
                ingredient.gramsPerMl, ingredient.price.amount, ingredient.price.per.rawValue, ingredient.category.rawValue, n.kcal, n.carbohydrates,
                n.protein, n.fat, n.fibre, n.sugar, n.salt, Bitmask.of(ingredient.contains), Bitmask.of(ingredient.allergens), source, version,
                synonyms, ingredient.synonyms.isEmpty ? "" : "|" + ingredient.synonyms.map(folded).joined(separator: "|") + "|", ingredient.bought,
            ])
        guard let previous else { return false }
        return previous["name"] != ingredient.name || previous["synonyms"] != synonyms
    }

    /// Indexes again, for search, every recipe that uses one of `ids` (their names or synonyms
    /// changed).
    static func reindexRecipes(using ids: [String], ingredients: [String: Ingredient], _ db: Database) throws {
        guard !ids.isEmpty else { return }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT DISTINCT r.rowid, r.key, r.name, r.summary FROM recipe r JOIN recipe_ingredient ri ON ri.recipe_key = r.key
                WHERE r.deleted = 0 AND ri.ingredient_id IN (\(databaseQuestionMarks(count: ids.count)))
                """, arguments: StatementArguments(ids))
        for row in rows {
            let lines = try lines(key: row["key"], db)
            try index(rowID: row["rowid"], name: row["name"], summary: row["summary"], lines: lines, ingredients: ingredients, db)
        }
    }

    /// The recipe's search entry: name, summary, and its ingredients' names and synonyms.
    static func index(
        rowID: Int64, name: String, summary: String, lines: [RecipeIngredient], ingredients: [String: Ingredient], _ db: Database
    ) throws {
        let ingredientText = lines.compactMap { ingredients[$0.ingredient]?.searchText }.joined(separator: " ")
        try db.execute(sql: "DELETE FROM recipe_fts WHERE rowid = ?", arguments: [rowID])
        try db.execute(
            sql: "INSERT INTO recipe_fts (rowid, name, summary, ingredients) VALUES (?, ?, ?, ?)", arguments: [rowID, name, summary, ingredientText]
        )
    }

    /// Inserts or replaces one recipe row with its derived facts, lines and search entry.
    static func write(
        _ recipe: ValidRecipe, key: String, id: String, origin: RecipeOrigin, owner: String?, basedOn: String?, shared: Bool, version: Int64,
        ingredients: [String: Ingredient], _ db: Database
    ) throws {
        let facts = try RecipeDerivation.derive(
            lines: recipe.ingredients, servings: recipe.servings, prepMinutes: recipe.prepMinutes, cookMinutes: recipe.cookMinutes,
            ingredients: ingredients
        )
        let steps = String(decoding: try RecipeRow.stepsEncoder.encode(recipe.steps), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO recipe (key, id, origin, owner, based_on, name, summary, servings, prep_minutes, cook_minutes, energy_level, equipment,
                    dish_types, link, image, steps, diets, allergens, contains, cost, cost_per_serving, kcal_per_serving, shared, deleted, version, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
                ON CONFLICT(key) DO UPDATE SET origin = excluded.origin, owner = excluded.owner, based_on = excluded.based_on, name = excluded.name,
                    summary = excluded.summary, servings = excluded.servings, prep_minutes = excluded.prep_minutes, cook_minutes = excluded.cook_minutes,
                    energy_level = excluded.energy_level, equipment = excluded.equipment, dish_types = excluded.dish_types, link = excluded.link,
                    image = excluded.image, steps = excluded.steps, diets = excluded.diets, allergens = excluded.allergens, contains = excluded.contains,
                    cost = excluded.cost, cost_per_serving = excluded.cost_per_serving, kcal_per_serving = excluded.kcal_per_serving,
                    shared = excluded.shared, deleted = 0, version = excluded.version
                """,
            arguments: [
                key, id, origin.rawValue, owner, basedOn, recipe.name, recipe.summary, recipe.servings, recipe.prepMinutes, recipe.cookMinutes,
                facts.energyLevel, Bitmask.of(recipe.equipment), Bitmask.of(recipe.dishTypes), recipe.link, recipe.image, steps,
                Bitmask.of(facts.diets), Bitmask.of(facts.allergens), Bitmask.of(facts.contains), facts.cost, facts.costPerServing,
                facts.nutritionPerServing.kcal, shared, version, Date().timeIntervalSince1970,
            ])
        let rowID = try Int64.fetchOne(db, sql: "SELECT rowid FROM recipe WHERE key = ?", arguments: [key])!
        try index(rowID: rowID, name: recipe.name, summary: recipe.summary, lines: recipe.ingredients, ingredients: ingredients, db)
        try db.execute(sql: "DELETE FROM recipe_ingredient WHERE recipe_key = ?", arguments: [key])
        for (position, line) in recipe.ingredients.enumerated() {
            try db.execute(
                sql:
                    "INSERT INTO recipe_ingredient (recipe_key, position, ingredient_id, quantity, unit, purpose, eaten_share) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [key, position, line.ingredient, line.quantity, line.unit.rawValue, line.use.rawValue, line.eatenShare]
            )
        }
    }

    static func markDeleted(key: String, version: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE recipe SET deleted = 1, shared = 0, version = ? WHERE key = ?", arguments: [version, key])
        try db.execute(sql: "DELETE FROM recipe_fts WHERE rowid = (SELECT rowid FROM recipe WHERE key = ?)", arguments: [key])
    }

    /// The row `user` sees under `id`: their personal version, else the original if it is a
    /// built-in, theirs, or shared.
    static func resolve(_ id: String, user: String?, _ db: Database) throws -> RecipeRow? {
        if let user, !user.isEmpty,
            let personal = try Row.fetchOne(
                db, sql: "SELECT \(RecipeRow.columns) FROM recipe WHERE key = ? AND deleted = 0",
                arguments: [RecipeKey.personal(id, of: user).rawValue])
        {
            return try RecipeRow(row: personal)
        }
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT \(RecipeRow.columns) FROM recipe
                    WHERE key = ? AND deleted = 0 AND origin != 'personal' AND (origin = 'builtIn' OR owner = ? OR shared = 1)
                    """, arguments: [id, user ?? ""])
        else { return nil }
        return try RecipeRow(row: row)
    }

    static func lines(key: String, _ db: Database) throws -> [RecipeIngredient] {
        try Row.fetchAll(
            db, sql: "SELECT ingredient_id, quantity, unit, purpose, eaten_share FROM recipe_ingredient WHERE recipe_key = ? ORDER BY position",
            arguments: [key]
        ).map {
            RecipeIngredient(
                ingredient: $0["ingredient_id"], quantity: $0["quantity"], unit: MeasureUnit(rawValue: $0["unit"]) ?? .g,
                use: IngredientUse(rawValue: $0["purpose"]) ?? .eaten, eatenShare: $0["eaten_share"]
            )
        }
    }

    static func isFavorite(_ id: String, user: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM favorite WHERE user = ? AND recipe_id = ?", arguments: [user, id]) ?? false
    }
}
