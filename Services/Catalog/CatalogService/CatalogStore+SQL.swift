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
        try recipeQuota.check(
            current: Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM recipe INDEXED BY recipe_by_owner WHERE owner = ? AND deleted = 0", arguments: [user]) ?? 0)
    }

    static func meta(_ db: Database, _ key: String) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [key]) ?? 0
    }

    /// Bumps and returns the catalog version; every change is stamped with it.
    static func nextVersion(_ db: Database) throws -> Int64 {
        try db.cachedStatement(sql: "UPDATE meta SET value = value + 1 WHERE key = 'version'").execute()
        return try meta(db, "version")
    }

    static func allIngredients(_ db: Database) throws -> [String: Ingredient] {
        let all = try IngredientRecord.fetchAll(db).map(\.ingredient)
        return Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    }

    /// Inserts or updates `ingredient`; true when what recipe search indexes for it (name or
    /// synonyms) changed, so the recipes using it must be indexed again.
    static func upsert(_ ingredient: Ingredient, source: String, version: Int64, _ db: Database) throws -> Bool {
        let previous = try IngredientRecord.fetchOne(db, key: ingredient.id)?.ingredient
        try IngredientRecord(ingredient, source: source, version: version).upsert(db)
        guard let previous else { return false }
        return previous.name != ingredient.name || previous.synonyms != ingredient.synonyms
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
            let lines = try lines(key: RecipeKey(rawValue: row["key"]), db)
            try index(rowID: row["rowid"], name: row["name"], summary: row["summary"], lines: lines, ingredients: ingredients, db)
        }
    }

    /// The recipe's search entry: name, summary, and its ingredients' names and synonyms.
    static func index(
        rowID: Int64, name: String, summary: String, lines: [RecipeIngredient], ingredients: [String: Ingredient], _ db: Database
    ) throws {
        let ingredientText = lines.compactMap { ingredients[$0.ingredient]?.searchText }.joined(separator: " ")
        try db.cachedStatement(sql: "DELETE FROM recipe_fts WHERE rowid = ?").execute(arguments: [rowID])
        try db.execute(
            sql: "INSERT INTO recipe_fts (rowid, name, summary, ingredients) VALUES (?, ?, ?, ?)", arguments: [rowID, name, summary, ingredientText]
        )
    }

    /// Inserts or replaces one recipe row with its derived facts, lines and search entry (a
    /// replaced row keeps when it was first created).
    static func write(
        _ recipe: ValidRecipe, key: RecipeKey, id: String, origin: RecipeOrigin, owner: String?, basedOn: String?, shared: Bool, version: Int64,
        ingredients: [String: Ingredient], _ db: Database
    ) throws {
        let facts = try RecipeDerivation.derive(
            lines: recipe.ingredients, servings: recipe.servings, prepMinutes: recipe.prepMinutes, cookMinutes: recipe.cookMinutes,
            ingredients: ingredients
        )
        let record = try RecipeRecord(
            recipe, facts: facts, key: key, id: id, origin: origin, owner: owner, basedOn: basedOn, shared: shared, version: version,
            createdAt: Date()
        ).upsertAndFetch(db, doUpdate: { _ in [RecipeRecord.Columns.createdAt.noOverwrite] })
        try index(rowID: record.rowID!, name: recipe.name, summary: recipe.summary, lines: recipe.ingredients, ingredients: ingredients, db)
        try RecipeLineRecord.filter(RecipeLineRecord.Columns.recipeKey == key.rawValue).deleteAll(db)
        for (position, line) in recipe.ingredients.enumerated() {
            try RecipeLineRecord(recipeKey: key, position: position, line: line).insert(db)
        }
    }

    static func markDeleted(key: RecipeKey, version: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE recipe SET deleted = 1, shared = 0, version = ? WHERE key = ?").execute(arguments: [
            version, key.rawValue,
        ])
        try db.cachedStatement(sql: "DELETE FROM recipe_fts WHERE rowid = (SELECT rowid FROM recipe WHERE key = ?)").execute(arguments: [key.rawValue]
        )
    }

    /// The row `user` sees under `id`: their personal version, else the original if it is a
    /// built-in, theirs, or shared.
    /// The reads of every `recipes.get` keep their statements prepared (fixed texts): preparing
    /// them cost more than running them.
    static func resolve(_ id: String, user: String?, _ db: Database) throws -> RecipeRecord? {
        if let user, !user.isEmpty,
            let personal = try RecipeRecord.fetchOne(
                db.cachedStatement(sql: "SELECT \(RecipeRecord.columns(as: "r")) FROM recipe r WHERE r.key = ? AND r.deleted = 0"),
                arguments: [RecipeKey.personal(id, of: user).rawValue])
        {
            return personal
        }
        return try RecipeRecord.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT \(RecipeRecord.columns(as: "r")) FROM recipe r
                    WHERE r.key = ? AND r.deleted = 0 AND r.origin != 'personal' AND (r.origin = 'builtIn' OR r.owner = ? OR r.shared = 1)
                    """), arguments: [id, user ?? ""])
    }

    static func lines(key: RecipeKey, _ db: Database) throws -> [RecipeIngredient] {
        try RecipeLineRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM recipe_ingredient WHERE recipe_key = ? ORDER BY position"), arguments: [key.rawValue]
        ).map(\.line)
    }

    static func isFavorite(_ id: String, user: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM favorite WHERE user = ? AND recipe_id = ?"), arguments: [user, id]) ?? false
    }
}
