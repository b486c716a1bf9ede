import Foundation
import GRDB
public import SousRuntime
public import SousSchema
public import SousWire
import Synchronization

/// The catalog's data: every read and write, each write one transaction.
///
/// Ingredients are few and change only on seed loads and imports, so they are also kept in
/// memory for deriving recipe facts; this process is the only one that opens the file.
public final class CatalogStore: Sendable {
    public let database: SousDatabase
    private let ingredientCache = Mutex(IngredientBook(all: [:]))
    private var writer: SousDatabase { database }

    /// Text searches matching at most this many recipes are ordered by relevance (bm25);
    /// broader ones newest first (see ``searchRecipes(_:user:filter:)``).
    public let relevanceLimit: Int

    public init(database: SousDatabase, relevanceLimit: Int = 1000) throws {
        self.database = database
        self.relevanceLimit = relevanceLimit
        try refreshIngredientCache()
    }

    public var catalogVersion: Int64 {
        get throws { try writer.read { try Self.meta($0, "version") } }
    }

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
                    valid, key: recipe.id, id: recipe.id, origin: .builtIn, owner: nil, basedOn: nil, shared: false, version: version,
                    ingredients: ingredients, db)
                seededIDs.insert(recipe.id)
            }
            let existing = try String.fetchAll(db, sql: "SELECT key FROM recipe WHERE origin = 'builtIn' AND deleted = 0")
            for key in existing where !seededIDs.contains(key) {
                try Self.markDeleted(key: key, version: version, db)
            }
            try Self.reindexRecipes(using: renamed, ingredients: ingredients, db)
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'seedVersion'", arguments: [seed.version])
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

    private func refreshIngredientCache() throws {
        let book = IngredientBook(all: try writer.read { try Self.allIngredients($0) })
        ingredientCache.withLock { $0 = book }
    }

    private var ingredients: [String: Ingredient] { ingredientCache.withLock { $0.byID } }

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
                        SELECT \(Ingredient.columns),
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
                ).map(Ingredient.init(row:))
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

    // MARK: Recipes: reading

    public func recipe(_ id: String, user: String?, people: Int?) throws(ServiceError) -> RecipeDetail {
        if let people, !(1...50).contains(people) {
            throw .badRequest("people must be 1 to 50, got \(people)", field: "people")
        }
        return try storage {
            try writer.read { db in
                guard let row = try Self.resolve(id, user: user, db) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                return try detail(of: row, user: user, people: people, db)
            }
        }
    }

    func detail(of row: RecipeRow, user: String?, people: Int?, _ db: Database) throws -> RecipeDetail {
        let lines = try Self.lines(key: row.key, db)
        let facts = try RecipeDerivation.derive(
            lines: lines, servings: row.servings, prepMinutes: row.prepMinutes, cookMinutes: row.cookMinutes, people: people, ingredients: ingredients
        )
        let favorite = try user.map { try Self.isFavorite(row.id, user: $0, db) } ?? false
        return RecipeDetail(
            id: row.id, name: row.name, summary: row.summary, servings: row.servings, prepMinutes: row.prepMinutes, cookMinutes: row.cookMinutes,
            energyLevel: row.energyLevel, equipment: row.equipment, dishTypes: row.dishTypes, link: row.link, image: row.image, steps: row.steps,
            ingredients: facts.lines, people: people ?? row.servings, diets: facts.diets, allergens: facts.allergens, contains: facts.contains,
            cost: facts.cost, costPerServing: facts.costPerServing, nutritionPerServing: facts.nutritionPerServing, origin: row.origin,
            owner: row.owner, basedOn: row.basedOn, shared: row.shared, isFavorite: favorite, version: row.version
        )
    }

    /// The last page a search or listing serves: 100 000 recipes at the largest page size, and
    /// offsets that stay far from overflow whatever a client sends.
    static let maxPage = 10_000
    /// Ingredients one search may require; each is a condition of the query.
    static let maxSearchIngredients = 20
    /// Disliked ingredients a filter profile may list (the planner keeps saved ones within it).
    static let maxDislikes = 200

    /// Page, page size and row offset, range-checked (badRequest naming the field).
    static func paging(page: Int?, pageSize: Int?) throws(ServiceError) -> (page: Int, pageSize: Int, offset: Int) {
        let page = page ?? 1
        let pageSize = pageSize ?? 20
        guard (1...maxPage).contains(page) else { throw .badRequest("page must be 1 to \(maxPage), got \(page)", field: "page") }
        guard (1...100).contains(pageSize) else { throw .badRequest("pageSize must be 1 to 100, got \(pageSize)", field: "pageSize") }
        return (page, pageSize, (page - 1) * pageSize)
    }

    /// Most matches a search counts exactly; beyond it the page says "more than". Counting stops
    /// there so a broad filter on a large catalog stays within a few milliseconds.
    public static let countLimit = 200

    /// Recipes matching `request` for `user`, filtered by `filter` (already resolved from the
    /// request or the saved profile). Favorites come first unless a search text is given.
    ///
    /// Every condition is an integer test on the row or a membership test in a set SQLite
    /// builds once per query, so the name-ordered index can be walked and stopped at the page.
    public func searchRecipes(
        _ request: RecipeSearch, user: String?, filter: (profile: RecipeFilterProfile, switches: FilterSwitches)?
    ) throws(ServiceError) -> RecipePage {
        let (page, pageSize, offset) = try Self.paging(page: request.page, pageSize: request.pageSize)
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        let user = user ?? ""

        var matchExpression: String?
        if let query = request.query?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty {
            guard query.count <= 200 else { throw .badRequest("query is longer than 200 characters", field: "query") }
            let words = folded(query).split { !$0.isLetter && !$0.isNumber }.map(String.init)
            if !words.isEmpty { matchExpression = words.map { "\"\($0)\"*" }.joined(separator: " ") }
        }
        let known = ingredients
        if let count = request.ingredients?.count, count > Self.maxSearchIngredients {
            throw .badRequest("at most \(Self.maxSearchIngredients) ingredients per search, got \(count)", field: "ingredients")
        }
        for (index, ingredient) in (request.ingredients ?? []).enumerated() {
            guard let id = ingredientID(named: ingredient) else {
                throw .notFound("no ingredient with the id, name or synonym \"\(ingredient)\"", field: "ingredients.\(index)")
            }
            conditions.append("r.key IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id = ?)")
            arguments.append(id)
        }
        if let levels = request.energyLevels, !levels.isEmpty {
            for (index, level) in levels.enumerated() where !(1...5).contains(level) {
                throw .badRequest("energy levels are 1 to 5, got \(level)", field: "energyLevels.\(index)")
            }
            // At most five distinct values, whatever the list's length.
            conditions.append("r.energy_level IN (\(Set(levels).sorted().map(String.init).joined(separator: ",")))")
        }
        if let dishType = request.dishType {
            conditions.append("(r.dish_types & \(Bitmask.of([dishType]))) != 0")
        }
        if let (profile, switches) = filter {
            if switches.diets ?? true, !profile.diets.isEmpty {
                let mask = Bitmask.of(profile.diets)
                conditions.append("(r.diets & \(mask)) = \(mask)")
            }
            if switches.allergens ?? true, !profile.allergens.isEmpty {
                conditions.append("(r.allergens & \(Bitmask.of(profile.allergens))) = 0")
            }
            if switches.dislikes ?? true, !profile.dislikes.isEmpty {
                guard profile.dislikes.count <= Self.maxDislikes else {
                    throw .badRequest("at most \(Self.maxDislikes) disliked ingredients, got \(profile.dislikes.count)", field: "profile.dislikes")
                }
                for (index, id) in profile.dislikes.enumerated() where known[id] == nil {
                    throw .notFound("no ingredient \"\(id)\"", field: "profile.dislikes.\(index)")
                }
                let placeholders = profile.dislikes.map { _ in "?" }.joined(separator: ",")
                conditions.append("r.key NOT IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (\(placeholders)))")
                arguments.append(contentsOf: profile.dislikes)
            }
            if switches.equipment ?? true {
                let missing = Bitmask.of(Appliance.allCases.filter { !profile.equipment.contains($0) })
                if missing != 0 { conditions.append("(r.equipment & \(missing)) = 0") }
            }
            if switches.patience ?? true {
                guard (1...5).contains(profile.patience) else {
                    throw .badRequest("patience must be 1 to 5, got \(profile.patience)", field: "profile.patience")
                }
                conditions.append("r.energy_level <= \(profile.patience)")
            }
        }
        let conditionsSQL = conditions.isEmpty ? "" : " AND " + conditions.joined(separator: " AND ")
        let limit = Self.countLimit
        return try storage {
            try writer.read { db in
                let (scopeSQL, scopeArguments) = try Self.searchScope(user: user, db)
                let whereSQL = "r.deleted = 0 AND \(scopeSQL)\(conditionsSQL)"
                let filterArguments = scopeArguments + arguments
                let selectSQL =
                    "SELECT \(RecipeRow.columns(as: "r")), EXISTS (SELECT 1 FROM favorite f WHERE f.user = ? AND f.recipe_id = r.id) AS favorite"
                func summaries(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> [RecipeSummary] {
                    try Row.fetchAll(db, sql: sql, arguments: sqlArguments(arguments)).map {
                        try RecipeRow(row: $0).summary(isFavorite: $0["favorite"])
                    }
                }
                func count(_ from: String, _ arguments: [any DatabaseValueConvertible]) throws -> Int {
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT 1 \(from) LIMIT \(limit + 1))", arguments: sqlArguments(arguments)) ?? 0
                }
                if let matchExpression {
                    let total = try count(
                        "FROM recipe_fts CROSS JOIN recipe r ON r.rowid = recipe_fts.rowid WHERE recipe_fts MATCH ? AND \(whereSQL)",
                        [matchExpression] + filterArguments
                    )
                    func pageOf(_ recipes: [RecipeSummary]) -> RecipePage {
                        RecipePage(recipes: recipes, total: min(total, limit), page: page, pageSize: pageSize, totalIsExact: total <= limit)
                    }
                    // bm25 costs time for every match, so a query matching more recipes than
                    // `relevanceLimit` lists them newest first: FTS5 walks its index in that order
                    // and the walk stops at the page, whatever the catalog's size.
                    let matches =
                        try Int.fetchOne(
                            db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM recipe_fts WHERE recipe_fts MATCH ? LIMIT \(relevanceLimit + 1))",
                            arguments: [matchExpression]
                        ) ?? 0
                    if matches > relevanceLimit {
                        return pageOf(
                            try summaries(
                                "\(selectSQL) FROM recipe_fts CROSS JOIN recipe r ON r.rowid = recipe_fts.rowid WHERE recipe_fts MATCH ? AND \(whereSQL) ORDER BY recipe_fts.rowid DESC LIMIT ? OFFSET ?",
                                [user, matchExpression] + filterArguments + [pageSize, offset]
                            ))
                    }
                    // By relevance, then rowid (a total order). FTS5 ranks its matches alone and
                    // only the best `window` are joined and filtered: the page is exact once the
                    // window yields a full page (anything outside ranks after everything inside);
                    // otherwise every match is ranked.
                    var window: Int? = max((offset + pageSize) * 4, 200)
                    while true {
                        var rankedSQL = "SELECT rowid AS rid, rank AS rk FROM recipe_fts WHERE recipe_fts MATCH ? ORDER BY rank, rowid"
                        var arguments: [any DatabaseValueConvertible] = [matchExpression]
                        if let window {
                            rankedSQL += " LIMIT ?"
                            arguments.append(window)
                        }
                        let recipes = try summaries(
                            "\(selectSQL) FROM (\(rankedSQL)) c CROSS JOIN recipe r ON r.rowid = c.rid WHERE \(whereSQL) ORDER BY c.rk, c.rid LIMIT ? OFFSET ?",
                            [user] + arguments + filterArguments + [pageSize, offset]
                        )
                        if recipes.count == pageSize || window == nil { return pageOf(recipes) }
                        window = nil
                    }
                }
                // Favorites first (a short list), then everyone else by name along the name index.
                let favorites = try String.fetchAll(db, sql: "SELECT recipe_id FROM favorite WHERE user = ?", arguments: [user])
                let favoriteList = favorites.map { _ in "?" }.joined(separator: ",")
                let favoriteWhere = favorites.isEmpty ? "0" : "r.id IN (\(favoriteList))"
                let otherWhere = favorites.isEmpty ? "1" : "r.id NOT IN (\(favoriteList))"
                let favoriteCount =
                    favorites.isEmpty ? 0 : try count("FROM recipe r WHERE \(whereSQL) AND \(favoriteWhere)", filterArguments + favorites)
                var recipes: [RecipeSummary] = []
                if offset < favoriteCount {
                    recipes = try summaries(
                        "\(selectSQL) FROM recipe r WHERE \(whereSQL) AND \(favoriteWhere) ORDER BY r.name COLLATE NOCASE, r.name LIMIT ? OFFSET ?",
                        [user] + filterArguments + favorites + [pageSize, offset]
                    )
                }
                if recipes.count < pageSize {
                    recipes += try summaries(
                        "\(selectSQL) FROM recipe r WHERE \(whereSQL) AND \(otherWhere) ORDER BY r.name COLLATE NOCASE, r.name LIMIT ? OFFSET ?",
                        [user] + filterArguments + favorites + [pageSize - recipes.count, max(offset - favoriteCount, 0)]
                    )
                }
                let total = try count("FROM recipe r WHERE \(whereSQL)", filterArguments)
                return RecipePage(recipes: recipes, total: min(total, limit), page: page, pageSize: pageSize, totalIsExact: total <= limit)
            }
        }
    }

    /// What a user's search covers: built-ins they have not replaced with a personal version,
    /// and their own recipes (custom, personal, saved).
    static func searchScope(user: String, _ db: Database) throws -> (String, [any DatabaseValueConvertible]) {
        let shadowed = try String.fetchAll(
            db, sql: "SELECT id FROM recipe WHERE owner = ? AND origin = 'personal' AND deleted = 0", arguments: [user])
        var sql = "(r.origin = 'builtIn' OR r.owner = ?)"
        var arguments: [any DatabaseValueConvertible] = [user]
        if !shadowed.isEmpty {
            sql = "(\(sql) AND NOT (r.origin != 'personal' AND r.id IN (\(shadowed.map { _ in "?" }.joined(separator: ",")))))"
            arguments += shadowed
        }
        return (sql, arguments)
    }

    public func myRecipes(user: String) throws(ServiceError) -> [RecipeSummary] {
        try storage {
            try writer.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(RecipeRow.columns(as: "r")), f.user IS NOT NULL AS favorite
                        FROM recipe r LEFT JOIN favorite f ON f.recipe_id = r.id AND f.user = ?
                        WHERE r.owner = ? AND r.deleted = 0 ORDER BY r.name COLLATE NOCASE, r.name
                        """, arguments: [user, user]
                ).map { try RecipeRow(row: $0).summary(isFavorite: $0["favorite"]) }
            }
        }
    }

    // MARK: Recipes: writing

    public func create(_ draft: RecipeDraft, user: String) throws(ServiceError) -> RecipeDetail {
        let valid = try RecipeValidation.validate(new: draft, knownIngredients: Set(ingredients.keys))
        let id = "r-" + UUID().uuidString.lowercased().prefix(12)
        return try storage {
            try writer.write { db in
                try Self.checkRecipeQuota(user: user, db)
                let version = try Self.nextVersion(db)
                try Self.write(
                    valid, key: id, id: id, origin: .custom, owner: user, basedOn: nil, shared: false, version: version, ingredients: ingredients, db)
                return try detail(of: Self.resolve(id, user: user, db)!, user: user, people: nil, db)
            }
        }
    }

    /// Edits a recipe. The user's own recipes change in place; anyone else's (or a built-in)
    /// becomes the user's personal version, which only that user sees in place of the original.
    public func edit(_ id: String, changes: RecipeDraft, user: String) throws(ServiceError) -> RecipeDetail {
        let known = Set(ingredients.keys)
        return try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                var current = row.asValidRecipe
                current.ingredients = try Self.lines(key: row.key, db)
                let updated: ValidRecipe
                do {
                    updated = try RecipeValidation.apply(changes, to: current, knownIngredients: known)
                } catch let error as ServiceError {
                    // The request's fields are under `changes`.
                    throw error.nested(under: "changes")
                }
                let version = try Self.nextVersion(db)
                if row.owner == user {
                    try Self.write(
                        updated, key: row.key, id: row.id, origin: row.origin, owner: user, basedOn: row.basedOn, shared: row.shared,
                        version: version, ingredients: ingredients, db)
                } else {
                    try Self.checkRecipeQuota(user: user, db)
                    try Self.write(
                        updated, key: RecipeKey.personal(row.id, of: user).rawValue, id: row.id, origin: .personal, owner: user, basedOn: row.id,
                        shared: false, version: version, ingredients: ingredients, db)
                }
                return try detail(of: Self.resolve(id, user: user, db)!, user: user, people: nil, db)
            }
        }
    }

    /// Deletes one of the user's recipes. Deleting a personal version brings the original back.
    public func delete(_ id: String, user: String) throws(ServiceError) -> Int64 {
        try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                guard row.owner == user else {
                    throw ServiceError(
                        .unauthorized, "\(row.origin == .builtIn ? "built-in recipes" : "other people's recipes") cannot be deleted", field: "id")
                }
                let version = try Self.nextVersion(db)
                try Self.markDeleted(key: row.key, version: version, db)
                return version
            }
        }
    }

    public func setFavorite(_ id: String, user: String, favorite: Bool) throws(ServiceError) {
        try storage {
            try writer.write { db in
                guard try Self.resolve(id, user: user, db) != nil else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                if favorite {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO favorite (user, recipe_id, created_at) VALUES (?, ?, ?)",
                        arguments: [user, id, Date().timeIntervalSince1970])
                } else {
                    try db.execute(sql: "DELETE FROM favorite WHERE user = ? AND recipe_id = ?", arguments: [user, id])
                }
            }
        }
    }

    public func favorites(user: String) throws(ServiceError) -> [RecipeSummary] {
        try storage {
            try writer.read { db in
                let ids = try String.fetchAll(db, sql: "SELECT recipe_id FROM favorite WHERE user = ? ORDER BY created_at", arguments: [user])
                return try ids.compactMap { try Self.resolve($0, user: user, db)?.summary(isFavorite: true) }
            }
        }
    }

    public func share(_ id: String, user: String) throws(ServiceError) -> RecipeSummary {
        try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                guard row.owner == user, row.origin == .custom || row.origin == .saved else {
                    throw ServiceError(.unauthorized, "only recipes you wrote can be shared; save a copy first", field: "id")
                }
                let version = try Self.nextVersion(db)
                try db.execute(sql: "UPDATE recipe SET shared = 1, version = ? WHERE key = ?", arguments: [version, row.key])
                return try Self.resolve(id, user: user, db)!.summary(isFavorite: Self.isFavorite(id, user: user, db))
            }
        }
    }

    /// Shared recipes, most favorited first, optionally narrowed by a search text.
    public func community(_ request: RecipeSearch, user: String?) throws(ServiceError) -> CommunityPage {
        let (_, pageSize, offset) = try Self.paging(page: request.page, pageSize: request.pageSize)
        var condition = ""
        var arguments: [any DatabaseValueConvertible] = [user ?? ""]
        if let query = request.query, !query.isEmpty {
            let words = folded(query).split { !$0.isLetter && !$0.isNumber }.map { "\"\($0)\"*" }
            if !words.isEmpty {
                condition = " AND r.rowid IN (SELECT rowid FROM recipe_fts WHERE recipe_fts MATCH ?)"
                arguments.append(words.joined(separator: " "))
            }
        }
        let filterArguments = arguments.dropFirst()
        return try storage {
            try writer.read { db in
                let total =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM recipe r WHERE r.shared = 1 AND r.deleted = 0\(condition)",
                        arguments: sqlArguments(Array(filterArguments))) ?? 0
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(RecipeRow.columns(as: "r")),
                            (SELECT COUNT(*) FROM favorite f WHERE f.recipe_id = r.id) AS favorites,
                            EXISTS (SELECT 1 FROM favorite f WHERE f.recipe_id = r.id AND f.user = ?) AS mine
                        FROM recipe r WHERE r.shared = 1 AND r.deleted = 0\(condition)
                        ORDER BY favorites DESC, r.name COLLATE NOCASE, r.name LIMIT ? OFFSET ?
                        """, arguments: sqlArguments(arguments + [pageSize, offset]))
                let recipes = try rows.map { row in
                    let recipe = try RecipeRow(row: row)
                    return CommunityRecipe(
                        recipe: recipe.summary(isFavorite: row["mine"]), favoriteCount: row["favorites"], sharedBy: recipe.owner ?? "")
                }
                return CommunityPage(recipes: recipes, total: total)
            }
        }
    }

    /// Copies a shared recipe into the user's own recipes.
    public func saveCommunity(_ id: String, user: String) throws(ServiceError) -> RecipeDetail {
        try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db), row.shared else {
                    throw ServiceError.notFound("no shared recipe \"\(id)\"", field: "id")
                }
                var copy = row.asValidRecipe
                copy.ingredients = try Self.lines(key: row.key, db)
                try Self.checkRecipeQuota(user: user, db)
                let newID = "r-" + UUID().uuidString.lowercased().prefix(12)
                let version = try Self.nextVersion(db)
                try Self.write(
                    copy, key: newID, id: newID, origin: .saved, owner: user, basedOn: row.id, shared: false, version: version,
                    ingredients: ingredients, db)
                return try detail(of: Self.resolve(newID, user: user, db)!, user: user, people: nil, db)
            }
        }
    }

    // MARK: Sync

    /// What changed for `user` after `version`: recipes now visible to them that changed, ids to
    /// forget, and changed ingredients.
    public func changes(since version: Int64, user: String?) throws(ServiceError) -> CatalogChanges {
        guard version >= 0 else { throw .badRequest("version cannot be negative", field: "version") }
        let user = user ?? ""
        return try storage {
            try writer.read { db in
                let current = try Self.meta(db, "version")
                let changedIDs = try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT id FROM recipe
                        WHERE version > ? AND (origin = 'builtIn' OR owner = ? OR shared = 1)
                        """, arguments: [version, user])
                var recipes: [RecipeDetail] = []
                var deleted: [String] = []
                // The user's library: built-in recipes, their own, and shared ones they favorited.
                let favorites = Set(try String.fetchAll(db, sql: "SELECT recipe_id FROM favorite WHERE user = ?", arguments: [user]))
                for id in changedIDs {
                    if let row = try Self.resolve(id, user: user, db),
                        row.origin == .builtIn || row.owner == user || (row.shared && favorites.contains(id))
                    {
                        recipes.append(try detail(of: row, user: user, people: nil, db))
                    } else {
                        deleted.append(id)
                    }
                }
                let ingredients = try Row.fetchAll(
                    db, sql: "SELECT \(Ingredient.columns) FROM ingredient WHERE version > ? ORDER BY id", arguments: [version]
                )
                .map(Ingredient.init(row:))
                return CatalogChanges(version: current, recipes: recipes, deletedRecipes: deleted.sorted(), ingredients: ingredients)
            }
        }
    }

    // MARK: SQL helpers

    /// Runs database work, passing ServiceErrors through and reporting anything else as internal.
    private func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
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
                ingredient: $0[0], quantity: $0[1], unit: MeasureUnit(rawValue: $0[2]) ?? .g, use: IngredientUse(rawValue: $0[3]) ?? .eaten,
                eatenShare: $0[4]
            )
        }
    }

    static func isFavorite(_ id: String, user: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM favorite WHERE user = ? AND recipe_id = ?", arguments: [user, id]) ?? false
    }
}

/// Statement arguments from a list built up alongside the SQL.
func sqlArguments(_ values: [any DatabaseValueConvertible]) -> StatementArguments {
    StatementArguments(values.map { Optional($0) })
}

/// The catalog's ingredients in memory, by id and by every name a cook may type.
struct IngredientBook: Sendable {
    let byID: [String: Ingredient]
    /// Folded name or synonym → id. A name wins over another ingredient's synonym; between
    /// equals, the smaller id (so the answer does not depend on load order).
    let byName: [String: String]

    init(all: [String: Ingredient]) {
        byID = all
        var names: [String: String] = [:]
        for ingredient in all.values.sorted(by: { $0.id < $1.id }) {
            for synonym in ingredient.synonyms where names[folded(synonym)] == nil { names[folded(synonym)] = ingredient.id }
        }
        for ingredient in all.values.sorted(by: { $0.id > $1.id }) { names[folded(ingredient.name)] = ingredient.id }
        byName = names
    }

    func id(named text: String) -> String? {
        if byID[text] != nil { return text }
        let key = folded(text.trimmingCharacters(in: .whitespacesAndNewlines)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !key.isEmpty else { return nil }
        // Singular or plural, whichever the catalog's name uses: "aubergines", "strawberry".
        var candidates = [key, key + "s", key + "es"]
        if key.hasSuffix("es") { candidates.append(String(key.dropLast(2))) }
        if key.hasSuffix("s") { candidates.append(String(key.dropLast())) }
        if key.hasSuffix("ies") { candidates.append(key.dropLast(3) + "y") }
        if key.hasSuffix("y") { candidates.append(key.dropLast() + "ies") }
        if key.hasSuffix("f") { candidates.append(key.dropLast() + "ves") }
        if key.hasSuffix("ves") { candidates.append(key.dropLast(3) + "f") }
        for candidate in candidates {
            if let id = byName[candidate] { return id }
            let slug = candidate.replacingOccurrences(of: " ", with: "-")
            if byID[slug] != nil { return slug }
        }
        return nil
    }
}
