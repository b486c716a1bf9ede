import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// The statements whose text differs between the engines: full-text search (an FTS5 table keyed
/// by rowid on SQLite, a `tsvector` on the recipe row on PostgreSQL), the order of names without
/// case (SQLite's NOCASE collation, which the covering index is built in; `lower()` on
/// PostgreSQL), and index hints SQLite needs without statistics. Each text is built once.
struct CatalogSQL: Sendable {
    let engine: SQLEngine
    /// The recipe columns as `r`, with its creation order as `rowid`.
    let recipeColumns: String
    /// Names without case, then as written.
    let nameOrder: String
    /// `recipe r` read along the owner index.
    let recipeByOwner: String
    /// The row ``CatalogStore/resolve(_:user:_:)`` finds; its arguments are ``visibleArguments``.
    let resolve: String
    let recipeByKey: String
    let upsertRecipe: String
    /// Recipes a text matches, as `r`, the match bound to the first `?`: a condition, and a
    /// FROM … WHERE clause to extend (on SQLite, driven by the FTS5 table).
    let textCondition: String
    let textMatches: String

    static let sqlite = CatalogSQL(.sqlite)
    static let postgres = CatalogSQL(.postgres)
    static func of(_ engine: SQLEngine) -> CatalogSQL { engine == .sqlite ? sqlite : postgres }

    private init(_ engine: SQLEngine) {
        self.engine = engine
        recipeColumns = RecipeRecord.columns(as: "r", engine)
        nameOrder = engine == .sqlite ? "r.name COLLATE NOCASE, r.name" : "lower(r.name), r.name"
        // INDEXED BY: without statistics SQLite prefers the covering search index and walks
        // every recipe (9 ms at 100 000, 90 ms at a million: the cost of every search).
        recipeByOwner = engine == .sqlite ? "recipe r INDEXED BY recipe_by_owner" : "recipe r"
        // The one rule of which row a user sees under an id: their personal version, else the
        // original if it is a built-in, theirs, or shared. The key is chosen first, so the row
        // is one seek on the primary key: written as "personal OR original, ordered", SQLite
        // merged two index searches and sorted them (twice the time of the whole read).
        let visible = """
            FROM recipe r
            WHERE r.key = COALESCE((SELECT p.key FROM recipe p WHERE p.key = ? AND p.deleted = 0), ?) AND r.deleted = 0
                AND (r.key = ? OR (r.origin != 'personal' AND (r.origin = 'builtIn' OR r.owner = ? OR r.shared = 1)))
            """
        resolve = "SELECT \(recipeColumns) \(visible)"
        recipeByKey = "SELECT \(recipeColumns) FROM recipe r WHERE r.key = ? AND r.deleted = 0"
        let columns = RecipeRecord.columnNames
        // A replaced row keeps when it was first created (and its rowid: its place in search).
        let updates = columns.filter { $0 != "key" && $0 != "created_at" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        upsertRecipe = """
            INSERT INTO recipe (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            ON CONFLICT (key) DO UPDATE SET \(updates) RETURNING \(engine == .sqlite ? "rowid" : "rid")
            """
        textCondition =
            engine == .sqlite
            ? "r.rowid IN (SELECT rowid FROM recipe_fts WHERE recipe_fts MATCH ?)" : "r.search @@ to_tsquery('sous_english', ?)"
        textMatches =
            engine == .sqlite
            ? "FROM recipe_fts CROSS JOIN recipe r ON r.rowid = recipe_fts.rowid WHERE recipe_fts MATCH ?" : "FROM recipe r WHERE \(textCondition)"
    }
}

/// The SQL every read and write shares: versions, ingredient rows, recipe rows and their search entries.
extension CatalogStore {
    // MARK: SQL helpers

    /// Runs database work, passing ServiceErrors through and reporting anything else as internal.
    func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        try ServiceError.storage("catalog storage failed", work)
    }

    /// What one user may store in the catalog (docs/PROTOCOL.md, "Quotas").
    static let recipeQuota = Quota("recipes of one's own (created, saved, or personal versions)", limit: 1_000, field: "recipes")

    static let photoQuota = Quota("bytes of recipe photos", limit: 100 << 20, field: "photo")

    func checkRecipeQuota(user: String, _ session: any SQLSession) throws {
        try Self.recipeQuota.check(
            current: session.value(Int.self, "SELECT COUNT(*) FROM \(sql.recipeByOwner) WHERE r.owner = ? AND r.deleted = 0", [user]) ?? 0)
    }

    static func meta(_ session: any SQLSession, _ key: String) throws -> Int64 {
        try session.value(Int64.self, "SELECT value FROM meta WHERE key = ?", [key]) ?? 0
    }

    /// Bumps and returns the catalog version; every change is stamped with it.
    static func nextVersion(_ session: any SQLSession) throws -> Int64 {
        guard let version = try session.value(Int64.self, "UPDATE meta SET value = value + 1 WHERE key = 'version' RETURNING value") else {
            throw ServiceError.internal("the catalog has no version row")
        }
        return version
    }

    /// The ingredients of `ids` that exist, by id.
    static func ingredients(ids: [String], _ session: any SQLSession) throws -> [String: Ingredient] {
        let found = try session.rows(
            "SELECT \(IngredientRecord.servedColumns) FROM ingredient WHERE id IN (\(session.engine.jsonArrayValues))", [ids.sqlJSONArray]
        ).map { try IngredientRecord.ingredient($0, engine: session.engine) }
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every ingredient of the recipes that use any of `ids`: what measuring those recipes again
    /// needs, without reading the thousands of foods no recipe uses.
    static func ingredientsOfRecipes(using ids: [String], _ session: any SQLSession) throws -> [String: Ingredient] {
        let used = try session.values(
            String.self,
            """
            SELECT DISTINCT ingredient_id FROM recipe_ingredient WHERE recipe_key IN
                (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (\(session.engine.jsonArrayValues)))
            """, [ids.sqlJSONArray])
        return try Self.ingredients(ids: Array(Set(used + ids)), session)
    }

    /// Every ingredient: loaded into memory at start and after a seed changed some, without the
    /// statement time limit (thousands of rows, and a busy server).
    static func allIngredients(_ session: any SQLSession) throws -> [String: Ingredient] {
        let rows = try session.withoutTimeLimit { try session.rows("SELECT \(IngredientRecord.servedColumns) FROM ingredient", []) }
        let all = try rows.map { try IngredientRecord.ingredient($0, engine: session.engine) }
        return Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    }

    /// What writing `ingredient` over `previous` (nil: a new one) changes for the recipes using it
    /// (``refreshRecipes(after:ingredients:version:_:)``).
    static func change(from previous: Ingredient?, to ingredient: Ingredient) -> IngredientChange {
        // A new ingredient: no recipe uses it yet.
        guard let previous else { return IngredientChange(renamed: false, otherwise: false) }
        let ingredient = IngredientRecord.asStored(ingredient)
        var renamedOnly = previous
        renamedOnly.name = ingredient.name
        renamedOnly.synonyms = ingredient.synonyms
        return IngredientChange(
            renamed: previous.name != ingredient.name || previous.synonyms != ingredient.synonyms, otherwise: renamedOnly != ingredient)
    }

    /// What an ingredient's upsert changed in it, for the recipes that use it.
    struct IngredientChange {
        /// Its name or synonyms: the recipes' search entries name them.
        var renamed: Bool
        /// Anything else (price, nutrition, units, what it contains): the recipes' facts.
        var otherwise: Bool
    }

    /// Brings every recipe using an ingredient just written (`changes`, by id) up to date with
    /// it: its facts (diets, allergens, cost, kcal) derived again and written with `version`
    /// where they differ, so searches and the sync feed show the new prices and diets; its
    /// search entry written again where an ingredient was renamed.
    ///
    /// An ingredient whose change would leave a recipe unmeasurable (a unit it no longer takes)
    /// is refused as `ingredients.<its position in written>`, naming the recipe.
    func refreshRecipes(
        after written: [(id: String, change: IngredientChange)], ingredients: [String: Ingredient], version: Int64, _ session: any SQLSession
    ) throws {
        let changes = Dictionary(
            written.map { ($0.id, $0.change) },
            uniquingKeysWith: { first, second in
                IngredientChange(renamed: first.renamed || second.renamed, otherwise: first.otherwise || second.otherwise)
            })
        let ids = changes.filter { $0.value.renamed || $0.value.otherwise }.keys.sorted()
        guard !ids.isEmpty else { return }
        let rows = try session.rows(
            """
            SELECT \(RecipeRecord.columns(as: "r", sql.engine)) FROM recipe r
            WHERE r.deleted = 0 AND r.key IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (\(sql.engine.jsonArrayValues)))
            """, [ids.sqlJSONArray])
        for row in rows {
            let record = try RecipeRecord(row: row)
            let lines = try Self.lines(key: record.key, session)
            let facts: DerivedRecipeFacts
            do throws(ServiceError) {
                facts = try RecipeDerivation.derive(
                    lines: lines, servings: record.servings, prepMinutes: record.prepMinutes, cookMinutes: record.cookMinutes,
                    ingredients: ingredients)
            } catch {
                // The line's field (ingredients.<line>.unit) names the ingredient at fault.
                let parts = (error.field ?? "").split(separator: ".")
                let line = parts.count > 1 ? Int(parts[1]).flatMap { lines.indices.contains($0) ? lines[$0] : nil } : nil
                let position = line.flatMap { line in written.lastIndex { $0.id == line.ingredient } }
                throw ServiceError.badRequest(
                    "recipe \"\(record.id)\" could no longer be measured: \(error.message)",
                    field: position.map { "ingredients.\($0)" } ?? "ingredients")
            }
            if facts.diets != record.diets || facts.allergens != record.allergens || facts.contains != record.contains || facts.cost != record.cost
                || facts.costPerServing != record.costPerServing || facts.nutritionPerServing.kcal != record.kcalPerServing
            {
                try session.execute(
                    """
                    UPDATE recipe SET diets = ?, allergens = ?, contains = ?, cost = ?, cost_per_serving = ?, kcal_per_serving = ?, version = ?
                    WHERE key = ?
                    """,
                    [
                        Bitmask.of(facts.diets), Bitmask.of(facts.allergens), Bitmask.of(facts.contains), facts.cost, facts.costPerServing,
                        facts.nutritionPerServing.kcal, version, record.key.rawValue,
                    ])
            }
            if let rowID = record.rowID, lines.contains(where: { changes[$0.ingredient]?.renamed == true }) {
                try index(
                    rowID: rowID, name: record.name, summary: record.summary, tags: record.tags, lines: lines, ingredients: ingredients, session)
            }
        }
    }

    /// The recipe's search entry: name, summary, tags, and its ingredients' names and synonyms.
    /// On PostgreSQL the text is folded here (case and accents) as FTS5's tokenizer folds it.
    func index(
        rowID: Int64, name: String, summary: String, tags: [String], lines: [RecipeIngredient], ingredients: [String: Ingredient],
        _ session: any SQLSession
    ) throws {
        let ingredientText = lines.compactMap { ingredients[$0.ingredient]?.searchText }.joined(separator: " ")
        let tagText = tags.joined(separator: " ")
        switch sql.engine {
        case .sqlite:
            try Self.unindex(rowID: rowID, session)
            try session.execute(
                "INSERT INTO recipe_fts (rowid, name, summary, ingredients, tags) VALUES (?, ?, ?, ?, ?)",
                [rowID, name, summary, ingredientText, tagText])
            try session.execute("INSERT INTO recipe_name_fts (rowid, name) VALUES (?, ?)", [Self.nameIndexRowID(recipe: rowID, name: name), name])
        case .postgres:
            try session.execute(
                """
                UPDATE recipe SET search = setweight(to_tsvector('sous_english', ?), 'A') || setweight(to_tsvector('sous_english', ?), 'A')
                    || setweight(to_tsvector('sous_english', ?), 'B') || setweight(to_tsvector('sous_english', ?), 'A'),
                    \(Self.postgresNameColumns)
                WHERE rid = ?
                """, [folded(name), folded(summary), folded(ingredientText), folded(tagText)] + Self.postgresNameValues(name) + [rowID])
        }
    }

    /// The recipe's entry in the name index (SQLite): names of fewer words first, then the newest,
    /// when FTS5 walks it in descending rowid order, which it does without ranking and stops at
    /// the page. For one match per word in the name alone, that is the order bm25 gives (a
    /// shorter column scores higher). The recipe's own rowid is the low 40 bits.
    static func nameIndexRowID(recipe rowID: Int64, name: String) -> Int64 {
        Int64(255 - nameWords(name)) << 40 | rowID & recipeRowIDMask
    }

    /// The words of a recipe's name, 1 to 255: the first key of a broad search's first tier.
    static func nameWords(_ name: String) -> Int {
        min(max(searchWords(name).count, 1), 255)
    }

    /// A recipe's entry in PostgreSQL's name index (``index(rowID:name:summary:tags:lines:ingredients:_:)``
    /// and the backfill of rows written before it): the columns to set and their values.
    static let postgresNameColumns = "name_search = to_tsvector('sous_english', ?), name_words = ?"
    static func postgresNameValues(_ name: String) -> SQLArguments { [folded(name), nameWords(name)] }

    /// The bits of a name index rowid that hold the recipe's rowid.
    static let recipeRowIDMask: Int64 = 1 << 40 - 1

    /// Removes the recipe's search entries (SQLite); the name index's rowid is derived from the
    /// name the full-text entry holds.
    static func unindex(rowID: Int64, _ session: any SQLSession) throws {
        if let name = try session.value(String.self, "SELECT name FROM recipe_fts WHERE rowid = ?", [rowID]) {
            try session.execute("DELETE FROM recipe_name_fts WHERE rowid = ?", [nameIndexRowID(recipe: rowID, name: name)])
        }
        try session.execute("DELETE FROM recipe_fts WHERE rowid = ?", [rowID])
    }

    /// Inserts or replaces one recipe row with its derived facts, lines and search entry (a
    /// replaced row keeps when it was first created).
    func write(
        _ recipe: ValidRecipe, key: RecipeKey, id: String, origin: RecipeOrigin, owner: String?, basedOn: String?, shared: Bool, version: Int64,
        ingredients: [String: Ingredient], _ session: any SQLSession
    ) throws {
        let facts = try RecipeDerivation.derive(
            lines: recipe.ingredients, servings: recipe.servings, prepMinutes: recipe.prepMinutes, cookMinutes: recipe.cookMinutes,
            ingredients: ingredients
        )
        let photo: RecipePhotoInfo?
        switch recipe.photo {
        case .keep: photo = try Self.photoInfo(key: key, session)
        case .replace(let bytes, let type): photo = RecipePhotoInfo(type: type.rawValue, bytes: bytes.count)
        case .remove: photo = nil
        case .copy(let source): photo = try Self.photoInfo(key: source, session)
        }
        if let owner, let photo, recipe.photo != .keep {
            let others =
                try session.value(
                    Int.self, "SELECT COALESCE(SUM(photo_bytes), 0) FROM recipe WHERE owner = ? AND key != ? AND deleted = 0", [owner, key.rawValue])
                ?? 0
            try Self.photoQuota.check(current: others, adding: photo.bytes)
        }
        let record = try RecipeRecord(
            recipe, facts: facts, key: key, id: id, origin: origin, owner: owner, basedOn: basedOn, shared: shared, version: version,
            createdAt: Date(), photo: photo
        )
        guard let rowID = try session.value(Int64.self, sql.upsertRecipe, record.values) else {
            throw ServiceError.internal("recipe \(id) was written without a row id")
        }
        switch recipe.photo {
        case .keep: break
        case .replace(let bytes, _):
            try session.execute("DELETE FROM recipe_photo WHERE recipe_key = ?", [key.rawValue])
            try session.execute("INSERT INTO recipe_photo (recipe_key, bytes) VALUES (?, ?)", [key.rawValue, bytes])
        case .remove:
            try session.execute("DELETE FROM recipe_photo WHERE recipe_key = ?", [key.rawValue])
        case .copy(let source):
            try session.execute("DELETE FROM recipe_photo WHERE recipe_key = ?", [key.rawValue])
            try session.execute(
                "INSERT INTO recipe_photo (recipe_key, bytes) SELECT ?, bytes FROM recipe_photo WHERE recipe_key = ?",
                [key.rawValue, source.rawValue])
        }
        try index(
            rowID: rowID, name: recipe.name, summary: recipe.summary, tags: recipe.tags, lines: recipe.ingredients, ingredients: ingredients,
            session)
        try session.execute("DELETE FROM recipe_ingredient WHERE recipe_key = ?", [key.rawValue])
        try session.insert(
            all: recipe.ingredients.enumerated().map { position, line in RecipeLineRecord(recipeKey: key, position: position, line: line) })
    }

    /// The photo the row under `key` has now, if any.
    static func photoInfo(key: RecipeKey, _ session: any SQLSession) throws -> RecipePhotoInfo? {
        guard let row = try session.rows("SELECT photo_type, photo_bytes FROM recipe WHERE key = ?", [key.rawValue]).first,
            let type = row["photo_type"] as String?
        else { return nil }
        return RecipePhotoInfo(type: type, bytes: row["photo_bytes"])
    }

    func markDeleted(key: RecipeKey, version: Int64, _ session: any SQLSession) throws {
        // A deleted recipe keeps its row (for the sync feed), not its photo.
        try session.execute("DELETE FROM recipe_photo WHERE recipe_key = ?", [key.rawValue])
        try session.execute("UPDATE recipe SET photo_type = NULL, photo_bytes = 0 WHERE key = ?", [key.rawValue])
        switch sql.engine {
        case .sqlite:
            try session.execute("UPDATE recipe SET deleted = 1, shared = 0, version = ? WHERE key = ?", [version, key.rawValue])
            if let rowID = try session.value(Int64.self, "SELECT rowid FROM recipe WHERE key = ?", [key.rawValue]) {
                try Self.unindex(rowID: rowID, session)
            }
        case .postgres:
            try session.execute(
                "UPDATE recipe SET deleted = 1, shared = 0, version = ?, search = NULL, name_search = NULL WHERE key = ?", [version, key.rawValue])
        }
    }

    /// The row `user` sees under `id`: their personal version, else the original if it is a
    /// built-in, theirs, or shared.
    func resolve(_ id: String, user: String?, _ session: any SQLSession) throws -> RecipeRecord? {
        try session.fetchOne(RecipeRecord.self, sql.resolve, Self.visibleArguments(id, user: user))
    }

    /// The arguments of the rule ``CatalogSQL`` writes once for ``resolve(_:user:_:)``: the
    /// personal key, the id, the personal key again, the user.
    static func visibleArguments(_ id: String, user: String?) -> SQLArguments {
        let user = user ?? ""
        // No user has an empty name: an empty one has no personal version to find.
        let personal: String? = user.isEmpty ? nil : RecipeKey.personal(id, of: user).rawValue
        return [personal, id, personal, user]
    }

    static func lines(key: RecipeKey, _ session: any SQLSession) throws -> [RecipeIngredient] {
        try session.fetchAll(RecipeLineRecord.self, "SELECT * FROM recipe_ingredient WHERE recipe_key = ? ORDER BY position", [key.rawValue])
            .map(\.line)
    }

    static func isFavorite(_ id: String, user: String, _ session: any SQLSession) throws -> Bool {
        try session.value(Int.self, #"SELECT 1 FROM favorite WHERE "user" = ? AND recipe_id = ?"#, [user, id]) != nil
    }
}
