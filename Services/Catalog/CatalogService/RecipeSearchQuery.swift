import Foundation
import SousRuntime
import SousSchema
import SousWire

/// The full-text match and the WHERE conditions of a recipe search, built from the request and
/// the filter in force. Pure, so the SQL it writes is tested on its own (RecipeSearchQueryTests);
/// the store runs it against the FTS5 table and the covering index (on PostgreSQL, the recipes'
/// search documents).
///
/// Every condition is an integer test on the row or a membership test in a set SQLite builds
/// once per query, so the name-ordered index can be walked and stopped at the page. Values are
/// bound, never written into the SQL, and the integer tests are always present (a layer that does
/// not apply binds a value that passes every recipe), so there are only four texts of conditions
/// (with or without required ingredients, with or without dislikes) and the store keeps their
/// statements prepared: preparing them was a third of a search.
struct RecipeSearchQuery: Equatable {
    /// A bound value.
    enum Argument: Equatable {
        case text(String)
        case integer(Int64)
    }

    /// The text search: each word of the text as a prefix, all required (an FTS5 expression on
    /// SQLite, a `tsquery` on PostgreSQL); nil without a text.
    var matchExpression: String?
    /// On SQLite, the same words required in the recipe's name (an FTS5 column filter on each);
    /// nil without a text and on PostgreSQL.
    var nameMatchExpression: String?
    /// Conditions on the recipe row `r`, all required.
    var conditions: [String] = []
    /// The values the conditions' `?` placeholders take, in order.
    var arguments: [Argument] = []
    /// With ingredients on hand, the search keeps the recipes using any and ranks them by use.
    var onHand: OnHandRanking?

    /// ``arguments`` as a statement binds them.
    var sqlArguments: SQLArguments {
        arguments.map { argument in
            switch argument {
            case .text(let text): text
            case .integer(let integer): integer
            }
        }
    }

    /// Ingredients one search may require.
    static let maxIngredients = 20
    /// Disliked ingredients a filter profile may list (the planner keeps saved ones within it).
    static let maxDislikes = 200

    init(
        _ request: RecipeSearch, filter: (profile: RecipeFilterProfile, switches: FilterSwitches)?, ingredients: IngredientBook,
        engine: SQLEngine = .sqlite
    ) throws(ServiceError) {
        matchExpression = try Self.matchExpression(request.query, engine)
        if engine == .sqlite, let words = try Self.words(request.query) {
            nameMatchExpression = words.map { "name : \"\($0)\"*" }.joined(separator: " ")
        }
        if let entries = request.onHand { onHand = try OnHandRanking(entries, ingredients: ingredients) }
        if let count = request.ingredients?.count, count > Self.maxIngredients {
            throw .badRequest("at most \(Self.maxIngredients) ingredients per search, got \(count)", field: "ingredients")
        }
        var required: [String] = []
        for (index, ingredient) in (request.ingredients ?? []).enumerated() {
            guard let id = ingredients.id(named: ingredient) else {
                throw .notFound("no ingredient with the id, name or synonym \"\(ingredient)\"", field: "ingredients.\(index)")
            }
            if !required.contains(id) { required.append(id) }
        }
        // The membership tests go after the integer tests, which are cheaper and rule most rows out.
        var memberships: [String] = []
        var membershipArguments: [Argument] = []
        if !required.isEmpty {
            // Recipes that use every one of them, as one condition however many there are.
            memberships.append(
                "r.key IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (\(engine.jsonArrayValues)) GROUP BY recipe_key HAVING COUNT(DISTINCT ingredient_id) = ?)"
            )
            membershipArguments += [.text(required.sqlJSONArray), .integer(Int64(required.count))]
        }
        // The integer tests are always there; a layer that does not apply binds the value that
        // lets every recipe through.
        var levels: Int64 = -1
        var dishTypes: Int64 = 0
        var diets: Int64 = 0
        var allergens: Int64 = 0
        var missingEquipment: Int64 = 0
        var patience = Int64.max
        if let requested = request.energyLevels, !requested.isEmpty {
            for (index, level) in requested.enumerated() where !(1...5).contains(level) {
                throw .badRequest("energy levels are 1 to 5, got \(level)", field: "energyLevels.\(index)")
            }
            levels = requested.reduce(0) { $0 | Int64(1) << Int64($1) }
        }
        if let dishType = request.dishType { dishTypes = Bitmask.of([dishType]) }
        if let tags = request.tags {
            guard tags.count <= RecipeLimits.maxTags else { throw .badRequest("at most \(RecipeLimits.maxTags) tags per search", field: "tags") }
            var wanted: [String] = []
            for (index, tag) in tags.enumerated() {
                guard let normal = RecipeValidation.normalizedTag(tag) else {
                    throw .badRequest("a tag is 1 to \(RecipeLimits.maxTagCharacters) letters, digits, spaces or hyphens", field: "tags.\(index)")
                }
                if !wanted.contains(normal) { wanted.append(normal) }
            }
            // Stored as "|a|b|" and made of letters, digits, spaces and hyphens: no LIKE wildcard.
            for tag in wanted {
                memberships.append("r.tags LIKE ?")
                membershipArguments.append(.text("%|\(tag)|%"))
            }
        }
        if let (profile, switches) = filter {
            if switches.diets ?? true { diets = Bitmask.of(profile.diets) }
            if switches.allergens ?? true { allergens = Bitmask.of(profile.allergens) }
            if switches.dislikes ?? true, !profile.dislikes.isEmpty {
                guard profile.dislikes.count <= Self.maxDislikes else {
                    throw .badRequest("at most \(Self.maxDislikes) disliked ingredients, got \(profile.dislikes.count)", field: "profile.dislikes")
                }
                for (index, id) in profile.dislikes.enumerated() where ingredients.byID[id] == nil {
                    throw .notFound("no ingredient \"\(id)\"", field: "profile.dislikes.\(index)")
                }
                memberships.append("r.key NOT IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (\(engine.jsonArrayValues)))")
                membershipArguments.append(.text(profile.dislikes.sqlJSONArray))
            }
            if switches.equipment ?? true { missingEquipment = Bitmask.of(Appliance.allCases.filter { !profile.equipment.contains($0) }) }
            if switches.patience ?? true {
                guard (1...5).contains(profile.patience) else {
                    throw .badRequest("patience must be 1 to 5, got \(profile.patience)", field: "profile.patience")
                }
                patience = Int64(profile.patience)
            }
        }
        conditions = Self.integerTests + memberships
        arguments =
            [
                .integer(levels), .integer(dishTypes), .integer(dishTypes), .integer(diets), .integer(diets), .integer(allergens),
                .integer(missingEquipment), .integer(patience),
            ] + membershipArguments
    }

    /// Energy levels, dish type, diets, allergens, equipment, patience: tests of the row's
    /// integers, in the order their values are bound (the same text on both engines).
    static let integerTests = [
        "((CAST(1 AS BIGINT) << r.energy_level) & ?) != 0", "(r.dish_types & ?) = ?", "(r.diets & ?) = ?", "(r.allergens & ?) = 0",
        "(r.equipment & ?) = 0",
        "r.energy_level <= ?",
    ]

    /// Each word of `query` (letters and digits, folded) as a prefix, all required; nil when the
    /// text has no word. On SQLite a quoted FTS5 prefix (quoting keeps FTS5 operators in the text
    /// from being read as syntax); on PostgreSQL a `tsquery` of `word:*` terms, joined by `&`
    /// (a word holds no operator character).
    static func matchExpression(_ query: String?, _ engine: SQLEngine = .sqlite) throws(ServiceError) -> String? {
        guard let words = try words(query) else { return nil }
        switch engine {
        case .sqlite: return words.map { "\"\($0)\"*" }.joined(separator: " ")
        case .postgres: return words.map { "\($0):*" }.joined(separator: " & ")
        }
    }

    /// The words of a search text (letters and digits, folded); nil when it has none.
    private static func words(_ query: String?) throws(ServiceError) -> [String]? {
        guard let query = query?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty else { return nil }
        guard query.count <= 200 else { throw .badRequest("query is longer than 200 characters", field: "query") }
        let words = searchWords(folded(query)).map(String.init)
        return words.isEmpty ? nil : words
    }
}
