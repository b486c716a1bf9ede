import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// What a kept list was built at: the household's list version and the generation of the ingredient
/// facts all lists share (a catalog price refreshed by one household's add changes everyone's total).
struct ListVersion: Equatable, Sendable {
    var list: Int64
    var facts: Int64
}

/// The SQL the reads and writes share: building the list from its parts, and its checks. The
/// same statements on SQLite and PostgreSQL: result columns named (PostgreSQL's rows are read by
/// name), lists bound as one JSON array. Every row is a household's: the people in it share one
/// list.
extension GroceriesStore {
    // MARK: Helpers

    /// Reads every part of the household's list and aggregates it; `version` is what the list is
    /// stamped with (nil inside a change, before its new version is drawn).
    static func list(household: String, version: ListVersion?, _ session: any SQLSession) throws -> GroceryList {
        var recipes: [ListRecipe] = []
        var multipliers: [String: (name: String, multiplier: Double)] = [:]
        for record in try session.fetchAll(ListRecipeRecord.self, #"SELECT * FROM list_recipe WHERE household = ? ORDER BY position"#, [household]) {
            let recipe = record.recipe
            multipliers[recipe.recipe] = (recipe.name, Double(recipe.multiplier))
            recipes.append(recipe)
        }
        var contributions: [GroceryContribution] = []
        var excluded: [String: [String]] = [:]
        // In the order the recipes were added, so totals are always summed in the same order.
        for row in try session.rows(
            """
            SELECT s.recipe, s.ingredient, s.quantity, s.unit, s.excluded
            FROM recipe_share s JOIN list_recipe r ON r.household = s.household AND r.recipe = s.recipe
            WHERE s.household = ? ORDER BY r.position, s.position
            """, [household])
        {
            let recipe: String = row["recipe"]
            let ingredient: String = row["ingredient"]
            guard let listed = multipliers[recipe] else { continue }
            if row["excluded"] as Bool {
                if excluded[recipe]?.contains(ingredient) != true { excluded[recipe, default: []].append(ingredient) }
                continue
            }
            let unit = try storedValue(MeasureUnit.self, row["unit"])
            let quantity = (row["quantity"] as Double) * listed.multiplier
            contributions.append(
                GroceryContribution(
                    ingredient: ingredient, quantity: quantity, unit: unit,
                    source: GroceryLineSource(recipe: recipe, name: listed.name, quantity: quantity, unit: unit)
                ))
        }
        for index in recipes.indices { recipes[index].excluded = excluded[recipes[index].recipe] ?? [] }
        var items: [NonEdibleItem] = []
        for row in try session.rows(
            #"SELECT id, ingredient, quantity, unit, text, count FROM manual_item WHERE household = ? ORDER BY id"#, [household])
        {
            let id: Int64 = row["id"]
            if let ingredient = row["ingredient"] as String? {
                let unit = try storedValue(MeasureUnit.self, row["unit"])
                let quantity: Double = row["quantity"]
                contributions.append(
                    GroceryContribution(
                        ingredient: ingredient, quantity: quantity, unit: unit,
                        source: .manual(item: id, quantity: quantity, unit: unit)
                    ))
            } else {
                items.append(NonEdibleItem(id: id, text: row["text"], count: row["count"]))
            }
        }
        let ids = Array(Set(contributions.map(\.ingredient)))
        var ingredients: [String: ListIngredientFacts] = [:]
        if !ids.isEmpty {
            for record in try session.fetchAll(IngredientFactsRecord.self, ingredientsIn[session.engine], [ids.sqlJSONArray]) {
                ingredients[record.facts.id] = record.facts
            }
        }
        let checked = Set(try session.values(String.self, #"SELECT line FROM checked_line WHERE household = ?"#, [household]))
        var list = GroceryAggregator.build(
            recipes: recipes, contributions: contributions, items: items, ingredients: ingredients, checked: checked,
            pantry: try pantryStock(household: household, session))
        list.version = version?.list ?? 0
        return list
    }

    /// The household's list version and the shared facts' generation, read together.
    static func version(household: String, _ session: any SQLSession) throws -> ListVersion {
        guard
            let row = try session.rows(
                """
                SELECT (SELECT version FROM list_version WHERE household = ?) AS list_version,
                    (\(factsGeneration)) AS facts
                """, [household]
            ).first
        else { return ListVersion(list: 0, facts: 0) }
        // NULL (no version yet) is 0.
        return ListVersion(list: row["list_version"] ?? 0, facts: row["facts"] ?? 0)
    }

    /// The counts a change's reply carries, read in one query (nothing aggregated).
    static func counts(household: String, _ session: any SQLSession) throws -> ListCounts {
        try listState(household: household, recipe: nil, session).counts
    }

    /// The list's counts (``counts(household:_:)``), `recipe`'s multiplier if it is on the list, and
    /// the position of the household's last listed recipe (0 for none), in one query.
    static func listState(
        household: String, recipe: String?, _ session: any SQLSession
    ) throws -> (multiplier: Int?, counts: ListCounts, lastPosition: Int64) {
        guard
            let row = try session.rows(
                """
                SELECT COUNT(*) AS recipes, COALESCE(MAX(position), 0) AS last,
                    (SELECT multiplier FROM list_recipe WHERE household = ? AND recipe = ?) AS multiplier,
                    (SELECT COUNT(*) FROM manual_item WHERE household = ?) AS items, (SELECT COUNT(*) FROM checked_line WHERE household = ?) AS checked
                FROM list_recipe WHERE household = ?
                """, [household, recipe, household, household, household]
            ).first
        else { return (nil, ListCounts(recipes: 0, items: 0, checked: 0), 0) }
        let counts = ListCounts(recipes: row["recipes"] ?? 0, items: row["items"] ?? 0, checked: row["checked"] ?? 0)
        return (row["multiplier"], counts, row["last"] ?? 0)
    }

    /// Draws the next list version for `household`, inside the transaction of the change: a household's
    /// versions only grow, and no two of their changes share one. On SQLite the household's own row
    /// counts up (one row written, the `list_version_floor` trigger keeps an erased household's
    /// numbers from coming back); on PostgreSQL a sequence, whose numbers do not make concurrent
    /// writers of different users clash (a rolled-back one leaves a gap). `facts` is the facts'
    /// generation when the caller knows it (read here otherwise).
    static func nextVersion(household: String, facts: Int64? = nil, _ session: any SQLSession) throws -> ListVersion {
        let next: Int64
        switch session.engine {
        case .sqlite:
            next = try session.value(Int64.self, nextUserVersion, [household]) ?? 0
        case .postgres:
            next = try session.value(Int64.self, "SELECT nextval('list_version_number')") ?? 0
            try session.execute(
                #"INSERT INTO list_version (household, version) VALUES (?, ?) ON CONFLICT (household) DO UPDATE SET version = excluded.version"#,
                [household, next])
        }
        return ListVersion(list: next, facts: try facts ?? session.value(Int64.self, factsGeneration) ?? 0)
    }

    /// A household's first version starts above every version an erased list had (the 'list'
    /// counter, which the trigger raises as rows are deleted; it also holds the versions drawn
    /// when all lists shared it); later ones count up from the household's own.
    private static let nextUserVersion = """
        INSERT INTO list_version (household, version) VALUES (?, (SELECT value FROM list_counter WHERE name = 'list') + 1)
        ON CONFLICT (household) DO UPDATE SET version = list_version.version + 1 RETURNING version
        """

    /// The list after a write that may have removed lines; check marks of vanished lines go, so a
    /// line that comes back later starts unchecked.
    static func listDroppingStaleChecks(household: String, version: ListVersion, _ session: any SQLSession) throws -> GroceryList {
        let list = try list(household: household, version: version, session)
        try session.execute(staleChecks[session.engine], [household, list.lines.map(\.id).sqlJSONArray])
        return list
    }

    static func empty(household: String, _ session: any SQLSession) throws {
        try session.execute(#"DELETE FROM list_recipe WHERE household = ?"#, [household])
        try session.execute(#"DELETE FROM manual_item WHERE household = ?"#, [household])
        try session.execute(#"DELETE FROM checked_line WHERE household = ?"#, [household])
    }

    static func isListed(_ recipe: String, household: String, _ session: any SQLSession) throws -> Bool {
        try session.value(Int.self, #"SELECT 1 FROM list_recipe WHERE household = ? AND recipe = ?"#, [household, recipe]) != nil
    }

    static func requireListed(_ recipe: String, household: String, _ session: any SQLSession) throws {
        guard try isListed(recipe, household: household, session) else {
            throw ServiceError.notFound("\(recipe) is not on the list", field: "recipe")
        }
    }

    static func requireInRecipe(_ ingredients: [String], recipe: String, household: String, field: String, _ session: any SQLSession) throws {
        guard !ingredients.isEmpty else { return }
        let used = Set(
            try session.values(String.self, #"SELECT ingredient FROM recipe_share WHERE household = ? AND recipe = ?"#, [household, recipe]))
        for (index, id) in ingredients.enumerated() where !used.contains(id) {
            throw ServiceError.notFound("\(recipe) does not use \"\(id)\"", field: "\(field).\(index)")
        }
    }

    static func setExcluded(_ ingredients: [String], _ excluded: Bool, recipe: String, household: String, _ session: any SQLSession) throws {
        for ingredient in ingredients {
            try session.execute(
                #"UPDATE recipe_share SET excluded = ? WHERE household = ? AND recipe = ? AND ingredient = ?"#,
                [excluded ? 1 : 0, household, recipe, ingredient])
        }
    }

    /// Stores what the catalog said of these ingredients where it is new or changed: one
    /// statement per ingredient that inserts it, or replaces it only where a column differs
    /// (``upsertFacts``), and says which it did: cheaper than reading the stored rows into
    /// records to compare them here (the add's write alone 335–348 → 318–333 µs). A change
    /// changes every list using the ingredient, so the facts' generation goes up (once); the
    /// same ingredient twice in one call is stored as its last.
    @discardableResult
    static func upsert(_ facts: [ListIngredientFacts], _ session: any SQLSession) throws -> Bool {
        var changed = false
        let statement = session.engine == .sqlite ? upsertFacts.sqlite : upsertFacts.postgres
        for item in facts where try session.execute(statement, IngredientFactsRecord(item).values) > 0 { changed = true }
        if changed { try session.execute("UPDATE list_counter SET value = value + 1 WHERE name = 'facts'") }
        return changed
    }

    /// ``upsert(_:_:)`` of the facts `committed` does not know stored already (one read of the
    /// facts' generation instead of a statement per ingredient when it knows them all). Returns
    /// the generation before and after, for ``CommittedFacts/record(_:before:after:)`` once the
    /// transaction commits.
    static func upsert(
        _ facts: [ListIngredientFacts], knownTo committed: CommittedFacts, _ session: any SQLSession
    ) throws -> FactsWritten {
        let before = try session.value(Int64.self, factsGeneration) ?? 0
        let changed = try upsert(committed.unknown(facts, at: before), session)
        return FactsWritten(facts: facts, before: before, after: changed ? before + 1 : before)
    }

    /// Inserts an ingredient's facts, or replaces the stored ones where any column differs
    /// (NULLs compared as values); changes no row when they are the same.
    private static let upsertFacts = (sqlite: upsertFacts(.sqlite), postgres: upsertFacts(.postgres))

    private static func upsertFacts(_ engine: SQLEngine) -> String {
        let columns = IngredientFactsRecord.columnNames
        let values = columns.filter { $0 != "id" }
        let differs = engine == .sqlite ? "IS NOT" : "IS DISTINCT FROM"
        return """
            INSERT INTO ingredient (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            ON CONFLICT (id) DO UPDATE SET \(values.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            WHERE \(values.map { "ingredient.\($0) \(differs) excluded.\($0)" }.joined(separator: " OR "))
            """
    }

    /// The generation of the stored ingredient facts, raised by every change to any of them.
    static let factsGeneration = "SELECT value FROM list_counter WHERE name = 'facts'"
    static let setMultiplier = #"UPDATE list_recipe SET multiplier = ? WHERE household = ? AND recipe = ?"#
    static let deleteItem = #"DELETE FROM manual_item WHERE household = ? AND id = ?"#

    /// The facts of the ingredients in one JSON array.
    private static let ingredientsIn = ListStatement { list in "SELECT * FROM ingredient WHERE id IN (\(list))" }
    /// Deletes the household's check marks of lines not in one JSON array (all of them for `[]`).
    private static let staleChecks = ListStatement { list in #"DELETE FROM checked_line WHERE household = ? AND line NOT IN (\#(list))"# }

    /// Runs a database operation, passing service errors through and turning anything else into `internal`.
    func storage<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        try ServiceError.storage("groceries database", body)
    }
}

/// A statement with a list of strings bound as one JSON array (`IN (list)`), so its text is the
/// same for any count of values and stays prepared: its text per engine
/// (``SQLEngine/jsonArrayValues``), built once.
private struct ListStatement: Sendable {
    let sqlite: String
    let postgres: String

    /// `text` builds the statement around the subquery of the list's values.
    init(_ text: (String) -> String) {
        sqlite = text(SQLEngine.sqlite.jsonArrayValues)
        postgres = text(SQLEngine.postgres.jsonArrayValues)
    }

    subscript(engine: SQLEngine) -> String {
        switch engine {
        case .sqlite: sqlite
        case .postgres: postgres
        }
    }
}

/// A list's counts, as a change's reply carries them.
struct ListCounts: Equatable, Sendable {
    var recipes: Int
    var items: Int
    var checked: Int
}

/// What a change to a list knows of the list after it, so that
/// ``GroceriesStore/changeList(household:droppingStaleChecks:withList:_:)`` does not read it again.
struct ChangeKnowledge {
    /// The facts' generation, when the change stored facts.
    var factsGeneration: Int64?
    /// The counts, when the change read them (an add, with its quota check).
    var counts: ListCounts?
}

/// Facts a transaction stored, with the facts' generation (`list_counter` `facts`) before it and
/// after it, as the transaction saw them.
struct FactsWritten: Sendable {
    let facts: [ListIngredientFacts]
    let before: Int64
    let after: Int64
}

/// The ingredient facts this process last committed, and the facts' generation they are current
/// at. Every change to any stored facts raises the generation, so while the database's generation
/// is still that one, facts equal to these are stored already and an add skips their upserts.
/// A generation another writer (a replica, an import) moved makes everything unknown again.
final class CommittedFacts: Sendable {
    private struct State {
        var generation: Int64 = -1
        var facts: [String: ListIngredientFacts] = [:]
    }

    private let state = Mutex(State())
    /// More ingredients than this and the older ones are forgotten (read again when next added).
    static let capacity = 10_000

    /// The facts among `facts` not known to be stored at `generation` (all of them when one
    /// ingredient comes twice: the upsert then stores the last).
    func unknown(_ facts: [ListIngredientFacts], at generation: Int64) -> [ListIngredientFacts] {
        guard !Self.repeatsAnIngredient(facts) else { return facts }
        return state.withLock { state in
            guard state.generation == generation else { return facts }
            return facts.filter { state.facts[$0.id] != $0 }
        }
    }

    /// Compared pairwise for a recipe's few ingredients: hashing them all cost more.
    static func repeatsAnIngredient(_ facts: [ListIngredientFacts]) -> Bool {
        guard facts.count <= 32 else { return Set(facts.map(\.id)).count != facts.count }
        for index in facts.indices.dropLast() where facts[(index + 1)...].contains(where: { $0.id == facts[index].id }) { return true }
        return false
    }

    /// After the transaction that wrote `written` committed.
    func record(_ written: FactsWritten) {
        state.withLock { state in
            // Known facts hold only at the generation they were seen at, and only this
            // transaction's own change moved it from there.
            if state.generation != written.before || state.facts.count + written.facts.count > Self.capacity { state.facts = [:] }
            state.generation = written.after
            for item in written.facts { state.facts[item.id] = item }
        }
    }
}
