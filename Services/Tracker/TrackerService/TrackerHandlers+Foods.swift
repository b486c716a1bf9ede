import Foundation
import SousRuntime
import SousSchema
import SousWire

// MARK: Saved foods

extension TrackerHandlers {
    func createFood(_ request: SavedFoodDraft, user: String, context: RequestContext) throws -> SavedFood {
        var draft = request
        draft.name = try TrackerValidation.name(request.name, field: "name")
        try TrackerValidation.grams(request.grams)
        try TrackerValidation.macros(request.per100g)
        let food = try store.createFood(draft, user: user)
        return food
    }

    func editFood(_ request: SavedFoodEdit, user: String, context: RequestContext) throws -> SavedFood {
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

    func deleteFood(_ request: EntryID, user: String, context: RequestContext) throws -> Empty {
        try store.deleteFood(request.id, user: user)
        return Empty()
    }

    func listFoods(_ request: SavedFoodFilter, user: String, context: RequestContext) throws -> SavedFoodList {
        let foods = try store.foods(user: user, meal: request.meal)
        return SavedFoodList(foods: foods)
    }

    func logFood(_ request: SavedFoodLog, user: String, context: RequestContext) async throws -> DiaryEntry {
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
