public import Foundation
public import SousRuntime
public import SousSchema
public import SousWire

/// The groceries data: every read and write, each write one transaction that answers with the
/// list as it is after the write.
///
/// The SQL is the same on SQLite and PostgreSQL (``SQLSession``). On PostgreSQL a write's body
/// may run more than once (see ``SousDatabase/write(_:)``): it only touches the database and
/// returns what the caller keeps or publishes afterwards.
public final class GroceriesStore: Sendable {
    public let database: SousDatabase
    /// The ingredient facts last stored from here, so that adding a recipe whose ingredients are
    /// stored as the catalog describes them writes none of them again.
    let committedFacts = CommittedFacts()

    public init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Reads

    /// The household's list, aggregated from what is stored.
    public func list(household: String) throws(ServiceError) -> GroceryList {
        try storage {
            try database.read { session in try Self.list(household: household, version: Self.version(household: household, session), session) }
        }
    }

    /// The household's list version (0 before its first change).
    public func version(household: String) throws(ServiceError) -> Int64 {
        try storage { try database.read { session in try Self.version(household: household, session).list } }
    }

    public func hasRecipe(_ recipe: String, household: String) throws(ServiceError) -> Bool {
        try storage { try database.read { session in try Self.isListed(recipe, household: household, session) } }
    }

    /// Newest first.
    public func orders(household: String, limit: Int) throws(ServiceError) -> [GroceryOrder] {
        try storage { try database.read { session in try Self.orders(household: household, newestFirst: limit, session) } }
    }

    /// The household's orders with their lines: the newest `limit`, or every one oldest first.
    static func orders(household: String, newestFirst limit: Int?, _ session: any SQLSession) throws -> [GroceryOrder] {
        let orders =
            try limit.map {
                try session.fetchAll(OrderRecord.self, #"SELECT * FROM grocery_order WHERE household = ? ORDER BY id DESC LIMIT ?"#, [household, $0])
            } ?? session.fetchAll(OrderRecord.self, #"SELECT * FROM grocery_order WHERE household = ? ORDER BY id"#, [household])
        return try orders.map { record in
            var order = record.order
            order.lines = try session.fetchAll(OrderLineRecord.self, "SELECT * FROM order_line WHERE order_id = ? ORDER BY position", [order.id])
                .map(\.line)
            return order
        }
    }

    // MARK: Recipes

    /// Puts a recipe on the list, or raises the multiplier of one already on it (whose snapshot
    /// is kept; `snapshot` is then ignored). `exclude` joins the recipe's exclusions.
    public func addRecipe(
        _ recipe: String, snapshot: RecipeSnapshot?, multiplier: Int, exclude: [String], ingredients: [ListIngredientFacts], household: String,
        now: Date,
        withList: Bool = false, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, withList: withList, storing: ingredients, idempotent: scope) { session, known in
            // The recipe's multiplier if listed, the list's counts (the quota's, and the reply's
            // less a new recipe) and where a new recipe goes (after the last), in one query.
            let before = try Self.listState(household: household, recipe: recipe, session)
            known.counts = before.counts
            if let current = before.multiplier {
                let total = current + multiplier
                guard total <= 100 else {
                    throw ServiceError.badRequest("\(recipe) would be bought \(total) times; at most 100", field: "multiplier")
                }
                try Self.requireInRecipe(exclude, recipe: recipe, household: household, field: "exclude", session)
                try session.execute(Self.setMultiplier, [total, household, recipe])
            } else {
                guard let snapshot else { throw ServiceError.notFound("\(recipe) is not on the list", field: "recipe") }
                try GroceriesQuotas.listRecipes.check(current: before.counts.recipes)
                let position = before.lastPosition + 1
                let used = Set(snapshot.lines.map(\.ingredient))
                for (index, id) in exclude.enumerated() where !used.contains(id) {
                    throw ServiceError.notFound("\(snapshot.name) does not use \"\(id)\"", field: "exclude.\(index)")
                }
                let listed = ListRecipe(
                    recipe: recipe, name: snapshot.name, multiplier: multiplier, people: snapshot.people, servings: snapshot.servings,
                    excluded: [], addedAt: now)
                try session.insert(ListRecipeRecord(household: household, recipe: listed, position: position))
                known.counts?.recipes += 1
                try session.insert(
                    all: snapshot.lines.enumerated().map { position, line in
                        RecipeShareRecord(
                            household: household, recipe: recipe, position: position, ingredient: line.ingredient, quantity: line.quantity,
                            unit: line.unit)
                    })
            }
            try Self.setExcluded(exclude, true, recipe: recipe, household: household, session)
        }
    }

    /// Changes a listed recipe's multiplier and exclusions.
    public func setRecipe(
        _ request: SetListRecipe, household: String, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, droppingStaleChecks: true, withList: request.wantsList, idempotent: scope) { session, _ in
            try Self.requireListed(request.recipe, household: household, session)
            try Self.requireInRecipe(request.exclude ?? [], recipe: request.recipe, household: household, field: "exclude", session)
            try Self.requireInRecipe(request.include ?? [], recipe: request.recipe, household: household, field: "include", session)
            if let multiplier = request.multiplier { try session.execute(Self.setMultiplier, [multiplier, household, request.recipe]) }
            try Self.setExcluded(request.exclude ?? [], true, recipe: request.recipe, household: household, session)
            try Self.setExcluded(request.include ?? [], false, recipe: request.recipe, household: household, session)
        }
    }

    public func removeRecipe(
        _ recipe: String, household: String, withList: Bool = false, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, droppingStaleChecks: true, withList: withList, idempotent: scope) { session, _ in
            try Self.requireListed(recipe, household: household, session)
            try session.execute(#"DELETE FROM list_recipe WHERE household = ? AND recipe = ?"#, [household, recipe])
        }
    }

    // MARK: Manual items

    public func addEdibleItem(
        _ facts: ListIngredientFacts, quantity: Double, unit: MeasureUnit, household: String, now: Date, withList: Bool = false,
        idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, withList: withList, storing: [facts], idempotent: scope) { session, _ in
            try GroceriesQuotas.checkManualItems(household: household, session)
            try session.execute(
                #"INSERT INTO manual_item (household, ingredient, quantity, unit, added_at) VALUES (?, ?, ?, ?, ?)"#,
                [household, facts.id, quantity, unit.rawValue, now.timeIntervalSince1970])
        }
    }

    public func addNonEdibleItem(
        _ text: String, count: Int?, household: String, now: Date, withList: Bool = false, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, withList: withList, idempotent: scope) { session, _ in
            try GroceriesQuotas.checkManualItems(household: household, session)
            try session.execute(
                #"INSERT INTO manual_item (household, text, count, added_at) VALUES (?, ?, ?, ?)"#,
                [household, text, count, now.timeIntervalSince1970])
        }
    }

    public func removeItem(
        _ id: Int64, household: String, withList: Bool = false, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, droppingStaleChecks: true, withList: withList, idempotent: scope) { session, _ in
            guard try session.execute(Self.deleteItem, [household, id]) > 0 else {
                throw ServiceError.notFound("no item \(id) on the list", field: "id")
            }
        }
    }

    // MARK: Check-off

    public func check(
        _ lines: [String], checked: Bool, household: String, withList: Bool = false, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, withList: withList, idempotent: scope) { session, _ in
            let current = Set(try Self.list(household: household, version: nil, session).lines.map(\.id))
            for (index, line) in lines.enumerated() where !current.contains(line) {
                throw ServiceError.notFound("no line \"\(line)\" on the list", field: "lines.\(index)")
            }
            for line in lines {
                if checked {
                    try session.execute(#"INSERT INTO checked_line (household, line) VALUES (?, ?) ON CONFLICT DO NOTHING"#, [household, line])
                } else {
                    try session.execute(#"DELETE FROM checked_line WHERE household = ? AND line = ?"#, [household, line])
                }
            }
        }
    }

    /// Empties the list, or takes the checked lines off it: a checked ingredient is left out of
    /// every recipe on the list and its manual items are deleted; a checked item is deleted.
    /// Checked lines taken off were bought: the pantry gets them when the household restocks.
    public func clear(
        checkedOnly: Bool, household: String, withList: Bool = false, now: Date, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> GroceryListChange {
        try changeList(household: household, droppingStaleChecks: true, withList: withList, idempotent: scope) { session, _ in
            if checkedOnly {
                let bought = try Self.list(household: household, version: nil, session).lines.filter(\.checked)
                try Self.restock(bought, household: household, now: now, session)
                for line in bought {
                    if let ingredient = line.ingredient {
                        try session.execute(#"UPDATE recipe_share SET excluded = 1 WHERE household = ? AND ingredient = ?"#, [household, ingredient])
                        try session.execute(#"DELETE FROM manual_item WHERE household = ? AND ingredient = ?"#, [household, ingredient])
                    } else if case .item(let id)? = GroceryLineID(line.id) {
                        try session.execute(Self.deleteItem, [household, id])
                    }
                }
            } else {
                try Self.empty(household: household, session)
            }
        }
    }

    // MARK: Checkout

    /// Stores the list as an order and empties it, in one transaction; badRequest on an empty list.
    /// Also answers the emptied list's version.
    public func checkout(_ request: ValidCheckout, household: String, now: Date) throws(ServiceError) -> (order: GroceryOrder, version: Int64) {
        try storage {
            try database.write { session in
                let list = try Self.list(household: household, version: nil, session)
                guard list.lineCount > 0 else { throw ServiceError.badRequest("the list is empty: add a recipe or an item first", field: "list") }
                try GroceriesQuotas.checkOrdersPerDay(household: household, now: now, session)
                let lines = list.lines.map { line in
                    OrderLine(
                        ingredient: line.ingredient, name: line.name, category: line.category, quantity: line.quantity, unit: line.unit,
                        count: line.count, price: line.price, checked: line.checked
                    )
                }
                var record = OrderRecord(
                    household: household,
                    order: GroceryOrder(
                        id: 0, placedAt: now, phone: request.phone,
                        address: DeliveryAddress(street: request.street, postalCode: request.postalCode, city: request.city), note: request.note,
                        lines: [], total: list.total, recipes: list.recipes.map(\.recipe)))
                try record.insert(session)
                try session.insert(
                    all: lines.enumerated().map { position, line in OrderLineRecord(order: record.order.id, position: position, line: line) })
                try Self.restock(list.lines, household: household, now: now, session)
                try Self.empty(household: household, session)
                let version = try Self.nextVersion(household: household, session)
                var order = record.order
                order.lines = lines
                return (order, version.list)
            }
        }
    }

    // MARK: Changing the list

    /// Every change to a list goes through here: the change, a new version and the counts the
    /// reply carries, in one transaction whose value is the reply (stored with the request's
    /// idempotency key, `scope`). The list is aggregated in that transaction only when the
    /// change can remove lines (their check marks go, so a line that comes back later starts
    /// unchecked) or the caller asked for it.
    ///
    /// What the change already knows of the list after it (``ChangeKnowledge``) is not read again.
    func changeList(
        household: String, droppingStaleChecks: Bool = false, withList: Bool, idempotent scope: IdempotencyScope?,
        _ change: (any SQLSession, inout ChangeKnowledge) throws -> Void
    ) throws(ServiceError) -> GroceryListChange {
        try storage {
            try database.write(idempotent: scope) { session -> GroceryListChange in
                var known = ChangeKnowledge()
                try change(session, &known)
                let version = try Self.nextVersion(household: household, facts: known.factsGeneration, session)
                let list: GroceryList? =
                    droppingStaleChecks
                    ? try Self.listDroppingStaleChecks(household: household, version: version, session)
                    : withList ? try Self.list(household: household, version: version, session) : nil
                let counts = try known.counts ?? Self.counts(household: household, session)
                var reply = GroceryListChange(
                    version: version.list, recipeCount: counts.recipes, itemCount: counts.items, checkedCount: counts.checked)
                if withList { reply.list = list }
                return reply
            }
        }
    }

    /// ``changeList(household:droppingStaleChecks:withList:_:)`` that first stores what the catalog
    /// said of `facts` (those ``committedFacts`` does not know stored already), and tells it
    /// what was stored once the change is committed.
    func changeList(
        household: String, withList: Bool, storing facts: [ListIngredientFacts], idempotent scope: IdempotencyScope?,
        _ change: (any SQLSession, inout ChangeKnowledge) throws -> Void
    ) throws(ServiceError) -> GroceryListChange {
        var written: FactsWritten?
        let reply = try changeList(household: household, withList: withList, idempotent: scope) { session, known in
            let stored = try Self.upsert(facts, knownTo: committedFacts, session)
            written = stored
            known.factsGeneration = stored.after
            try change(session, &known)
        }
        if let written { committedFacts.record(written) }
        return reply
    }
}
