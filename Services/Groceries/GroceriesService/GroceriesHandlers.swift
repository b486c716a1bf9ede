import Foundation
import SousRuntime
import SousSchema
import SousUnits
import SousWire

/// The groceries methods: validate everything, read what is needed from the peers, write in one
/// transaction, then publish `groceries.changed` (the runtime records activity).
struct GroceriesHandlers: Sendable {
    let host: HostParts
    let store: GroceriesStore
    let peers: GroceriesPeers
    /// Wakes `groceries.wait` calls when their household's list changes.
    let changes: ChangeSignals

    /// Above this a multiplier is a typo, not a shopping list.
    static let maximumMultiplier = 100

    /// The route table: every method the groceries service serves and the function that answers it.
    func register(on server: RPCServer) {
        server.register(GroceriesAPI.list, use: list)
        server.register(GroceriesAPI.addRecipe, use: addRecipe)
        server.register(GroceriesAPI.setRecipe, use: setRecipe)
        server.register(GroceriesAPI.removeRecipe, use: removeRecipe)
        server.register(GroceriesAPI.addItem, use: addListItem)
        server.register(GroceriesAPI.removeItem, use: removeItem)
        server.register(GroceriesAPI.check, use: check)
        server.register(GroceriesAPI.clear, use: clear)
        server.register(GroceriesAPI.checkout, use: checkout)
        server.register(GroceriesAPI.orders, use: orders)
        server.register(GroceriesAPI.wait, use: wait)
        server.register(GroceriesAPI.exportArchive, use: exportArchive)
        server.register(GroceriesAPI.importArchive, use: importArchive)
        registerPantry(on: server)
    }

    // MARK: The list and its recipes

    func list(_ request: Empty, user: String, context: RequestContext) throws -> GroceryList {
        try store.list(household: try context.requireHousehold())
    }

    func addRecipe(_ request: AddRecipeToList, user: String, context: RequestContext) async throws -> GroceryListChange {
        let recipe = try Self.recipeID(request.recipe)
        if let multiplier = request.multiplier { try Self.validate(multiplier: multiplier) }
        let exclude = request.exclude ?? []
        var snapshot: RecipeSnapshot?
        var facts: [ListIngredientFacts] = []
        var multiplier = request.multiplier
        do {
            // The household and the planned slots (kept from the planner, read from it only
            // when not kept) and one catalog read of the recipe at its own servings with its
            // ingredients' facts (notFound for an id nobody knows), scaled here for the household.
            // Asked without first reading whether the recipe is listed already (a read that
            // took a twentieth of an add): most adds are of a recipe not on the list yet, and
            // the write keeps the snapshot of one that is, raising only its multiplier.
            let (household, read) = try await peers.householdAndRecipe(recipe, user: user, for: context)
            guard read.people >= 1 else { throw ServiceError.internal("the catalog read \(recipe) for \(read.people) people") }
            facts = read.ingredientFacts ?? []
            snapshot = RecipeSnapshot(read, people: household.people)
            multiplier = multiplier ?? min(max(household.plannedSlots, 1), Self.maximumMultiplier)
        } catch {
            // A recipe already on the list needs nothing from the catalog (down, or the recipe
            // no longer there for this user): its multiplier still goes up.
            guard try store.hasRecipe(recipe, household: try context.requireHousehold()) else { throw error }
            if multiplier == nil {
                multiplier = min(max(try await peers.household(recipe, user: user, for: context).plannedSlots, 1), Self.maximumMultiplier)
            }
        }
        let change = try store.addRecipe(
            recipe, snapshot: snapshot, multiplier: multiplier ?? 1, exclude: exclude, ingredients: facts, household: try context.requireHousehold(),
            now: host.clock.now,
            withList: request.wantsList, idempotent: context.idempotency
        )
        return changed(change, user: user, context: context)
    }

    func setRecipe(_ request: SetListRecipe, user: String, context: RequestContext) throws -> GroceryListChange {
        let recipe = try Self.recipeID(request.recipe)
        if let multiplier = request.multiplier { try Self.validate(multiplier: multiplier) }
        guard request.multiplier != nil || request.exclude?.isEmpty == false || request.include?.isEmpty == false else {
            throw ServiceError.badRequest("nothing to change: give a multiplier, exclude or include", field: "multiplier")
        }
        let excluded = Set(request.exclude ?? [])
        for (index, id) in (request.include ?? []).enumerated() where excluded.contains(id) {
            throw ServiceError.badRequest("\(id) cannot be both excluded and included", field: "include.\(index)")
        }
        var cleaned = request
        cleaned.recipe = recipe
        let change = try store.setRecipe(cleaned, household: try context.requireHousehold(), idempotent: context.idempotency)
        return changed(change, user: user, context: context)
    }

    func removeRecipe(_ request: RemoveListRecipe, user: String, context: RequestContext) throws -> GroceryListChange {
        let change = try store.removeRecipe(
            try Self.recipeID(request.id, field: "id"), household: try context.requireHousehold(), withList: request.wantsList,
            idempotent: context.idempotency)
        return changed(change, user: user, context: context)
    }

    // MARK: Items and lines

    func addListItem(_ request: AddListItem, user: String, context: RequestContext) async throws -> GroceryListChange {
        let change = try await addItem(request, user: user, context: context)
        return changed(change, user: user, context: context)
    }

    func removeItem(_ request: RemoveListItem, user: String, context: RequestContext) throws -> GroceryListChange {
        let change = try store.removeItem(
            request.id, household: try context.requireHousehold(), withList: request.wantsList, idempotent: context.idempotency)
        return changed(change, user: user, context: context)
    }

    func check(_ request: CheckLines, user: String, context: RequestContext) throws -> GroceryListChange {
        guard !request.lines.isEmpty else { throw ServiceError.badRequest("name at least one line", field: "lines") }
        guard request.lines.count <= 1000 else { throw ServiceError.badRequest("at most 1000 lines per call", field: "lines") }
        let change = try store.check(
            request.lines, checked: request.checked, household: try context.requireHousehold(), withList: request.wantsList,
            idempotent: context.idempotency)
        return changed(change, user: user, context: context)
    }

    func clear(_ request: ClearList, user: String, context: RequestContext) throws -> GroceryListChange {
        let change = try store.clear(
            checkedOnly: request.checkedOnly, household: try context.requireHousehold(), withList: request.wantsList, now: host.clock.now,
            idempotent: context.idempotency)
        return changed(change, user: user, context: context)
    }

    // MARK: Checkout and orders

    func checkout(_ request: Checkout, user: String, context: RequestContext) throws -> GroceryOrder {
        let valid = try CheckoutValidation.validate(request)
        let (order, version) = try store.checkout(valid, household: try context.requireHousehold(), now: host.clock.now)
        announce(user: user, version: version, context: context)
        return order
    }

    func orders(_ request: OrderQuery, user: String, context: RequestContext) throws -> OrderHistory {
        let limit = request.limit ?? 20
        guard (1...100).contains(limit) else { throw ServiceError.badRequest("limit must be 1 to 100, got \(limit)", field: "limit") }
        let orders = try store.orders(household: try context.requireHousehold(), limit: limit)
        return OrderHistory(orders: orders)
    }

    // MARK: Live changes

    /// `groceries.wait`: answers as soon as the household's list is past `after` (at once if it
    /// already is), else when `waitSeconds` have passed, with the list's version then.
    func wait(_ request: ListWait, user: String, context: RequestContext) async throws -> ListVersionNow {
        guard request.after >= 0 else { throw ServiceError.badRequest("after is a list version, 0 or more", field: "after") }
        let household = try context.requireHousehold()
        let version = try await changes.longPoll(
            household, waitSeconds: request.waitSeconds, context: context, read: { try store.version(household: household) },
            isNew: { $0 > request.after })
        return ListVersionNow(version: version, changed: version > request.after)
    }

    // MARK: Helpers

    /// An edible item (ingredient + quantity, merged into its line) or a non-edible one (text + count).
    func addItem(_ request: AddListItem, user: String, context: RequestContext) async throws(ServiceError) -> GroceryListChange {
        let text = request.text?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let ingredient = request.ingredient {
            guard request.text == nil, request.count == nil else {
                throw .badRequest(
                    "an item is either an ingredient with a quantity or a text with a count, not both", field: request.text != nil ? "text" : "count")
            }
            guard !ingredient.isEmpty else { throw .badRequest("ingredient id is empty", field: "ingredient") }
            guard let quantity = request.quantity else { throw .badRequest("an ingredient item needs a quantity", field: "quantity") }
            guard quantity.isFinite, quantity > 0, quantity <= 100_000 else {
                throw .badRequest("quantity must be above 0 and at most 100000, got \(quantity)", field: "quantity")
            }
            guard let found = try await peers.ingredients([ingredient], notFoundField: "ingredient", for: context).first else {
                throw .notFound("no ingredient \"\(ingredient)\"", field: "ingredient")
            }
            let facts = ListIngredientFacts(found)
            let unit = request.unit ?? facts.unit
            guard facts.accepts(unit) else {
                throw .badRequest(
                    "\(facts.name) cannot be measured in \(unit.rawValue) (no \(QuantityDimension(unit) == .count ? "piece weight" : "density") known)",
                    field: "unit")
            }
            return try store.addEdibleItem(
                facts, quantity: quantity, unit: unit, household: try context.requireHousehold(), now: host.clock.now, withList: request.wantsList,
                idempotent: context.idempotency)
        }
        guard request.quantity == nil, request.unit == nil else {
            throw .badRequest(
                "a text item takes a count, not a quantity or unit (or give an ingredient id)", field: request.quantity != nil ? "quantity" : "unit")
        }
        guard let text, !text.isEmpty else { throw .badRequest("item text is empty: give a text or an ingredient id", field: "text") }
        guard text.count <= 200 else { throw .badRequest("item text is longer than 200 characters", field: "text") }
        if let count = request.count, !(1...1000).contains(count) {
            throw .badRequest("count must be 1 to 1000, got \(count)", field: "count")
        }
        return try store.addNonEdibleItem(
            text, count: request.count, household: try context.requireHousehold(), now: host.clock.now, withList: request.wantsList,
            idempotent: context.idempotency)
    }

    /// Publishes `groceries.changed`, then hands the reply back.
    func changed(_ change: GroceryListChange, user: String, context: RequestContext) -> GroceryListChange {
        announce(user: user, version: change.version, context: context)
        return change
    }

    /// Publishes `groceries.changed` for the household's list and wakes the `groceries.wait`
    /// calls of its members here (those on other replicas wake on the event).
    func announce(user: String, version: Int64, context: RequestContext) {
        guard let household = context.household else { return }
        host.publisher.publish(
            GroceriesTopics.changed, GroceriesChangedEvent(user: user, household: household, change: context.method, version: version))
        changes.changed(household)
    }

    static func recipeID(_ raw: String, field: String = "recipe") throws(ServiceError) -> String {
        // Foundation's trimming costs microseconds even when there is nothing to trim.
        let id = raw.first?.isWhitespace == true || raw.last?.isWhitespace == true ? raw.trimmingCharacters(in: .whitespaces) : raw
        guard !id.isEmpty else { throw .badRequest("recipe id is empty", field: field) }
        guard id.count <= 200 else { throw .badRequest("recipe id is longer than 200 characters", field: field) }
        return id
    }

    static func validate(multiplier: Int) throws(ServiceError) {
        guard multiplier >= 1 else { throw .badRequest("multiplier must be at least 1, got \(multiplier)", field: "multiplier") }
        guard multiplier <= maximumMultiplier else {
            throw .badRequest("multiplier must be at most \(maximumMultiplier), got \(multiplier)", field: "multiplier")
        }
    }
}
