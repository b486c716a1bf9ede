public import Foundation
import GRDB
public import SousRuntime
public import SousSchema
public import SousWire

/// The groceries data: every read and write, each write one transaction that answers with the
/// list as it is after the write.
///
/// Lists are kept in memory at their version (``ListVersion``): a read asks the database for the
/// version and aggregates again only if it changed.
public final class GroceriesStore: Sendable {
    public let database: SousDatabase
    var writer: SousDatabase { database }
    let lists: VersionedCache<ListVersion, GroceryList>

    public init(database: SousDatabase, cachedLists: Int = 2_000) {
        self.database = database
        lists = VersionedCache(capacity: cachedLists)
    }

    // MARK: Reads

    public func list(user: String) throws(ServiceError) -> GroceryList {
        let (version, list, built) = try storage {
            try writer.read { db in
                let version = try Self.version(user: user, db)
                if let cached = lists.value(for: user, at: version) { return (version, cached, false) }
                return (version, try Self.list(user: user, version: version, db), true)
            }
        }
        if built { lists.store(list, for: user, at: version) }
        return list
    }

    /// The list aggregated from the database, whatever is kept: what a read costs when the list
    /// changed elsewhere (benchmarks compare the two).
    public func aggregate(user: String) throws(ServiceError) -> GroceryList {
        try storage { try writer.read { db in try Self.list(user: user, version: Self.version(user: user, db), db) } }
    }

    public func hasRecipe(_ recipe: String, user: String) throws(ServiceError) -> Bool {
        try storage {
            try writer.read { db in
                try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM list_recipe WHERE user = ? AND recipe = ?"), arguments: [user, recipe])
                    ?? false
            }
        }
    }

    /// Newest first.
    public func orders(user: String, limit: Int) throws(ServiceError) -> [GroceryOrder] {
        try storage {
            try writer.read { db in
                let orders = try OrderRecord.filter(OrderRecord.Columns.user == user).order(OrderRecord.Columns.id.desc).limit(limit).fetchAll(db)
                return try orders.map { record in
                    var order = record.order
                    order.lines = try OrderLineRecord.filter(OrderLineRecord.Columns.order == order.id).order(OrderLineRecord.Columns.position)
                        .fetchAll(db).map(\.line)
                    return order
                }
            }
        }
    }

    // MARK: Recipes

    /// Puts a recipe on the list, or raises the multiplier of one already on it (whose snapshot
    /// is kept; `snapshot` is then ignored). `exclude` joins the recipe's exclusions.
    public func addRecipe(
        _ recipe: String, snapshot: RecipeSnapshot?, multiplier: Int, exclude: [String], ingredients: [ListIngredientFacts], user: String, now: Date,
        withList: Bool = false
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, withList: withList) { db in
            for facts in ingredients { try Self.upsert(facts, db) }
            if let current = try Int.fetchOne(
                db, sql: "SELECT multiplier FROM list_recipe WHERE user = ? AND recipe = ?", arguments: [user, recipe])
            {
                let total = current + multiplier
                guard total <= 100 else {
                    throw ServiceError.badRequest("\(recipe) would be bought \(total) times; at most 100", field: "multiplier")
                }
                try Self.requireInRecipe(exclude, recipe: recipe, user: user, field: "exclude", db)
                try db.cachedStatement(sql: "UPDATE list_recipe SET multiplier = ? WHERE user = ? AND recipe = ?").execute(arguments: [
                    total, user, recipe,
                ])
            } else {
                guard let snapshot else { throw ServiceError.notFound("\(recipe) is not on the list", field: "recipe") }
                try GroceriesQuotas.listRecipes.check(
                    current: Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM list_recipe WHERE user = ?"), arguments: [user]) ?? 0)
                let used = Set(snapshot.lines.map(\.ingredient))
                for (index, id) in exclude.enumerated() where !used.contains(id) {
                    throw ServiceError.notFound("\(snapshot.name) does not use \"\(id)\"", field: "exclude.\(index)")
                }
                let listed = ListRecipe(
                    recipe: recipe, name: snapshot.name, multiplier: multiplier, people: snapshot.people, servings: snapshot.servings,
                    excluded: [], addedAt: now)
                try ListRecipeRecord(user: user, recipe: listed).insert(db)
                for (position, line) in snapshot.lines.enumerated() {
                    try RecipeShareRecord(
                        user: user, recipe: recipe, position: position, ingredient: line.ingredient, quantity: line.quantity, unit: line.unit
                    ).insert(db)
                }
            }
            try Self.setExcluded(exclude, true, recipe: recipe, user: user, db)
        }
    }

    /// Changes a listed recipe's multiplier and exclusions.
    public func setRecipe(_ request: SetListRecipe, user: String) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, droppingStaleChecks: true, withList: request.wantsList) { db in
            try Self.requireListed(request.recipe, user: user, db)
            try Self.requireInRecipe(request.exclude ?? [], recipe: request.recipe, user: user, field: "exclude", db)
            try Self.requireInRecipe(request.include ?? [], recipe: request.recipe, user: user, field: "include", db)
            if let multiplier = request.multiplier {
                try db.execute(
                    sql: "UPDATE list_recipe SET multiplier = ? WHERE user = ? AND recipe = ?", arguments: [multiplier, user, request.recipe])
            }
            try Self.setExcluded(request.exclude ?? [], true, recipe: request.recipe, user: user, db)
            try Self.setExcluded(request.include ?? [], false, recipe: request.recipe, user: user, db)
        }
    }

    public func removeRecipe(_ recipe: String, user: String, withList: Bool = false) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, droppingStaleChecks: true, withList: withList) { db in
            try Self.requireListed(recipe, user: user, db)
            try db.cachedStatement(sql: "DELETE FROM list_recipe WHERE user = ? AND recipe = ?").execute(arguments: [user, recipe])
        }
    }

    // MARK: Manual items

    public func addEdibleItem(
        _ facts: ListIngredientFacts, quantity: Double, unit: MeasureUnit, user: String, now: Date, withList: Bool = false
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, withList: withList) { db in
            try GroceriesQuotas.checkManualItems(user: user, db)
            try Self.upsert(facts, db)
            try db.execute(
                sql: "INSERT INTO manual_item (user, ingredient, quantity, unit, added_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [user, facts.id, quantity, unit.rawValue, now.timeIntervalSince1970])
        }
    }

    public func addNonEdibleItem(
        _ text: String, count: Int?, user: String, now: Date, withList: Bool = false
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, withList: withList) { db in
            try GroceriesQuotas.checkManualItems(user: user, db)
            try db.execute(
                sql: "INSERT INTO manual_item (user, text, count, added_at) VALUES (?, ?, ?, ?)",
                arguments: [user, text, count, now.timeIntervalSince1970])
        }
    }

    public func removeItem(_ id: Int64, user: String, withList: Bool = false) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, droppingStaleChecks: true, withList: withList) { db in
            try db.cachedStatement(sql: "DELETE FROM manual_item WHERE user = ? AND id = ?").execute(arguments: [user, id])
            guard db.changesCount > 0 else { throw ServiceError.notFound("no item \(id) on the list", field: "id") }
        }
    }

    // MARK: Check-off

    public func check(_ lines: [String], checked: Bool, user: String, withList: Bool = false) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, withList: withList) { db in
            let current = Set(try Self.list(user: user, version: nil, db).lines.map(\.id))
            for (index, line) in lines.enumerated() where !current.contains(line) {
                throw ServiceError.notFound("no line \"\(line)\" on the list", field: "lines.\(index)")
            }
            for line in lines {
                if checked {
                    try db.cachedStatement(sql: "INSERT OR IGNORE INTO checked_line (user, line) VALUES (?, ?)").execute(arguments: [user, line])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM checked_line WHERE user = ? AND line = ?").execute(arguments: [user, line])
                }
            }
        }
    }

    /// Empties the list, or takes the checked lines off it: a checked ingredient is left out of
    /// every recipe on the list and its manual items are deleted; a checked item is deleted.
    public func clear(checkedOnly: Bool, user: String, withList: Bool = false) throws(ServiceError) -> GroceryListChange {
        try changeList(user: user, droppingStaleChecks: true, withList: withList) { db in
            if checkedOnly {
                for line in try Self.list(user: user, version: nil, db).lines where line.checked {
                    if let ingredient = line.ingredient {
                        try db.execute(
                            sql: "UPDATE recipe_share SET excluded = 1 WHERE user = ? AND ingredient = ?", arguments: [user, ingredient])
                        try db.cachedStatement(sql: "DELETE FROM manual_item WHERE user = ? AND ingredient = ?").execute(arguments: [
                            user, ingredient,
                        ])
                    } else if case .item(let id)? = GroceryLineID(line.id) {
                        try db.cachedStatement(sql: "DELETE FROM manual_item WHERE user = ? AND id = ?").execute(arguments: [user, id])
                    }
                }
            } else {
                try Self.empty(user: user, db)
            }
        }
    }

    // MARK: Checkout

    /// Stores the list as an order and empties it, in one transaction; badRequest on an empty list.
    /// Also answers the emptied list's version.
    public func checkout(_ request: ValidCheckout, user: String, now: Date) throws(ServiceError) -> (order: GroceryOrder, version: Int64) {
        try storage {
            try writer.write { db in
                let list = try Self.list(user: user, version: nil, db)
                guard list.lineCount > 0 else { throw ServiceError.badRequest("the list is empty: add a recipe or an item first", field: "list") }
                try GroceriesQuotas.ordersPerDay.check(
                    current: Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM grocery_order WHERE user = ? AND placed_at > ?",
                        arguments: [user, now.timeIntervalSince1970 - 86_400]
                    ) ?? 0)
                let lines = list.lines.map { line in
                    OrderLine(
                        ingredient: line.ingredient, name: line.name, category: line.category, quantity: line.quantity, unit: line.unit,
                        count: line.count, price: line.price, checked: line.checked
                    )
                }
                var record = OrderRecord(
                    user: user,
                    order: GroceryOrder(
                        id: 0, placedAt: now, phone: request.phone,
                        address: DeliveryAddress(street: request.street, postalCode: request.postalCode, city: request.city), note: request.note,
                        lines: [], total: list.total, recipes: list.recipes.map(\.recipe)))
                try record.insert(db)
                for (position, line) in lines.enumerated() {
                    try OrderLineRecord(order: record.order.id, position: position, line: line).insert(db)
                }
                try Self.empty(user: user, db)
                let version = try Self.nextVersion(user: user, db)
                var order = record.order
                order.lines = lines
                return (order, version.list)
            }
        }
    }

    // MARK: Changing the list

    /// Every change to a list goes through here: the change, a new version and the counts the
    /// reply carries, in one transaction. The list is aggregated in that transaction only when
    /// the change can remove lines (their check marks go, so a line that comes back later starts
    /// unchecked) or the caller asked for it; then it is kept at its version once committed.
    /// Otherwise the next read aggregates it.
    func changeList(
        user: String, droppingStaleChecks: Bool = false, withList: Bool, _ change: (Database) throws -> Void
    ) throws(ServiceError) -> GroceryListChange {
        let (version, reply, list) = try storage {
            try writer.write { db in
                try change(db)
                let version = try Self.nextVersion(user: user, db)
                let list: GroceryList? =
                    droppingStaleChecks
                    ? try Self.listDroppingStaleChecks(user: user, version: version, db)
                    : withList ? try Self.list(user: user, version: version, db) : nil
                var reply = try Self.change(user: user, version: version.list, db)
                if withList { reply.list = list }
                return (version, reply, list)
            }
        }
        if let list { lists.store(list, for: user, at: version) }
        return reply
    }
}
