import Foundation
import SousRuntime
import SousSchema
import SousUnits
import SousWire

/// The `pantry.*` methods. Every change to the pantry changes the household's list, so each
/// publishes `groceries.changed` like a list write.
extension GroceriesHandlers {
    func registerPantry(on server: RPCServer) {
        server.register(PantryAPI.get, use: pantry)
        server.register(PantryAPI.add, use: addToPantry)
        server.register(PantryAPI.remove, use: removeFromPantry)
        server.register(PantryAPI.staple, use: staple)
        server.register(PantryAPI.settings, use: pantrySettings)
        server.register(PantryAPI.expiring, use: expiring)
        server.register(PantryAPI.cook, use: cook)
    }

    /// How far ahead a best-before may be.
    static let bestBeforeYears = 10

    func pantry(_ request: Empty, user: String, context: RequestContext) throws -> Pantry {
        try store.pantry(household: try context.requireHousehold())
    }

    func addToPantry(_ request: PantryAdd, user: String, context: RequestContext) async throws -> Pantry {
        guard request.quantity.isFinite, request.quantity > 0, request.quantity <= 100_000 else {
            throw ServiceError.badRequest("quantity must be above 0 and at most 100000, got \(request.quantity)", field: "quantity")
        }
        if let date = request.bestBefore {
            let latest = LocalDate(host.clock.now, in: .gmt).adding(days: 366 * Self.bestBeforeYears)
            guard date >= LocalDate(year: 2000, month: 1, day: 1)!, date <= latest else {
                throw ServiceError.badRequest("a best-before date is from 2000-01-01 to \(latest), not \(date)", field: "bestBefore")
            }
        }
        let location = (request.location ?? "cupboard").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !location.isEmpty, location.count <= 40 else {
            throw ServiceError.badRequest("a location is 1 to 40 characters (fridge, freezer, cupboard, or your own)", field: "location")
        }
        guard !location.containsControlCharacter else {
            throw ServiceError.badRequest("a location cannot contain control characters", field: "location")
        }
        let facts = try await ingredient(request.ingredient, context: context)
        let unit = request.unit ?? facts.unit
        guard facts.accepts(unit) else {
            throw ServiceError.badRequest(
                "\(facts.name) cannot be measured in \(unit.rawValue) (no \(QuantityDimension(unit) == .count ? "piece weight" : "density") known)",
                field: "unit")
        }
        let (pantry, version) = try store.addPantryItem(
            facts, quantity: request.quantity, unit: unit, bestBefore: request.bestBefore, location: location,
            household: try context.requireHousehold(), now: host.clock.now, idempotent: context.idempotency)
        announce(user: user, version: version, context: context)
        return pantry
    }

    func removeFromPantry(_ request: PantryItemRef, user: String, context: RequestContext) throws -> Pantry {
        let (pantry, version) = try store.removePantryItem(request.id, household: try context.requireHousehold(), idempotent: context.idempotency)
        announce(user: user, version: version, context: context)
        return pantry
    }

    func staple(_ request: StapleSetting, user: String, context: RequestContext) async throws -> Pantry {
        guard request.staple || request.out != true else {
            throw ServiceError.badRequest("only a staple can be out of stock", field: "out")
        }
        let facts = try await ingredient(request.ingredient, context: context)
        let (pantry, version) = try store.setStaple(
            facts, staple: request.staple, out: request.out ?? false, household: try context.requireHousehold(), idempotent: context.idempotency)
        announce(user: user, version: version, context: context)
        return pantry
    }

    func pantrySettings(_ request: PantrySettings, user: String, context: RequestContext) throws -> Pantry {
        let (pantry, version) = try store.setRestock(
            request.restockOnCheckout, household: try context.requireHousehold(), idempotent: context.idempotency)
        announce(user: user, version: version, context: context)
        return pantry
    }

    func expiring(_ request: ExpiringQuery, user: String, context: RequestContext) async throws -> ExpiringItems {
        let days = request.days ?? 3
        guard (0...60).contains(days) else { throw ServiceError.badRequest("days must be 0 to 60, got \(days)", field: "days") }
        let profile = try await peers.planner.call(PlannerAPI.getProfile, Empty(), user: user, for: context)
        let today = LocalDate(host.clock.now, in: TimeZone(identifier: profile.timeZone) ?? .gmt)
        return ExpiringItems(
            today: today, items: try store.expiring(household: try context.requireHousehold(), through: today.adding(days: days)))
    }

    /// The recipe read from the catalog at its own servings and scaled to `people` as a list
    /// scales it; tap water left out.
    func cook(_ request: PantryCook, user: String, context: RequestContext) async throws -> PantryTaken {
        let recipe = try Self.recipeID(request.recipe)
        guard (1...50).contains(request.people) else { throw ServiceError.badRequest("people must be 1 to 50", field: "people") }
        guard (1...2).contains(request.slot) else { throw ServiceError.badRequest("slot must be 1 (lunch) or 2 (dinner)", field: "slot") }
        let read = try await peers.recipeWithIngredients(recipe, user: user, for: context)
        let snapshot = RecipeSnapshot(read, people: request.people)
        let facts = Dictionary((read.ingredientFacts ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var used: [GroceriesStore.Used] = []
        for line in snapshot.lines {
            guard let known = facts[line.ingredient], known.bought else { continue }
            if let index = used.firstIndex(where: { $0.facts.id == line.ingredient }),
                let added = known.convert(
                    line.quantity * line.unit.baseFactor, from: QuantityDimension(line.unit), to: QuantityDimension(used[index].unit))
            {
                used[index].quantity += added / used[index].unit.baseFactor
            } else {
                used.append(GroceriesStore.Used(facts: known, quantity: line.quantity, unit: line.unit))
            }
        }
        let (taken, version) = try store.cook(
            used, recipe: recipe, date: request.date, slot: request.slot, household: try context.requireHousehold(), now: host.clock.now)
        if let version { announce(user: user, version: version, context: context) }
        return taken
    }

    /// The catalog's facts of an ingredient named by id (or as search finds it).
    private func ingredient(_ id: String, context: RequestContext) async throws(ServiceError) -> ListIngredientFacts {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else { throw .badRequest("ingredient id is 1 to 200 characters", field: "ingredient") }
        guard let found = try await peers.ingredients([trimmed], notFoundField: "ingredient", for: context).first else {
            throw .notFound("no ingredient \"\(trimmed)\"", field: "ingredient")
        }
        return ListIngredientFacts(found)
    }
}
