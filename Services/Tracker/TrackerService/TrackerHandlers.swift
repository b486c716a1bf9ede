import Foundation
import Logging
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// The tracker's methods: validate, resolve the day, call the store, publish events (the runtime records activity).
struct TrackerHandlers: Sendable {
    let host: ServiceHost
    let store: TrackerStore
    let catalog: Peer<Catalog>
    /// Asked for time zones only, with a short timeout (see ``TrackerService``).
    let planner: Peer<Planner>
    let knownZones = KnownZones()

    private var clock: WallClock { host.clock }

    func register() {
        registerDiary()
        registerDrinksAndGoals()
        registerFoods()
        registerProducts()
    }

    // MARK: Diary

    private func registerDiary() {
        let server = host.server
        server.register(TrackerAPI.addEntry) { request, user, context in
            try TrackerValidation.grams(request.grams)
            let new = try await newEntry(request, user: user, context: context)
            let date = try await recordedDay(request.date, .happened, user: user, context: context)
            let entry = try store.insert(
                .init(date: date, meal: request.meal, food: new.food, grams: request.grams, per100g: new.per100g, source: new.source), user: user,
                at: clock.now)
            logged(entry, user: user)
            return entry
        }
        server.register(TrackerAPI.logRecipeServing) { request, user, context in
            guard request.servings.isFinite, request.servings > 0, request.servings <= 50 else {
                throw ServiceError.badRequest("servings must be more than 0 and at most 50", field: "servings")
            }
            let recipe = try await askCatalog(
                CatalogAPI.getRecipe, RecipeLookup(id: request.recipe), user: user, what: "recipe \(request.recipe)", field: "recipe",
                context: context
            )
            // The ingredients are listed for `people` (the recipe's own servings): one serving
            // weighs what is eaten of them ÷ people (a frying bath or cooking water left in the
            // pan weighs nothing on the plate), and its nutrition is the catalog's per serving.
            let servingGrams = recipe.ingredients.reduce(0) { $0 + $1.eatenGrams } / Double(max(recipe.people, 1))
            guard servingGrams > 0 else { throw ServiceError.badRequest("recipe \(recipe.id) has no weight to log", field: "recipe") }
            let grams = servingGrams * request.servings
            try TrackerValidation.grams(grams, field: "servings")
            let n = recipe.nutritionPerServing
            let factor = 100 / servingGrams
            let per100g = Macros(kcal: n.kcal * factor, carbohydrates: n.carbohydrates * factor, protein: n.protein * factor, fat: n.fat * factor)
            let date = try await recordedDay(request.date, .happened, user: user, context: context)
            let entry = try store.insert(
                .init(
                    date: date, meal: request.meal, food: recipe.name, grams: grams, per100g: per100g,
                    source: EntrySource(kind: .recipe, reference: recipe.id)),
                user: user, at: clock.now
            )
            logged(entry, user: user)
            return entry
        }
        server.register(TrackerAPI.editEntry) { request, user, context in
            if let grams = request.grams { try TrackerValidation.grams(grams) }
            if let per100g = request.per100g { try TrackerValidation.macros(per100g) }
            let food = try request.food.map { try TrackerValidation.name($0, field: "food") }
            if let date = request.date { _ = try await recordedDay(date, .happened, user: user, context: context) }
            let (_, entry) = try store.update(request.id, user: user) { entry in
                if let date = request.date { entry.date = date }
                if let meal = request.meal { entry.meal = meal }
                if let food { entry.food = food }
                if let grams = request.grams { entry.grams = grams }
                if let per100g = request.per100g { entry.per100g = per100g }
            }
            host.publisher.publish(TrackerTopics.entryChanged, DiaryEntryEvent(user: user, entry: entry.id, date: entry.date, meal: entry.meal))
            return entry
        }
        server.register(TrackerAPI.deleteEntry) { request, user, context in
            let entry = try store.delete(request.id, user: user)
            host.publisher.publish(TrackerTopics.entryDeleted, DiaryEntryEvent(user: user, entry: entry.id, date: entry.date, meal: entry.meal))
            return Empty()
        }
        server.register(TrackerAPI.listEntries) { request, user, context in
            let day = try await day(request.date, user: user, context: context)
            return DiaryDay(day: day, entries: try store.entries(user: user, from: day.date, to: day.date))
        }
        server.register(TrackerAPI.summary) { request, user, context in
            let day = try await day(request.date, user: user, context: context)
            let entries = try store.entries(user: user, from: day.date, to: day.date)
            let goals = try store.goalHistory(user: user).inForce(on: day.date)
            return DiaryMath.summary(day: day, entries: entries, goals: goals, drinks: try store.drinks(user: user, date: day.date))
        }
        server.register(TrackerAPI.diaryStatus) { request, user, context in
            // Asked by the notifier for a user, not by the user: declared without activity.
            let date = try await day(request.date, user: user, context: context).date
            let entries = try store.entries(user: user, from: date, to: date)
            return DiaryStatus(
                date: date, mealsLogged: Array(Set(entries.map(\.meal))).sorted(), kcal: DiaryMath.totals(entries).kcal,
                kcalGoal: try store.goalHistory(user: user).inForce(on: date).goals.kcal
            )
        }
        server.register(TrackerAPI.history) { request, user, context in
            try TrackerValidation.range(request)
            let entries = try store.entries(user: user, from: request.from, to: request.to)
            return DiaryMath.history(request, entries: entries, goals: try store.goalHistory(user: user))
        }
        server.register(TrackerAPI.analysis) { request, user, context in
            try TrackerValidation.range(request)
            let entries = try store.entries(user: user, from: request.from, to: request.to)
            return DiaryMath.analysis(request, entries: entries, goals: try store.goalHistory(user: user))
        }
        server.register(TrackerAPI.yesterday) { request, user, context in
            let yesterday = try await day(request.date, user: user, context: context).date.adding(days: -1)
            var seen: Set<String> = []
            let foods = try store.entries(user: user, from: yesterday, to: yesterday).compactMap { entry -> RecentFood? in
                // The same food eaten twice at the same meal in the same amount is offered once.
                let key = "\(entry.meal)|\(entry.food)|\(entry.grams)|\(entry.source.kind)|\(entry.source.reference ?? "")"
                guard seen.insert(key).inserted else { return nil }
                return RecentFood(food: entry.food, meal: entry.meal, grams: entry.grams, per100g: entry.per100g, source: entry.source)
            }
            return RecentFoods(date: yesterday, foods: foods)
        }
        server.register(TrackerAPI.export) { request, user, context in
            try TrackerValidation.range(request)
            let entries = try store.entries(user: user, from: request.from, to: request.to)
            return DiaryExport(csv: DiaryMath.csv(entries), rows: entries.count)
        }
    }

    /// The food, nutrition and source a new entry takes from exactly one of its possible sources.
    private func newEntry(
        _ request: DiaryAdd, user: String, context: RequestContext
    ) async throws -> (food: String, per100g: Macros, source: EntrySource) {
        let given = [request.per100g != nil, request.ingredient != nil, request.barcode != nil].filter { $0 }.count
        guard given == 1 else {
            throw ServiceError.badRequest("give exactly one of per100g (with food), ingredient or barcode", field: "per100g")
        }
        let name = try request.food.map { try TrackerValidation.name($0, field: "food") }
        if let per100g = request.per100g {
            guard let name else { throw ServiceError.badRequest("a typed-in food needs a name", field: "food") }
            try TrackerValidation.macros(per100g)
            return (name, per100g, EntrySource(kind: .manual))
        }
        if let code = request.barcode {
            try TrackerValidation.barcode(code, field: "barcode")
            guard let product = try store.product(code: code, user: user) else {
                throw ServiceError.notFound("no product with barcode \(code)", field: "barcode")
            }
            return (name ?? product.name, product.per100g, EntrySource(kind: .product, reference: code))
        }
        let id = request.ingredient ?? ""
        let found = try await askCatalog(
            CatalogAPI.getIngredients, IngredientIDs(ids: [id]), user: user, what: "ingredient \(id)", field: "ingredient", context: context)
        guard let ingredient = found.ingredients.first else { throw ServiceError.notFound("no ingredient \(id) in the catalog", field: "ingredient") }
        let n = ingredient.nutrition
        return (
            name ?? ingredient.name, Macros(kcal: n.kcal, carbohydrates: n.carbohydrates, protein: n.protein, fat: n.fat),
            EntrySource(kind: .ingredient, reference: id)
        )
    }

    /// Calls the catalog: an unknown (or malformed) id becomes notFound naming `field`.
    private func askCatalog<Request, Response>(
        _ method: Method<Catalog, Request, Response>, _ request: Request, user: String, what: String, field: String, context: RequestContext
    ) async throws -> Response {
        do {
            return try await catalog.call(method, request, user: user, for: context)
        } catch {
            guard error.code == .notFound || error.code == .badRequest else { throw error }
            throw ServiceError.notFound("no \(what) in the catalog", field: field)
        }
    }

    private func logged(_ entry: DiaryEntry, user: String) {
        host.publisher.publish(TrackerTopics.entryLogged, DiaryEntryEvent(user: user, entry: entry.id, date: entry.date, meal: entry.meal))
    }

    /// The request's date, or today in the user's time zone from the planner profile. When the
    /// planner cannot answer, the zone it last gave for this user is used, else UTC, and the
    /// reply says so: the diary keeps working.
    func day(_ date: LocalDate?, user: String, context: RequestContext) async throws -> ResolvedDay {
        if let date { return ResolvedDay(date: date, timeZone: nil) }
        let now = clock.now
        let problem: String
        do {
            let profile = try await planner.call(PlannerAPI.getProfile, Empty(), user: user, for: context, need: .optional)
            if let zone = TimeZone(identifier: profile.timeZone) {
                knownZones.remember(profile.timeZone, for: user)
                return ResolvedDay(date: LocalDate(now, in: zone), timeZone: profile.timeZone)
            }
            problem = "the profile's time zone \(profile.timeZone) is unknown"
        } catch {
            problem = "the planner could not be asked for the time zone (\(error.code))"
        }
        if let name = knownZones.zone(of: user), let zone = TimeZone(identifier: name) {
            let note = "\(problem); using the last known zone \(name)"
            context.logger.warning("\(note)")
            return ResolvedDay(date: LocalDate(now, in: zone), timeZone: name, note: note)
        }
        let note = "\(problem); using UTC"
        context.logger.warning("\(note)")
        return ResolvedDay(date: LocalDate(now, in: .gmt), timeZone: "UTC", note: note)
    }

    /// The date a write records on: the one it names, checked against the plausibility window
    /// (docs/PROTOCOL.md, "Dates"), or today in the user's time zone.
    func recordedDay(
        _ date: LocalDate?, _ kind: DateWindow.Kind, field: String = "date", user: String, context: RequestContext
    ) async throws -> LocalDate {
        guard let date else { return try await day(nil, user: user, context: context).date }
        try await DateWindow.check(date, kind, field: field, now: clock.now) {
            (try? await day(nil, user: user, context: context).date) ?? LocalDate(clock.now, in: .gmt)
        }
        return date
    }

    // MARK: Water, coffee, goals

    private func registerDrinksAndGoals() {
        let server = host.server
        server.register(TrackerAPI.changeDrink) { request, user, context in
            guard request.delta != 0, (-20...20).contains(request.delta) else {
                throw ServiceError.badRequest("delta must be -20 to 20 and not 0", field: "delta")
            }
            let date = try await recordedDay(request.date, .happened, user: user, context: context)
            let counts = try store.changeDrink(request.drink, by: request.delta, user: user, date: date)
            return counts
        }
        server.register(TrackerAPI.drinks) { request, user, context in
            let date = try await day(request.date, user: user, context: context).date
            return try store.drinks(user: user, date: date)
        }
        server.register(TrackerAPI.goals) { request, user, context in
            let date = try await day(request.date, user: user, context: context).date
            let inForce = try store.goalHistory(user: user).inForce(on: date)
            return GoalsInForce(date: date, goals: inForce.goals, from: inForce.from)
        }
        server.register(TrackerAPI.setGoals) { request, user, context in
            let from = try await recordedDay(request.from, .planned, field: "from", user: user, context: context)
            let goals: Goals
            switch (request.goals, request.preset) {
            case (let given?, nil):
                guard request.kcal == nil else { throw ServiceError.badRequest("kcal goes with a preset; put it in goals", field: "kcal") }
                goals = given
            case (nil, let name?):
                guard let preset = DiaryMath.presets.first(where: { $0.name == name.lowercased() }) else {
                    throw ServiceError.badRequest(
                        "unknown preset \(name); presets: \(DiaryMath.presets.map(\.name).joined(separator: ", "))", field: "preset")
                }
                // A preset brings its own energy (cutting is a deficit); `kcal` overrides it.
                let kcal = request.kcal ?? preset.goals.kcal
                guard kcal.isFinite, kcal > 0, kcal <= 10_000 else {
                    throw ServiceError.badRequest("kcal must be more than 0 and at most 10000", field: "kcal")
                }
                goals = DiaryMath.goals(kcal: kcal, split: preset.split)
            default:
                throw ServiceError.badRequest("give either goals or a preset", field: "goals")
            }
            try TrackerValidation.goals(goals)
            try store.setGoals(goals, from: from, user: user)
            return GoalsInForce(date: from, goals: goals, from: from)
        }
        server.register(TrackerAPI.presets) { _, context in
            return GoalPresets(presets: DiaryMath.presets)
        }
    }

    // MARK: Saved foods

    private func registerFoods() {
        let server = host.server
        server.register(TrackerAPI.createFood) { request, user, context in
            var draft = request
            draft.name = try TrackerValidation.name(request.name, field: "name")
            try TrackerValidation.grams(request.grams)
            try TrackerValidation.macros(request.per100g)
            let food = try store.createFood(draft, user: user)
            return food
        }
        server.register(TrackerAPI.editFood) { request, user, context in
            let name = try request.name.map { try TrackerValidation.name($0, field: "name") }
            if let grams = request.grams { try TrackerValidation.grams(grams) }
            if let per100g = request.per100g { try TrackerValidation.macros(per100g) }
            let food = try store.editFood(request.id, user: user) { food in
                if let name { food.name = name }
                if let meals = request.meals { food.meals = meals }
                if let grams = request.grams { food.grams = grams }
                if let per100g = request.per100g { food.per100g = per100g }
            }
            return food
        }
        server.register(TrackerAPI.deleteFood) { request, user, context in
            try store.deleteFood(request.id, user: user)
            return Empty()
        }
        server.register(TrackerAPI.listFoods) { request, user, context in
            let foods = try store.foods(user: user, meal: request.meal)
            return SavedFoodList(foods: foods)
        }
        server.register(TrackerAPI.logFood) { request, user, context in
            let quantity = request.quantity ?? 1
            guard quantity.isFinite, quantity > 0 else { throw ServiceError.badRequest("quantity must be more than 0 portions", field: "quantity") }
            let food = try store.food(request.id, user: user)
            let grams = food.grams * quantity
            try TrackerValidation.grams(grams, field: "quantity")
            let date = try await recordedDay(request.date, .happened, user: user, context: context)
            let entry = try store.insert(
                .init(
                    date: date, meal: request.meal ?? food.meals.first ?? .snack, food: food.name, grams: grams, per100g: food.per100g,
                    source: EntrySource(kind: .savedFood, reference: String(food.id))),
                user: user, at: clock.now
            )
            logged(entry, user: user)
            return entry
        }
    }

    // MARK: Products

    private func registerProducts() {
        let server = host.server
        server.register(TrackerAPI.product) { request, user, context in
            try TrackerValidation.barcode(request.code)
            guard let product = try store.product(code: request.code, user: user) else {
                throw ServiceError.notFound("no product with barcode \(request.code)", field: "code")
            }
            return product
        }
        server.register(TrackerAPI.addProduct) { request, user, context in
            try TrackerValidation.product(request, field: "")
            try store.addOwnProduct(request, user: user)
            return request
        }
        server.register(TrackerAPI.importProducts) { request, context in
            guard request.products.count <= 1000 else { throw ServiceError.badRequest("at most 1000 products per call", field: "products") }
            for (index, product) in request.products.enumerated() {
                try TrackerValidation.product(product, field: "products.\(index)")
            }
            let source = request.source.isEmpty ? "import" : String(request.source.prefix(100))
            let result = try store.upsert(request.products, source: source)
            return result
        }
    }
}

/// The time zone the planner last gave for each user, for when it cannot be reached.
final class KnownZones: Sendable {
    private let zones = Mutex<[String: String]>([:])

    func remember(_ zone: String, for user: String) {
        zones.withLock { $0[user] = zone }
    }

    func zone(of user: String) -> String? {
        zones.withLock { $0[user] }
    }
}
