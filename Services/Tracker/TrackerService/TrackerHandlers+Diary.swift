import Foundation
import SousRuntime
import SousSchema
import SousWire

// MARK: Diary

extension TrackerHandlers {
    func addEntry(_ request: DiaryAdd, user: String, context: RequestContext) async throws -> DiaryEntry {
        try TrackerValidation.grams(request.grams)
        let new = try await newEntry(request, user: user, context: context)
        let date = try await recordedDay(request.date, .happened, user: user, context: context)
        let entry = try store.insert(
            .init(date: date, meal: request.meal, food: new.food, grams: request.grams, per100g: new.per100g, source: new.source), user: user,
            at: clock.now, idempotent: context.idempotency)
        logged(entry, user: user)
        return entry
    }

    func logRecipeServing(_ request: RecipeServingLog, user: String, context: RequestContext) async throws -> DiaryEntry {
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
            user: user, at: clock.now, idempotent: context.idempotency
        )
        logged(entry, user: user)
        return entry
    }

    func editEntry(_ request: DiaryEdit, user: String, context: RequestContext) async throws -> DiaryEntry {
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

    func deleteEntry(_ request: EntryID, user: String, context: RequestContext) throws -> Empty {
        let entry = try store.delete(request.id, user: user)
        host.publisher.publish(TrackerTopics.entryDeleted, DiaryEntryEvent(user: user, entry: entry.id, date: entry.date, meal: entry.meal))
        return Empty()
    }

    func listEntries(_ request: DayRequest, user: String, context: RequestContext) async throws -> DiaryDay {
        let day = try await day(request.date, user: user, context: context)
        return DiaryDay(day: day, entries: try store.entries(user: user, from: day.date, to: day.date))
    }

    func summary(_ request: DayRequest, user: String, context: RequestContext) async throws -> DailySummary {
        let day = try await day(request.date, user: user, context: context)
        let entries = try store.entries(user: user, from: day.date, to: day.date)
        let goals = try store.goalHistory(user: user).inForce(on: day.date)
        return DiaryMath.summary(day: day, entries: entries, goals: goals, drinks: try store.drinks(user: user, date: day.date))
    }

    func diaryStatus(_ request: DiaryStatusRequest, user: String, context: RequestContext) async throws -> DiaryStatus {
        // Asked by the notifier for a user, not by the user: declared without activity.
        let date = try await day(request.date, user: user, context: context).date
        return try store.statuses(of: [DiaryStatusBatch.Day(user: user, date: date)])[0]
    }

    func diaryStatuses(_ request: DiaryStatusBatch, context: RequestContext) throws -> DiaryStatuses {
        guard request.days.count <= DiaryStatusBatch.limit else {
            throw ServiceError.badRequest("at most \(DiaryStatusBatch.limit) days per call", field: "days")
        }
        for (index, day) in request.days.enumerated() where day.user.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ServiceError.badRequest("a day names its user", field: "days.\(index).user")
        }
        return DiaryStatuses(statuses: try store.statuses(of: request.days))
    }

    func history(_ request: DateRange, user: String, context: RequestContext) throws -> DiaryHistory {
        try TrackerValidation.range(request)
        let entries = try store.entries(user: user, from: request.from, to: request.to)
        return DiaryMath.history(request, entries: entries, goals: try store.goalHistory(user: user))
    }

    func analysis(_ request: DateRange, user: String, context: RequestContext) throws -> DiaryAnalysis {
        try TrackerValidation.range(request)
        let entries = try store.entries(user: user, from: request.from, to: request.to)
        return DiaryMath.analysis(request, entries: entries, goals: try store.goalHistory(user: user))
    }

    func yesterday(_ request: DayRequest, user: String, context: RequestContext) async throws -> RecentFoods {
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

    func export(_ request: DateRange, user: String, context: RequestContext) throws -> DiaryExport {
        try TrackerValidation.range(request)
        let entries = try store.entries(user: user, from: request.from, to: request.to)
        return DiaryExport(csv: DiaryMath.csv(entries), rows: entries.count)
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
            let product = try await findProduct(code, user: user, field: "barcode", context: context)
            return (name ?? product.name, product.per100g, EntrySource(kind: .product, reference: code))
        }
        let id = request.ingredient ?? ""
        let found = try await askCatalog(
            CatalogAPI.getIngredients, IngredientIDs(ids: [id]), user: user, what: "ingredient \(id)", field: "ingredient", context: context)
        guard let ingredient = found.ingredients.first else { throw ServiceError.notFound("no ingredient \(id) in the catalog", field: "ingredient") }
        return (name ?? ingredient.name, ingredient.nutrition.macros, EntrySource(kind: .ingredient, reference: ingredient.id))
    }
}
