import Foundation
import GRDB
import SousRuntime
public import SousSchema
public import SousWire
import Synchronization

/// Reading recipes: one by id, searches and the caller's own lists.
extension CatalogStore {
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

    func detail(of row: RecipeRecord, user: String?, people: Int?, _ db: Database) throws -> RecipeDetail {
        let lines = try Self.lines(key: row.key, db)
        let facts = try RecipeDerivation.derive(
            lines: lines, servings: row.servings, prepMinutes: row.prepMinutes, cookMinutes: row.cookMinutes, people: people, ingredients: ingredients
        )
        let favorite = try user.map { try Self.isFavorite(row.id, user: $0, db) } ?? false
        return RecipeDetail(
            id: row.id, name: row.name, summary: row.summary, servings: row.servings, prepMinutes: row.prepMinutes, cookMinutes: row.cookMinutes,
            energyLevel: row.energyLevel, equipment: row.equipment, dishTypes: row.dishTypes, link: row.link, image: row.image,
            steps: try row.decodedSteps(),
            ingredients: facts.lines, people: people ?? row.servings, diets: facts.diets, allergens: facts.allergens, contains: facts.contains,
            cost: facts.cost, costPerServing: facts.costPerServing, nutritionPerServing: facts.nutritionPerServing, origin: row.origin,
            owner: row.owner, basedOn: row.basedOn, shared: row.shared, isFavorite: favorite, version: row.version
        )
    }

    /// The last page a search or listing serves: 100 000 recipes at the largest page size, and
    /// offsets that stay far from overflow whatever a client sends.
    static let maxPage = 10_000

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
        let user = user ?? ""
        let book = ingredientCache.withLock { $0 }
        let built = try RecipeSearchQuery(request, filter: filter, ingredients: book)
        let matchExpression = built.matchExpression
        let conditions = built.conditions
        let arguments: [any DatabaseValueConvertible] = built.arguments.map { argument in
            switch argument {
            case .text(let text): text
            case .integer(let integer): integer
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
                    "SELECT \(RecipeRecord.columns(as: "r")), EXISTS (SELECT 1 FROM favorite f WHERE f.user = ? AND f.recipe_id = r.id) AS favorite"
                // Kept prepared: a text depends only on which filters apply (values are bound).
                func summaries(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> [RecipeSummary] {
                    try Self.summaries(Row.fetchAll(db.cachedStatement(sql: sql), arguments: sqlArguments(arguments)))
                }
                func count(_ from: String, _ arguments: [any DatabaseValueConvertible]) throws -> Int {
                    try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT COUNT(*) FROM (SELECT 1 \(from) LIMIT \(limit + 1))"), arguments: sqlArguments(arguments))
                        ?? 0
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
                            db.cachedStatement(
                                sql: "SELECT COUNT(*) FROM (SELECT 1 FROM recipe_fts WHERE recipe_fts MATCH ? LIMIT \(relevanceLimit + 1))"),
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
                let favorites = try String.fetchAll(db.cachedStatement(sql: "SELECT recipe_id FROM favorite WHERE user = ?"), arguments: [user])
                let favoriteWhere = favorites.isEmpty ? "0" : "r.id IN (SELECT value FROM json_each(?))"
                let otherWhere = favorites.isEmpty ? "1" : "r.id NOT IN (SELECT value FROM json_each(?))"
                let favoriteArguments: [any DatabaseValueConvertible] = favorites.isEmpty ? [] : [favorites.sqlJSONArray]
                let favoriteCount =
                    favorites.isEmpty ? 0 : try count("FROM recipe r WHERE \(whereSQL) AND \(favoriteWhere)", filterArguments + favoriteArguments)
                var recipes: [RecipeSummary] = []
                if offset < favoriteCount {
                    recipes = try summaries(
                        "\(selectSQL) FROM recipe r WHERE \(whereSQL) AND \(favoriteWhere) ORDER BY r.name COLLATE NOCASE, r.name LIMIT ? OFFSET ?",
                        [user] + filterArguments + favoriteArguments + [pageSize, offset]
                    )
                }
                if recipes.count < pageSize {
                    recipes += try summaries(
                        "\(selectSQL) FROM recipe r WHERE \(whereSQL) AND \(otherWhere) ORDER BY r.name COLLATE NOCASE, r.name LIMIT ? OFFSET ?",
                        [user] + filterArguments + favoriteArguments + [pageSize - recipes.count, max(offset - favoriteCount, 0)]
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
        // INDEXED BY: without statistics SQLite prefers the covering search index and walks
        // every recipe (9 ms at 100 000, 90 ms at a million: the cost of every search).
        let shadowed = try String.fetchAll(
            db.cachedStatement(sql: "SELECT id FROM recipe INDEXED BY recipe_by_owner WHERE owner = ? AND origin = 'personal' AND deleted = 0"),
            arguments: [user])
        var sql = "(r.origin = 'builtIn' OR r.owner = ?)"
        var arguments: [any DatabaseValueConvertible] = [user]
        if !shadowed.isEmpty {
            sql = "(\(sql) AND NOT (r.origin != 'personal' AND r.id IN (SELECT value FROM json_each(?))))"
            arguments.append(shadowed.sqlJSONArray)
        }
        return (sql, arguments)
    }

    public func myRecipes(user: String) throws(ServiceError) -> [RecipeSummary] {
        try storage {
            try writer.read { db in
                try Self.summaries(
                    Row.fetchAll(
                        db,
                        sql: """
                            SELECT \(RecipeRecord.columns(as: "r")), f.user IS NOT NULL AS favorite
                            FROM recipe r INDEXED BY recipe_by_owner LEFT JOIN favorite f ON f.recipe_id = r.id AND f.user = ?
                            WHERE r.owner = ? AND r.deleted = 0 ORDER BY r.name COLLATE NOCASE, r.name
                            """, arguments: [user, user]
                    ))
            }
        }
    }

    /// Summaries of a page's rows (recipe columns plus `favorite`), the column positions found
    /// once for the page.
    static func summaries(_ rows: [Row]) throws -> [RecipeSummary] {
        guard let first = rows.first else { return [] }
        let positions = ColumnPositions(first)
        let favorite = Column("favorite")
        return try rows.map { row in
            try RecipeRecord(row: row, positions: positions).summary(isFavorite: positions.value(favorite, in: row))
        }
    }
}
