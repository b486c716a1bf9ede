import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// What a kept list was built at: the user's list version and the generation of the ingredient
/// facts all lists share (a catalog price refreshed by one user's add changes everyone's total).
struct ListVersion: Equatable, Sendable {
    var list: Int64
    var facts: Int64
}

/// The SQL the reads and writes share: building the list from its parts, and its checks.
extension GroceriesStore {
    // MARK: Helpers

    /// Reads every part of the user's list and aggregates it; `version` is what the list is
    /// stamped with (nil inside a change, before its new version is drawn).
    static func list(user: String, version: ListVersion?, _ db: Database) throws -> GroceryList {
        var recipes: [ListRecipe] = []
        var multipliers: [String: (name: String, multiplier: Double)] = [:]
        for record in try ListRecipeRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM list_recipe WHERE user = ? ORDER BY rowid"), arguments: [user])
        {
            let recipe = record.recipe
            multipliers[recipe.recipe] = (recipe.name, Double(recipe.multiplier))
            recipes.append(recipe)
        }
        var contributions: [GroceryContribution] = []
        var excluded: [String: [String]] = [:]
        // In the order the recipes were added, so totals are always summed in the same order.
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT s.recipe, s.ingredient, s.quantity, s.unit, s.excluded
                    FROM recipe_share s JOIN list_recipe r ON r.user = s.user AND r.recipe = s.recipe
                    WHERE s.user = ? ORDER BY r.rowid, s.position
                    """), arguments: [user])
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
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, ingredient, quantity, unit, text, count FROM manual_item WHERE user = ? ORDER BY id"),
            arguments: [user])
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
            let statement = try db.cachedStatement(sql: "SELECT * FROM ingredient WHERE id IN (SELECT value FROM json_each(?))")
            for record in try IngredientFactsRecord.fetchAll(statement, arguments: [ids.sqlJSONArray]) {
                ingredients[record.facts.id] = record.facts
            }
        }
        let checked = Set(try String.fetchAll(db.cachedStatement(sql: "SELECT line FROM checked_line WHERE user = ?"), arguments: [user]))
        var list = GroceryAggregator.build(recipes: recipes, contributions: contributions, items: items, ingredients: ingredients, checked: checked)
        list.version = version?.list ?? 0
        return list
    }

    /// The user's list version and the shared facts' generation, read together.
    static func version(user: String, _ db: Database) throws -> ListVersion {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT (SELECT version FROM list_version WHERE user = ?), (SELECT value FROM list_counter WHERE name = 'facts')"),
            arguments: [user])
        return ListVersion(list: row?[0] ?? 0, facts: row?[1] ?? 0)
    }

    /// The reply of a change at `version`: counts read in one query, nothing aggregated.
    static func change(user: String, version: Int64, _ db: Database) throws -> GroceryListChange {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT (SELECT COUNT(*) FROM list_recipe WHERE user = ?1), (SELECT COUNT(*) FROM manual_item WHERE user = ?1),
                        (SELECT COUNT(*) FROM checked_line WHERE user = ?1)
                    """),
            arguments: [user])
        return GroceryListChange(version: version, recipeCount: row?[0] ?? 0, itemCount: row?[1] ?? 0, checkedCount: row?[2] ?? 0)
    }

    /// Draws the next list version for `user`, inside the transaction of the change.
    static func nextVersion(user: String, _ db: Database) throws -> ListVersion {
        let next =
            try Int64.fetchOne(
                db.cachedStatement(sql: "UPDATE list_counter SET value = value + 1 WHERE name = 'list' RETURNING value")) ?? 0
        try db.cachedStatement(
            sql: "INSERT INTO list_version (user, version) VALUES (?, ?) ON CONFLICT (user) DO UPDATE SET version = excluded.version"
        ).execute(arguments: [user, next])
        return try version(user: user, db)
    }

    /// The list after a write that may have removed lines; check marks of vanished lines go, so a
    /// line that comes back later starts unchecked.
    static func listDroppingStaleChecks(user: String, version: ListVersion, _ db: Database) throws -> GroceryList {
        let list = try list(user: user, version: version, db)
        let ids = list.lines.map(\.id)
        try db.execute(
            sql: "DELETE FROM checked_line WHERE user = ? AND line NOT IN (\(databaseQuestionMarks(count: ids.count)))",
            arguments: StatementArguments([user] + ids)
        )
        return list
    }

    static func empty(user: String, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM list_recipe WHERE user = ?").execute(arguments: [user])
        try db.cachedStatement(sql: "DELETE FROM manual_item WHERE user = ?").execute(arguments: [user])
        try db.cachedStatement(sql: "DELETE FROM checked_line WHERE user = ?").execute(arguments: [user])
    }

    static func requireListed(_ recipe: String, user: String, _ db: Database) throws {
        guard
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM list_recipe WHERE user = ? AND recipe = ?"), arguments: [user, recipe]) ?? false
        else {
            throw ServiceError.notFound("\(recipe) is not on the list", field: "recipe")
        }
    }

    static func requireInRecipe(_ ingredients: [String], recipe: String, user: String, field: String, _ db: Database) throws {
        guard !ingredients.isEmpty else { return }
        let used = Set(
            try String.fetchAll(
                db.cachedStatement(sql: "SELECT ingredient FROM recipe_share WHERE user = ? AND recipe = ?"), arguments: [user, recipe]))
        for (index, id) in ingredients.enumerated() where !used.contains(id) {
            throw ServiceError.notFound("\(recipe) does not use \"\(id)\"", field: "\(field).\(index)")
        }
    }

    static func setExcluded(_ ingredients: [String], _ excluded: Bool, recipe: String, user: String, _ db: Database) throws {
        for ingredient in ingredients {
            try db.execute(
                sql: "UPDATE recipe_share SET excluded = ? WHERE user = ? AND recipe = ? AND ingredient = ?",
                arguments: [excluded, user, recipe, ingredient])
        }
    }

    /// Stores what the catalog said of an ingredient; when that changed what was stored, every
    /// list using it changes, so the facts' generation goes up.
    static func upsert(_ facts: ListIngredientFacts, _ db: Database) throws {
        let stored = try IngredientFactsRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM ingredient WHERE id = ?"), arguments: [facts.id])
        guard stored?.facts != facts else { return }
        try IngredientFactsRecord(facts).upsert(db)
        try db.cachedStatement(sql: "UPDATE list_counter SET value = value + 1 WHERE name = 'facts'").execute()
    }

    /// Runs a database operation, passing service errors through and turning anything else into `internal`.
    func storage<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .internal("groceries database: \(error)")
        }
    }
}
