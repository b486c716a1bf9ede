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
        let loaded = try database.read { try Self.meta($0, "seedVersion") }
        guard loaded < Int64(seed.version) else { return nil }
        return try reloadSeed(seed)
    }

    /// Writes the shipped ingredients and built-in recipes, removing built-ins the seed no longer
    /// has. Users' recipes, personal versions and favorites are kept.
    public func reloadSeed(_ seed: SeedData) throws -> SeedReport {
        let report = try database.write { session -> (SeedReport, Bool) in
            let version = try Self.nextVersion(session)
            var changes: [(id: String, change: IngredientChange)] = []
            // Only what the new release changed is written, many rows a statement: the USDA foods
            // are thousands.
            let before = try Self.allIngredients(session)
            let changed = seed.ingredients.map(IngredientRecord.asStored).filter { before[$0.id] != $0 }
            try session.insert(all: changed.map { IngredientRecord($0, source: "seed", version: version) }, onConflict: .replace)
            var ingredients = before
            for ingredient in changed {
                changes.append((ingredient.id, Self.change(from: before[ingredient.id], to: ingredient)))
                ingredients[ingredient.id] = ingredient
            }
            let known = Set(ingredients.keys)
            var seededIDs: Set<String> = []
            for recipe in seed.recipes {
                let valid: ValidRecipe
                do {
                    valid = try RecipeValidation.validate(new: recipe.draft, knownIngredients: known)
                } catch {
                    throw ServiceError.internal("seed recipe \(recipe.id) is invalid: \(error)")
                }
                try write(
                    valid, key: .shared(recipe.id), id: recipe.id, origin: .builtIn, owner: nil, basedOn: nil, shared: false, version: version,
                    ingredients: ingredients, session)
                seededIDs.insert(recipe.id)
            }
            let existing = try session.values(String.self, "SELECT key FROM recipe WHERE origin = 'builtIn' AND deleted = 0")
            for key in existing where !seededIDs.contains(key) {
                try markDeleted(key: .shared(key), version: version, session)
            }
            // Users' recipes follow the seed's new prices and facts (built-ins were written whole).
            try refreshRecipes(after: changes, ingredients: ingredients, version: version, session)
            try session.execute("UPDATE meta SET value = ? WHERE key = 'seedVersion'", [seed.version])
            return (
                SeedReport(seedVersion: seed.version, ingredients: seed.ingredients.count, recipes: seed.recipes.count, catalogVersion: version),
                !changed.isEmpty
            )
        }
        // Thousands of foods are read again only when the seed changed one.
        if report.1 { try refreshIngredientCache() }
        return report.0
    }

    /// Adds or updates ingredients from an external source (the USDA importer), in one transaction.
    public func importIngredients(_ ingredients: [Ingredient], source: String) throws -> Int64 {
        let (version, newestBefore) = try database.write { session -> (Int64, Int64?) in
            // Nothing imported, nothing changed: the version (what sync clients follow) stays.
            guard !ingredients.isEmpty else { return (try Self.meta(session, "version"), nil) }
            let newestBefore = try Self.newestIngredientVersion(session)
            let version = try Self.nextVersion(session)
            var changes: [(id: String, change: IngredientChange)] = []
            let before = try Self.ingredients(ids: ingredients.map(\.id), session)
            for ingredient in ingredients {
                try session.insert(IngredientRecord(ingredient, source: source, version: version), onConflict: .replace)
                changes.append((ingredient.id, Self.change(from: before[ingredient.id], to: ingredient)))
            }
            try refreshRecipes(
                after: changes, ingredients: try Self.ingredientsOfRecipes(using: ingredients.map(\.id), session), version: version, session)
            return (version, newestBefore)
        }
        guard let newestBefore else { return version }
        let previous = ingredientCache.withLock { $0 }
        if previous.version == newestBefore {
            // Memory held every ingredient as of this import: it takes the imported ones over
            // instead of reading thousands of foods again.
            var all = previous.byID
            for ingredient in ingredients { all[ingredient.id] = ingredient }
            let book = IngredientBook(all: all, version: version, previous: previous)
            ingredientCache.withLock { $0 = book }
        } else {
            try refreshIngredientCache()
        }
        return version
    }

    func refreshIngredientCache() throws {
        let previous = ingredientCache.withLock { $0 }
        let book = try database.read { session in
            IngredientBook(all: try Self.allIngredients(session), version: try Self.newestIngredientVersion(session), previous: previous)
        }
        ingredientCache.withLock { $0 = book }
    }

    /// The ingredients in memory, current with the database. On SQLite this process is the only
    /// writer and reloads them after its own imports. On PostgreSQL another replica may have
    /// imported meanwhile: one indexed read of the newest ingredient version tells whether to
    /// load them again (a failed read keeps what is in memory; the request's own transaction
    /// then reports the database).
    var ingredientBook: IngredientBook {
        let cached = ingredientCache.withLock { $0 }
        guard database.engine == .postgres,
            let version = try? database.read({ try Self.newestIngredientVersion($0) }), version != cached.version
        else { return cached }
        try? refreshIngredientCache()
        return ingredientCache.withLock { $0 }
    }

    var ingredients: [String: Ingredient] { ingredientBook.byID }

    static func newestIngredientVersion(_ session: any SQLSession) throws -> Int64 {
        try session.value(Int64.self, "SELECT MAX(version) FROM ingredient") ?? 0
    }

    /// The id of the ingredient `text` names: an id, or a name or synonym in any case, with or
    /// without accents and a plural "s".
    public func ingredientID(named text: String) -> String? {
        ingredientBook.id(named: text)
    }

    // MARK: Ingredients

    /// Prefix and substring matches on the accent- and case-folded name and synonyms, best
    /// first (``IngredientSearchIndex``): the curated ingredients before the USDA foods, then
    /// exact name or synonym, one starting with the text, a word starting with it, then any
    /// substring; shorter names first. Searched in memory, current with the database as the
    /// ingredients are (``ingredientBook``).
    public func searchIngredients(_ request: IngredientSearch) throws(ServiceError) -> [Ingredient] {
        let limit = request.limit ?? 10
        guard (1...50).contains(limit) else { throw .badRequest("limit must be 1 to 50, got \(limit)", field: "limit") }
        let text = folded(request.query.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !text.isEmpty else { throw .badRequest("type at least one character", field: "query") }
        guard text.count <= 100 else { throw .badRequest("query is longer than 100 characters", field: "query") }
        let book = ingredientBook
        return book.search.search(text, limit: limit).compactMap { book.byID[$0] }
    }

    /// Ingredients by id in the order asked.
    /// The ingredients `ids` name, in order: each an id, or a name or synonym as search takes
    /// it ("aubergine" is `eggplant`); the ingredient returned carries its id.
    public func ingredients(_ ids: [String]) throws(ServiceError) -> [Ingredient] {
        guard ids.count <= 1000 else { throw .badRequest("at most 1000 ids per call", field: "ids") }
        let known = ingredients
        return try ids.enumerated().map { (index, id) throws(ServiceError) in
            guard let ingredient = known[id] ?? ingredientID(named: id).flatMap({ known[$0] }) else {
                throw .notFound("no ingredient with the id, name or synonym \"\(id)\"", field: "ids.\(index)")
            }
            return ingredient
        }
    }
}
