import Foundation
import GRDB
import SousRuntime
public import SousSchema
public import SousWire
import Synchronization

/// Seed loads, ingredient imports and ingredient lookups.
extension CatalogStore {
    // MARK: Seed data

    /// Loads `seed` if the database holds an older version (first start, or a new release).
    @discardableResult
    public func loadSeedIfNeeded(_ seed: SeedData) throws -> SeedReport? {
        let loaded = try writer.read { try Self.meta($0, "seedVersion") }
        guard loaded < Int64(seed.version) else { return nil }
        return try reloadSeed(seed)
    }

    /// Writes the shipped ingredients and built-in recipes, removing built-ins the seed no longer
    /// has. Users' recipes, personal versions and favorites are kept.
    public func reloadSeed(_ seed: SeedData) throws -> SeedReport {
        let report = try writer.write { db -> SeedReport in
            let version = try Self.nextVersion(db)
            var renamed: [String] = []
            for ingredient in seed.ingredients {
                if try Self.upsert(ingredient, source: "seed", version: version, db) { renamed.append(ingredient.id) }
            }
            let ingredients = try Self.allIngredients(db)
            let known = Set(ingredients.keys)
            var seededIDs: Set<String> = []
            for recipe in seed.recipes {
                let valid: ValidRecipe
                do {
                    valid = try RecipeValidation.validate(new: recipe.draft, knownIngredients: known)
                } catch {
                    throw ServiceError.internal("seed recipe \(recipe.id) is invalid: \(error)")
                }
                try Self.write(
                    valid, key: .shared(recipe.id), id: recipe.id, origin: .builtIn, owner: nil, basedOn: nil, shared: false, version: version,
                    ingredients: ingredients, db)
                seededIDs.insert(recipe.id)
            }
            let existing = try String.fetchAll(db.cachedStatement(sql: "SELECT key FROM recipe WHERE origin = 'builtIn' AND deleted = 0"))
            for key in existing where !seededIDs.contains(key) {
                try Self.markDeleted(key: .shared(key), version: version, db)
            }
            try Self.reindexRecipes(using: renamed, ingredients: ingredients, db)
            try db.cachedStatement(sql: "UPDATE meta SET value = ? WHERE key = 'seedVersion'").execute(arguments: [seed.version])
            return SeedReport(seedVersion: seed.version, ingredients: seed.ingredients.count, recipes: seed.recipes.count, catalogVersion: version)
        }
        try refreshIngredientCache()
        return report
    }

    /// Adds or updates ingredients from an external source (the USDA importer), in one transaction.
    public func importIngredients(_ ingredients: [Ingredient], source: String) throws -> Int64 {
        let version = try writer.write { db -> Int64 in
            // Nothing imported, nothing changed: the version (what sync clients follow) stays.
            guard !ingredients.isEmpty else { return try Self.meta(db, "version") }
            let version = try Self.nextVersion(db)
            var renamed: [String] = []
            for ingredient in ingredients {
                if try Self.upsert(ingredient, source: source, version: version, db) { renamed.append(ingredient.id) }
            }
            try Self.reindexRecipes(using: renamed, ingredients: try Self.allIngredients(db), db)
            return version
        }
        try refreshIngredientCache()
        return version
    }

    func refreshIngredientCache() throws {
        let book = IngredientBook(all: try writer.read { try Self.allIngredients($0) })
        ingredientCache.withLock { $0 = book }
    }

    var ingredients: [String: Ingredient] { ingredientCache.withLock { $0.byID } }

    /// The id of the ingredient `text` names: an id, or a name or synonym in any case, with or
    /// without accents and a plural "s".
    public func ingredientID(named text: String) -> String? {
        ingredientCache.withLock { $0.id(named: text) }
    }

    // MARK: Ingredients

    /// Prefix and substring matches on the accent- and case-folded name and synonyms, best
    /// first: exact name or synonym, one starting with the text, a word starting with it, then
    /// any substring; shorter names first.
    public func searchIngredients(_ request: IngredientSearch) throws(ServiceError) -> [Ingredient] {
        let limit = request.limit ?? 10
        guard (1...50).contains(limit) else { throw .badRequest("limit must be 1 to 50, got \(limit)", field: "limit") }
        let text = folded(request.query.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !text.isEmpty else { throw .badRequest("type at least one character", field: "query") }
        guard text.count <= 100 else { throw .badRequest("query is longer than 100 characters", field: "query") }
        let pattern = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(
            of: "_", with: "\\_")
        return try storage {
            try writer.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(IngredientRecord.servedColumns),
                            CASE WHEN folded = :text OR folded_synonyms LIKE '%|' || :pattern || '|%' ESCAPE '\\' THEN 0
                                 WHEN folded LIKE :pattern || '%' ESCAPE '\\' OR folded_synonyms LIKE '%|' || :pattern || '%' ESCAPE '\\' THEN 1
                                 WHEN folded LIKE '% ' || :pattern || '%' ESCAPE '\\' OR folded LIKE '%-' || :pattern || '%' ESCAPE '\\'
                                      OR folded LIKE '%(' || :pattern || '%' ESCAPE '\\' OR folded_synonyms LIKE '% ' || :pattern || '%' ESCAPE '\\' THEN 2
                                 ELSE 3 END AS rank
                        FROM ingredient
                        WHERE folded LIKE '%' || :pattern || '%' ESCAPE '\\' OR folded_synonyms LIKE '%' || :pattern || '%' ESCAPE '\\'
                        ORDER BY rank, length(name), name
                        LIMIT :limit
                        """, arguments: ["text": text, "pattern": pattern, "limit": limit]
                ).map(IngredientRecord.ingredient)
            }
        }
    }

    /// Ingredients by id in the order asked.
    public func ingredients(_ ids: [String]) throws(ServiceError) -> [Ingredient] {
        guard ids.count <= 1000 else { throw .badRequest("at most 1000 ids per call", field: "ids") }
        let known = ingredients
        return try ids.enumerated().map { (index, id) throws(ServiceError) in
            guard let ingredient = known[id] else { throw .notFound("no ingredient \"\(id)\"", field: "ids.\(index)") }
            return ingredient
        }
    }
}
