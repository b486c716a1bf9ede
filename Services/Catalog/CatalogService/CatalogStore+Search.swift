import Foundation
import GRDB
import SousRuntime
public import SousSchema
public import SousWire
import Synchronization

/// Reading recipes: one by id, searches and the caller's own lists.
extension CatalogStore {
    // MARK: Recipes: reading

    /// The recipe `user` sees under `id`, for `people` (its own servings when nil);
    /// `withIngredients` adds the facts of every ingredient in line order (what a grocery list
    /// needs).
    public func recipe(_ id: String, user: String?, people: Int?, withIngredients: Bool = false) throws(ServiceError) -> RecipeDetail {
        if let people, !(1...50).contains(people) {
            throw .badRequest("people must be 1 to 50, got \(people)", field: "people")
        }
        let book = ingredientBook
        return try storage {
            try database.read { session in
                guard let row = try resolve(id, user: user, session) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                var detail = try self.detail(of: row, user: user, people: people, ingredients: book.byID, session)
                if withIngredients { detail.ingredientFacts = try Self.facts(of: detail, in: book) }
                return detail
            }
        }
    }

    /// The facts of each ingredient of `detail`, once each, in line order.
    static func facts(of detail: RecipeDetail, in book: IngredientBook) throws -> [Ingredient] {
        var ids: [String] = []
        for line in detail.ingredients where !ids.contains(line.ingredient) { ids.append(line.ingredient) }
        return try ids.map { id in
            guard let ingredient = book.byID[id] else {
                throw ServiceError.internal("\(detail.id) uses an ingredient the catalog does not have: \(id)")
            }
            return ingredient
        }
    }

    /// `ingredients` are read before the transaction (``ingredientBook``): reading them inside
    /// it would take a second connection on PostgreSQL.
    func detail(
        of row: RecipeRecord, user: String?, people: Int?, ingredients: [String: Ingredient], _ session: any SQLSession
    ) throws -> RecipeDetail {
        let lines = try Self.lines(key: row.key, session)
        let facts = try RecipeDerivation.derive(
            lines: lines, servings: row.servings, prepMinutes: row.prepMinutes, cookMinutes: row.cookMinutes, people: people, ingredients: ingredients
        )
        let favorite = try user.map { try Self.isFavorite(row.id, user: $0, session) } ?? false
        return RecipeDetail(
            id: row.id, name: row.name, summary: row.summary, servings: row.servings, prepMinutes: row.prepMinutes, cookMinutes: row.cookMinutes,
            energyLevel: row.energyLevel, equipment: row.equipment, dishTypes: row.dishTypes, link: row.link, image: row.image,
            steps: try row.decodedSteps(),
            ingredients: facts.lines, people: people ?? row.servings, diets: facts.diets, allergens: facts.allergens, contains: facts.contains,
            cost: facts.cost, costPerServing: facts.costPerServing, nutritionPerServing: facts.nutritionPerServing, origin: row.origin,
            owner: row.owner, basedOn: row.basedOn, shared: row.shared, isFavorite: favorite, version: row.version, notes: row.notes,
            variations: try row.decodedVariations(), tags: row.tags, photo: row.photo, unpriced: facts.unpriced
        )
    }

    /// The photo of the recipe `user` sees under `id`.
    public func photo(_ id: String, user: String?) throws(ServiceError) -> RecipePhoto {
        try storage {
            try database.read { session in
                guard let row = try resolve(id, user: user, session) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                guard let info = row.photo,
                    let bytes = try session.value(Data.self, "SELECT bytes FROM recipe_photo WHERE recipe_key = ?", [row.key.rawValue])
                else { throw ServiceError.notFound("recipe \"\(id)\" has no photo", field: "id") }
                return RecipePhoto(id: row.id, type: info.type, photo: bytes)
            }
        }
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
    public func searchRecipes(
        _ request: RecipeSearch, user: String?, filter: (profile: RecipeFilterProfile, switches: FilterSwitches)?
    ) throws(ServiceError) -> RecipePage {
        _ = try Self.paging(page: request.page, pageSize: request.pageSize)
        let book = ingredientBook
        return try storage { try database.read { session in try readSearch(request, user: user ?? "", filter: filter, book: book, session) } }
    }

    /// The search itself, in `session`.
    ///
    /// Every condition is an integer test on the row or a membership test in a set SQLite
    /// builds once per query, so the name-ordered index can be walked and stopped at the page.
    func readSearch(
        _ request: RecipeSearch, user: String, filter: (profile: RecipeFilterProfile, switches: FilterSwitches)?, book: IngredientBook,
        _ session: any SQLSession
    ) throws -> RecipePage {
        let (page, pageSize, offset) = try Self.paging(page: request.page, pageSize: request.pageSize)
        let sql = sql
        let built = try RecipeSearchQuery(request, filter: filter, ingredients: book, engine: sql.engine)
        let matchExpression = built.matchExpression
        let conditions = built.conditions
        let arguments = built.sqlArguments
        let conditionsSQL = conditions.isEmpty ? "" : " AND " + conditions.joined(separator: " AND ")
        let limit = Self.countLimit
        let (scopeSQL, scopeArguments) = try searchScope(user: user, session)
        let whereSQL = "r.deleted = 0 AND \(scopeSQL)\(conditionsSQL)"
        let filterArguments = scopeArguments + arguments
        let selectSQL =
            #"SELECT \#(sql.recipeColumns), EXISTS (SELECT 1 FROM favorite f WHERE f."user" = ? AND f.recipe_id = r.id) AS favorite"#
        // Kept prepared: a text depends only on which filters apply (values are bound).
        func summaries(_ text: String, _ arguments: SQLArguments) throws -> [RecipeSummary] {
            try Self.summaries(session.rows(text, arguments), session.engine)
        }
        func count(_ from: String, _ arguments: SQLArguments) throws -> Int {
            try session.value(Int.self, "SELECT COUNT(*) FROM (SELECT 1 \(from) LIMIT \(limit + 1)) AS counted", arguments) ?? 0
        }
        if let ranking = built.onHand {
            return try rankedByUse(
                ranking, matching: matchExpression, selectSQL: selectSQL, whereSQL: whereSQL, user: user, filterArguments: filterArguments,
                book: book, page: page, pageSize: pageSize, offset: offset, session)
        }
        if let matchExpression {
            let total = try count("\(sql.textMatches) AND \(whereSQL)", [matchExpression] + filterArguments)
            func pageOf(_ recipes: [RecipeSummary]) -> RecipePage {
                RecipePage(recipes: recipes, total: min(total, limit), page: page, pageSize: pageSize, totalIsExact: total <= limit)
            }
            switch sql.engine {
            case .sqlite:
                return pageOf(
                    try rankedBySQLite(
                        matchExpression, inNames: built.nameMatchExpression ?? matchExpression, selectSQL: selectSQL, whereSQL: whereSQL, user: user,
                        filterArguments: filterArguments,
                        pageSize: pageSize, offset: offset, session))
            case .postgres:
                return pageOf(
                    try rankedByPostgres(
                        matchExpression, matching: total, selectSQL: selectSQL, whereSQL: whereSQL, user: user, filterArguments: filterArguments,
                        pageSize: pageSize, offset: offset, session))
            }
        }
        // Favorites first (a short list), then everyone else by name along the name index.
        let favorites = try session.values(String.self, #"SELECT recipe_id FROM favorite WHERE "user" = ?"#, [user])
        let favoriteWhere = favorites.isEmpty ? "1 = 0" : "r.id IN (\(sql.engine.jsonArrayValues))"
        let otherWhere = favorites.isEmpty ? "1 = 1" : "r.id NOT IN (\(sql.engine.jsonArrayValues))"
        let favoriteArguments: SQLArguments = favorites.isEmpty ? [] : [favorites.sqlJSONArray]
        let favoriteCount =
            favorites.isEmpty ? 0 : try count("FROM recipe r WHERE \(whereSQL) AND \(favoriteWhere)", filterArguments + favoriteArguments)
        var recipes: [RecipeSummary] = []
        if offset < favoriteCount {
            recipes = try summaries(
                "\(selectSQL) FROM recipe r WHERE \(whereSQL) AND \(favoriteWhere) ORDER BY \(sql.nameOrder) LIMIT ? OFFSET ?",
                [user] + filterArguments + favoriteArguments + [pageSize, offset]
            )
        }
        if recipes.count < pageSize {
            recipes += try summaries(
                "\(selectSQL) FROM recipe r WHERE \(whereSQL) AND \(otherWhere) ORDER BY \(sql.nameOrder) LIMIT ? OFFSET ?",
                [user] + filterArguments + favoriteArguments + [pageSize - recipes.count, max(offset - favoriteCount, 0)]
            )
        }
        let total = try count("FROM recipe r WHERE \(whereSQL)", filterArguments)
        return RecipePage(recipes: recipes, total: min(total, limit), page: page, pageSize: pageSize, totalIsExact: total <= limit)
    }

    /// A search given what is on hand: every recipe the filters (and the text, if any) let through
    /// that uses any of it, scored by ``OnHandRanking``, best first, then by name. Each recipe's
    /// lines of those ingredients are read along the ingredient index, so the cost follows how
    /// many recipes use them, not the catalog's size.
    private func rankedByUse(
        _ ranking: OnHandRanking, matching matchExpression: String?, selectSQL: String, whereSQL: String, user: String,
        filterArguments: SQLArguments, book: IngredientBook, page: Int, pageSize: Int, offset: Int, _ session: any SQLSession
    ) throws -> RecipePage {
        // On SQLite the join is written in the order to walk it: from the ingredient index.
        let join = sql.engine == .sqlite ? "CROSS JOIN" : "JOIN"
        let text = matchExpression == nil ? "" : " AND \(sql.textCondition)"
        let rows = try session.rows(
            """
            SELECT r.key AS k, r.id AS id, r.name AS n, ri.ingredient_id AS i, ri.quantity AS q, ri.unit AS u
            FROM recipe_ingredient ri \(join) recipe r ON r.key = ri.recipe_key
            WHERE ri.ingredient_id IN (\(sql.engine.jsonArrayValues)) AND \(whereSQL)\(text)
            """, [ranking.ids.sqlJSONArray] + filterArguments + (matchExpression.map { [$0] } ?? []))
        // Columns by name (PostgreSQL's rows need not keep the SELECT's order); each name folded
        // once for the sort, not in every comparison.
        var recipes: [String: (id: String, name: String, lines: [(ingredient: String, quantity: Double, unit: MeasureUnit)])] = [:]
        for row in rows {
            let key: String = row["k"]
            if recipes[key] == nil { recipes[key] = (row["id"], (row["n"] as String).lowercased(), []) }
            // A unit this version does not know uses nothing rather than failing the search.
            if let unit = MeasureUnit(rawValue: row["u"]) { recipes[key]?.lines.append((row["i"], row["q"], unit)) }
        }
        let ranked = recipes.map { key, recipe in
            let uses = ranking.uses(recipe.lines, ingredients: book.byID)
            return (key: key, id: recipe.id, name: recipe.name, uses: uses, score: ranking.score(uses))
        }
        .sorted { a, b in
            if a.score != b.score { return a.score > b.score }
            return a.name != b.name ? a.name < b.name : a.id < b.id
        }
        let onPage = Array(ranked.dropFirst(offset).prefix(pageSize))
        // The page's rows by key (the filters already chose them): one seek each.
        let summaries = try Self.summaries(
            session.rows("\(selectSQL) FROM recipe r WHERE r.key IN (\(sql.engine.jsonArrayValues))", [user, onPage.map(\.key).sqlJSONArray]),
            session.engine)
        let byID = Dictionary(summaries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let listed = onPage.compactMap { ranked -> RecipeSummary? in
            guard var summary = byID[ranked.id] else { return nil }
            summary.onHand = ranked.uses
            return summary
        }
        let limit = Self.countLimit
        return RecipePage(
            recipes: listed, total: min(ranked.count, limit), page: page, pageSize: pageSize, totalIsExact: ranked.count <= limit)
    }

    /// A text search's page on SQLite. bm25 costs time for every match, so a query matching more
    /// recipes than `relevanceLimit` is ranked in two tiers that FTS5 walks in index order and
    /// stops at the page, whatever the catalog's size: first the recipes whose name has every
    /// word, fewest words in the name first (bm25's order for one match per word in that column
    /// alone), then newest; then the rest, newest first. Otherwise by relevance, then rowid (a
    /// total order): FTS5 ranks its matches alone and only the best `window` are joined and
    /// filtered; the page is exact once the window yields a full page (anything outside ranks
    /// after everything inside), otherwise every match is ranked.
    private func rankedBySQLite(
        _ matchExpression: String, inNames nameMatchExpression: String, selectSQL: String, whereSQL: String, user: String,
        filterArguments: SQLArguments, pageSize: Int, offset: Int, _ session: any SQLSession
    ) throws -> [RecipeSummary] {
        let matches =
            try session.value(
                Int.self, "SELECT COUNT(*) FROM (SELECT 1 FROM recipe_fts WHERE recipe_fts MATCH ? LIMIT \(relevanceLimit + 1)) AS counted",
                [matchExpression]) ?? 0
        if matches > relevanceLimit {
            return try namesFirstThenNewest(
                named: (
                    "FROM recipe_name_fts n CROSS JOIN recipe r ON r.rowid = (n.rowid & \(Self.recipeRowIDMask)) WHERE recipe_name_fts MATCH ? AND \(whereSQL)",
                    "n.rowid DESC", [matchExpression] + filterArguments
                ),
                others: (
                    "FROM recipe_fts CROSS JOIN recipe r ON r.rowid = recipe_fts.rowid WHERE recipe_fts MATCH ? AND \(whereSQL)",
                    "recipe_fts.rowid DESC",
                    ["(\(matchExpression)) NOT (\(nameMatchExpression))"] + filterArguments
                ), selectSQL: selectSQL, user: user, pageSize: pageSize, offset: offset, session)
        }
        var window: Int? = max((offset + pageSize) * 4, 200)
        while true {
            var rankedSQL = "SELECT rowid AS rid, rank AS rk FROM recipe_fts WHERE recipe_fts MATCH ? ORDER BY rank, rowid"
            var arguments: SQLArguments = [matchExpression]
            if let window {
                rankedSQL += " LIMIT ?"
                arguments.append(window)
            }
            let recipes = try Self.summaries(
                session.rows(
                    "\(selectSQL) FROM (\(rankedSQL)) c CROSS JOIN recipe r ON r.rowid = c.rid WHERE \(whereSQL) ORDER BY c.rk, c.rid LIMIT ? OFFSET ?",
                    [user] + arguments + filterArguments + [pageSize, offset]), .sqlite)
            if recipes.count == pageSize || window == nil { return recipes }
            window = nil
        }
    }

    /// A text search's page on PostgreSQL: by relevance (cover density, name and summary
    /// weighted above ingredients, shorter documents first), then creation order, when the text
    /// matches at most `relevanceLimit` of the recipes the filters let through, and at most the
    /// `countLimit` the page's total is counted to (the GIN index finds them, the filters apply
    /// before ranking); otherwise in the two tiers SQLite uses, walked along
    /// `recipe_by_name_words` and the creation order. Ranking costs time for every match: 67–72 ms
    /// for the 41 696 matches of "roast" at 100 000 recipes (psql), 11 ms for a word's 900 at
    /// 10 000 under the search's conditions, against 0.3 ms for the first tier's page; counting
    /// further than the total's 200 cost as much again, so that count decides.
    private func rankedByPostgres(
        _ matchExpression: String, matching total: Int, selectSQL: String, whereSQL: String, user: String, filterArguments: SQLArguments,
        pageSize: Int, offset: Int, _ session: any SQLSession
    ) throws -> [RecipeSummary] {
        guard total > min(relevanceLimit, Self.countLimit) else {
            return try Self.summaries(
                session.rows(
                    """
                    \(selectSQL) \(sql.textMatches) AND \(whereSQL)
                    ORDER BY ts_rank_cd('{0.1, 0.2, 0.5, 1.0}', r.search, to_tsquery('sous_english', ?), 1) DESC, r.rid LIMIT ? OFFSET ?
                    """, [user, matchExpression] + filterArguments + [matchExpression, pageSize, offset]), .postgres)
        }
        let inName = "COALESCE(r.name_search @@ to_tsquery('sous_english', ?), false)"
        return try namesFirstThenNewest(
            named: ("FROM recipe r WHERE \(inName) AND \(whereSQL)", "r.name_words, r.rid DESC", [matchExpression] + filterArguments),
            others: (
                "\(sql.textMatches) AND NOT \(inName) AND \(whereSQL)", "r.rid DESC", [matchExpression, matchExpression] + filterArguments
            ), selectSQL: selectSQL, user: user, pageSize: pageSize, offset: offset, session)
    }

    /// The page of a broad text search: the recipes whose name has every word (`named`, in its
    /// order: fewest words in the name, then newest), then every other match (`others`, newest
    /// first). Each is a FROM … WHERE clause with its ORDER BY and arguments; both are walked in
    /// index order and stop at the page.
    private func namesFirstThenNewest(
        named: (from: String, order: String, arguments: SQLArguments), others: (from: String, order: String, arguments: SQLArguments),
        selectSQL: String, user: String, pageSize: Int, offset: Int, _ session: any SQLSession
    ) throws -> [RecipeSummary] {
        var recipes = try Self.summaries(
            session.rows("\(selectSQL) \(named.from) ORDER BY \(named.order) LIMIT ? OFFSET ?", [user] + named.arguments + [pageSize, offset]),
            session.engine)
        guard recipes.count < pageSize else { return recipes }
        // How many named matches the pages before this one held: all but this page's, or, on a
        // page past them, every one (counted up to the offset).
        let namedBefore =
            recipes.isEmpty
            ? try session.value(Int.self, "SELECT COUNT(*) FROM (SELECT 1 \(named.from) LIMIT ?) AS counted", named.arguments + [offset]) ?? 0
            : offset
        recipes += try Self.summaries(
            session.rows(
                "\(selectSQL) \(others.from) ORDER BY \(others.order) LIMIT ? OFFSET ?",
                [user] + others.arguments + [pageSize - recipes.count, offset - namedBefore]), session.engine)
        return recipes
    }

    /// What a user's search covers: built-ins they have not replaced with a personal version,
    /// and their own recipes (custom, personal, saved).
    func searchScope(user: String, _ session: any SQLSession) throws -> (String, SQLArguments) {
        let shadowed = try session.values(
            String.self, "SELECT r.id FROM \(sql.recipeByOwner) WHERE r.owner = ? AND r.origin = 'personal' AND r.deleted = 0", [user])
        var text = "(r.origin = 'builtIn' OR r.owner = ?)"
        var arguments: SQLArguments = [user]
        if !shadowed.isEmpty {
            text = "(\(text) AND NOT (r.origin != 'personal' AND r.id IN (\(sql.engine.jsonArrayValues))))"
            arguments.append(shadowed.sqlJSONArray)
        }
        return (text, arguments)
    }

    public func myRecipes(user: String) throws(ServiceError) -> [RecipeSummary] {
        try storage {
            try database.read { session in
                try Self.summaries(
                    session.rows(
                        """
                        SELECT \(sql.recipeColumns), f."user" IS NOT NULL AS favorite
                        FROM \(sql.recipeByOwner) LEFT JOIN favorite f ON f.recipe_id = r.id AND f."user" = ?
                        WHERE r.owner = ? AND r.deleted = 0 ORDER BY \(sql.nameOrder)
                        """, [user, user]
                    ), session.engine)
            }
        }
    }

    /// Summaries of a page's rows (recipe columns plus `favorite`).
    static func summaries(_ rows: [Row], _ engine: SQLEngine) throws -> [RecipeSummary] {
        try rows.map { row in try RecipeRecord(row: row).summary(isFavorite: row["favorite"]) }
    }
}
