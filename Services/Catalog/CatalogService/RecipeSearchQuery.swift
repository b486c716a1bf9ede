import Foundation
import SousSchema
import SousWire

/// The full-text match and the WHERE conditions of a recipe search, built from the request and
/// the filter in force. Pure, so the SQL it writes is tested on its own (RecipeSearchQueryTests);
/// the store runs it against the FTS5 table and the covering index.
///
/// Every condition is an integer test on the row or a membership test in a set SQLite builds
/// once per query, so the name-ordered index can be walked and stopped at the page. Values are
/// bound, never written into the SQL, so the text depends only on which filters apply and the
/// store keeps each text's statement prepared (a search used to spend half its time preparing).
struct RecipeSearchQuery: Equatable {
    /// A bound value.
    enum Argument: Equatable {
        case text(String)
        case integer(Int64)
    }

    /// The FTS5 expression: each word of the text as a quoted prefix, all required; nil without a text.
    var matchExpression: String?
    /// Conditions on the recipe row `r`, all required.
    var conditions: [String] = []
    /// The values the conditions' `?` placeholders take, in order.
    var arguments: [Argument] = []

    /// Ingredients one search may require; each is a condition of the query.
    static let maxIngredients = 20
    /// Disliked ingredients a filter profile may list (the planner keeps saved ones within it).
    static let maxDislikes = 200

    init(
        _ request: RecipeSearch, filter: (profile: RecipeFilterProfile, switches: FilterSwitches)?, ingredients: IngredientBook
    ) throws(ServiceError) {
        matchExpression = try Self.matchExpression(request.query)
        if let count = request.ingredients?.count, count > Self.maxIngredients {
            throw .badRequest("at most \(Self.maxIngredients) ingredients per search, got \(count)", field: "ingredients")
        }
        for (index, ingredient) in (request.ingredients ?? []).enumerated() {
            guard let id = ingredients.id(named: ingredient) else {
                throw .notFound("no ingredient with the id, name or synonym \"\(ingredient)\"", field: "ingredients.\(index)")
            }
            conditions.append("r.key IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id = ?)")
            arguments.append(.text(id))
        }
        if let levels = request.energyLevels, !levels.isEmpty {
            for (index, level) in levels.enumerated() where !(1...5).contains(level) {
                throw .badRequest("energy levels are 1 to 5, got \(level)", field: "energyLevels.\(index)")
            }
            // The levels as bits of one mask, whatever the list's length.
            conditions.append("((1 << r.energy_level) & ?) != 0")
            arguments.append(.integer(levels.reduce(0) { $0 | Int64(1) << Int64($1) }))
        }
        if let dishType = request.dishType {
            conditions.append("(r.dish_types & ?) != 0")
            arguments.append(.integer(Bitmask.of([dishType])))
        }
        guard let (profile, switches) = filter else { return }
        if switches.diets ?? true, !profile.diets.isEmpty {
            let mask = Bitmask.of(profile.diets)
            conditions.append("(r.diets & ?) = ?")
            arguments += [.integer(mask), .integer(mask)]
        }
        if switches.allergens ?? true, !profile.allergens.isEmpty {
            conditions.append("(r.allergens & ?) = 0")
            arguments.append(.integer(Bitmask.of(profile.allergens)))
        }
        if switches.dislikes ?? true, !profile.dislikes.isEmpty {
            guard profile.dislikes.count <= Self.maxDislikes else {
                throw .badRequest("at most \(Self.maxDislikes) disliked ingredients, got \(profile.dislikes.count)", field: "profile.dislikes")
            }
            for (index, id) in profile.dislikes.enumerated() where ingredients.byID[id] == nil {
                throw .notFound("no ingredient \"\(id)\"", field: "profile.dislikes.\(index)")
            }
            // One JSON array, however many: the text stays the same.
            conditions.append("r.key NOT IN (SELECT recipe_key FROM recipe_ingredient WHERE ingredient_id IN (SELECT value FROM json_each(?)))")
            arguments.append(.text(Self.jsonArray(profile.dislikes)))
        }
        if switches.equipment ?? true {
            let missing = Bitmask.of(Appliance.allCases.filter { !profile.equipment.contains($0) })
            if missing != 0 {
                conditions.append("(r.equipment & ?) = 0")
                arguments.append(.integer(missing))
            }
        }
        if switches.patience ?? true {
            guard (1...5).contains(profile.patience) else {
                throw .badRequest("patience must be 1 to 5, got \(profile.patience)", field: "profile.patience")
            }
            conditions.append("r.energy_level <= ?")
            arguments.append(.integer(Int64(profile.patience)))
        }
    }

    /// Strings as a JSON array, for `json_each(?)`.
    static func jsonArray(_ values: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// Each word of `query` (letters and digits, folded) as a quoted FTS5 prefix; nil when the
    /// text has no word. Quoting keeps FTS5 operators in the text from being read as syntax.
    static func matchExpression(_ query: String?) throws(ServiceError) -> String? {
        guard let query = query?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty else { return nil }
        guard query.count <= 200 else { throw .badRequest("query is longer than 200 characters", field: "query") }
        let words = folded(query).split { !$0.isLetter && !$0.isNumber }.map(String.init)
        return words.isEmpty ? nil : words.map { "\"\($0)\"*" }.joined(separator: " ")
    }
}
