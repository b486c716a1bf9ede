public import Foundation
import GRDB
public import SousRuntime
public import SousSchema
public import SousWire

/// The groceries data: every read and write, each write one transaction that answers with the
/// list as it is after the write.
public final class GroceriesStore: Sendable {
    public let database: SousDatabase
    var writer: SousDatabase { database }

    public init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Reads

    public func list(user: String) throws(ServiceError) -> GroceryList {
        try storage { try writer.read { try Self.list(user: user, $0) } }
    }

    public func hasRecipe(_ recipe: String, user: String) throws(ServiceError) -> Bool {
        try storage {
            try writer.read { db in
                try Bool.fetchOne(db, sql: "SELECT 1 FROM list_recipe WHERE user = ? AND recipe = ?", arguments: [user, recipe]) ?? false
            }
        }
    }

    /// Newest first.
    public func orders(user: String, limit: Int) throws(ServiceError) -> [GroceryOrder] {
        try storage {
            try writer.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, placed_at, phone, street, postal_code, city, note, total, recipes
                        FROM grocery_order WHERE user = ? ORDER BY id DESC LIMIT ?
                        """, arguments: [user, limit])
                return try rows.map { row in
                    let id: Int64 = row["id"]
                    let lines = try Row.fetchAll(
                        db,
                        sql: """
                            SELECT ingredient, name, category, quantity, unit, count, price, checked
                            FROM order_line WHERE order_id = ? ORDER BY position
                            """, arguments: [id]
                    ).map { line in
                        OrderLine(
                            ingredient: line["ingredient"], name: line["name"], category: try Self.decode(ShoppingCategory.self, line["category"]),
                            quantity: line["quantity"], unit: try (line["unit"] as String?).map { try Self.decode(MeasureUnit.self, $0) },
                            count: line["count"], price: line["price"], checked: line["checked"]
                        )
                    }
                    let recipes: String = row["recipes"]
                    return GroceryOrder(
                        id: id, placedAt: Date(timeIntervalSince1970: row["placed_at"]), phone: row["phone"],
                        address: DeliveryAddress(street: row["street"], postalCode: row["postal_code"], city: row["city"]), note: row["note"],
                        lines: lines, total: row["total"], recipes: recipes.isEmpty ? [] : recipes.split(separator: "\n").map(String.init)
                    )
                }
            }
        }
    }

    // MARK: Recipes

    /// Puts a recipe on the list, or raises the multiplier of one already on it (whose snapshot
    /// is kept; `snapshot` is then ignored). `exclude` joins the recipe's exclusions.
    public func addRecipe(
        _ recipe: String, snapshot: RecipeSnapshot?, multiplier: Int, exclude: [String], ingredients: [ListIngredientFacts], user: String, now: Date
    ) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                for facts in ingredients { try Self.upsert(facts, db) }
                if let current = try Int.fetchOne(
                    db, sql: "SELECT multiplier FROM list_recipe WHERE user = ? AND recipe = ?", arguments: [user, recipe])
                {
                    let total = current + multiplier
                    guard total <= 100 else {
                        throw ServiceError.badRequest("\(recipe) would be bought \(total) times; at most 100", field: "multiplier")
                    }
                    try Self.requireInRecipe(exclude, recipe: recipe, user: user, field: "exclude", db)
                    try db.execute(sql: "UPDATE list_recipe SET multiplier = ? WHERE user = ? AND recipe = ?", arguments: [total, user, recipe])
                } else {
                    guard let snapshot else { throw ServiceError.notFound("\(recipe) is not on the list", field: "recipe") }
                    try GroceriesQuotas.listRecipes.check(
                        current: Int.fetchOne(db, sql: "SELECT COUNT(*) FROM list_recipe WHERE user = ?", arguments: [user]) ?? 0)
                    let used = Set(snapshot.lines.map(\.ingredient))
                    for (index, id) in exclude.enumerated() where !used.contains(id) {
                        throw ServiceError.notFound("\(snapshot.name) does not use \"\(id)\"", field: "exclude.\(index)")
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO list_recipe (user, recipe, name, multiplier, people, servings, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                            """, arguments: [user, recipe, snapshot.name, multiplier, snapshot.people, snapshot.servings, now.timeIntervalSince1970])
                    for (position, line) in snapshot.lines.enumerated() {
                        try db.execute(
                            sql: """
                                INSERT INTO recipe_share (user, recipe, position, ingredient, quantity, unit) VALUES (?, ?, ?, ?, ?, ?)
                                """, arguments: [user, recipe, position, line.ingredient, line.quantity, line.unit.rawValue])
                    }
                }
                try Self.setExcluded(exclude, true, recipe: recipe, user: user, db)
                return try Self.list(user: user, db)
            }
        }
    }

    /// Changes a listed recipe's multiplier and exclusions.
    public func setRecipe(_ request: SetListRecipe, user: String) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                try Self.requireListed(request.recipe, user: user, db)
                try Self.requireInRecipe(request.exclude ?? [], recipe: request.recipe, user: user, field: "exclude", db)
                try Self.requireInRecipe(request.include ?? [], recipe: request.recipe, user: user, field: "include", db)
                if let multiplier = request.multiplier {
                    try db.execute(
                        sql: "UPDATE list_recipe SET multiplier = ? WHERE user = ? AND recipe = ?", arguments: [multiplier, user, request.recipe])
                }
                try Self.setExcluded(request.exclude ?? [], true, recipe: request.recipe, user: user, db)
                try Self.setExcluded(request.include ?? [], false, recipe: request.recipe, user: user, db)
                return try Self.listDroppingStaleChecks(user: user, db)
            }
        }
    }

    public func removeRecipe(_ recipe: String, user: String) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                try Self.requireListed(recipe, user: user, db)
                try db.execute(sql: "DELETE FROM list_recipe WHERE user = ? AND recipe = ?", arguments: [user, recipe])
                return try Self.listDroppingStaleChecks(user: user, db)
            }
        }
    }

    // MARK: Manual items

    public func addEdibleItem(
        _ facts: ListIngredientFacts, quantity: Double, unit: MeasureUnit, user: String, now: Date
    ) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                try GroceriesQuotas.checkManualItems(user: user, db)
                try Self.upsert(facts, db)
                try db.execute(
                    sql: "INSERT INTO manual_item (user, ingredient, quantity, unit, added_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [user, facts.id, quantity, unit.rawValue, now.timeIntervalSince1970])
                return try Self.list(user: user, db)
            }
        }
    }

    public func addNonEdibleItem(_ text: String, count: Int?, user: String, now: Date) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                try GroceriesQuotas.checkManualItems(user: user, db)
                try db.execute(
                    sql: "INSERT INTO manual_item (user, text, count, added_at) VALUES (?, ?, ?, ?)",
                    arguments: [user, text, count, now.timeIntervalSince1970])
                return try Self.list(user: user, db)
            }
        }
    }

    public func removeItem(_ id: Int64, user: String) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM manual_item WHERE user = ? AND id = ?", arguments: [user, id])
                guard db.changesCount > 0 else { throw ServiceError.notFound("no item \(id) on the list", field: "id") }
                return try Self.listDroppingStaleChecks(user: user, db)
            }
        }
    }

    // MARK: Check-off

    public func check(_ lines: [String], checked: Bool, user: String) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                let current = Set(try Self.list(user: user, db).lines.map(\.id))
                for (index, line) in lines.enumerated() where !current.contains(line) {
                    throw ServiceError.notFound("no line \"\(line)\" on the list", field: "lines.\(index)")
                }
                for line in lines {
                    if checked {
                        try db.execute(sql: "INSERT OR IGNORE INTO checked_line (user, line) VALUES (?, ?)", arguments: [user, line])
                    } else {
                        try db.execute(sql: "DELETE FROM checked_line WHERE user = ? AND line = ?", arguments: [user, line])
                    }
                }
                return try Self.list(user: user, db)
            }
        }
    }

    /// Empties the list, or takes the checked lines off it: a checked ingredient is left out of
    /// every recipe on the list and its manual items are deleted; a checked item is deleted.
    public func clear(checkedOnly: Bool, user: String) throws(ServiceError) -> GroceryList {
        try storage {
            try writer.write { db in
                if checkedOnly {
                    for line in try Self.list(user: user, db).lines where line.checked {
                        if let ingredient = line.ingredient {
                            try db.execute(
                                sql: "UPDATE recipe_share SET excluded = 1 WHERE user = ? AND ingredient = ?", arguments: [user, ingredient])
                            try db.execute(sql: "DELETE FROM manual_item WHERE user = ? AND ingredient = ?", arguments: [user, ingredient])
                        } else if case .item(let id)? = GroceryLineID(line.id) {
                            try db.execute(sql: "DELETE FROM manual_item WHERE user = ? AND id = ?", arguments: [user, id])
                        }
                    }
                } else {
                    try Self.empty(user: user, db)
                }
                return try Self.listDroppingStaleChecks(user: user, db)
            }
        }
    }

    // MARK: Checkout

    /// Stores the list as an order and empties it, in one transaction; badRequest on an empty list.
    public func checkout(_ request: ValidCheckout, user: String, now: Date) throws(ServiceError) -> GroceryOrder {
        try storage {
            try writer.write { db in
                let list = try Self.list(user: user, db)
                guard list.lineCount > 0 else { throw ServiceError.badRequest("the list is empty: add a recipe or an item first", field: "list") }
                try GroceriesQuotas.ordersPerDay.check(
                    current: Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM grocery_order WHERE user = ? AND placed_at > ?",
                        arguments: [user, now.timeIntervalSince1970 - 86_400]
                    ) ?? 0)
                let recipes = list.recipes.map(\.recipe)
                try db.execute(
                    sql: """
                        INSERT INTO grocery_order (user, placed_at, phone, street, postal_code, city, note, total, recipes)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        user, now.timeIntervalSince1970, request.phone, request.street, request.postalCode, request.city, request.note,
                        list.total, recipes.joined(separator: "\n"),
                    ])
                let id = db.lastInsertedRowID
                let lines = list.lines.map { line in
                    OrderLine(
                        ingredient: line.ingredient, name: line.name, category: line.category, quantity: line.quantity, unit: line.unit,
                        count: line.count,
                        price: line.price, checked: line.checked
                    )
                }
                for (position, line) in lines.enumerated() {
                    try db.execute(
                        sql: """
                            INSERT INTO order_line (order_id, position, ingredient, name, category, quantity, unit, count, price, checked)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            id, position, line.ingredient, line.name, line.category.rawValue, line.quantity, line.unit?.rawValue, line.count,
                            line.price, line.checked,
                        ])
                }
                try Self.empty(user: user, db)
                return GroceryOrder(
                    id: id, placedAt: now, phone: request.phone,
                    address: DeliveryAddress(street: request.street, postalCode: request.postalCode, city: request.city), note: request.note,
                    lines: lines, total: list.total, recipes: recipes
                )
            }
        }
    }
}
