import Foundation
import SousRuntime
import SousSchema
import SousWire

// MARK: Water, coffee, goals

extension TrackerHandlers {
    func changeDrink(_ request: DrinkChange, user: String, context: RequestContext) async throws -> DrinkCounts {
        guard request.delta != 0, (-20...20).contains(request.delta) else {
            throw ServiceError.badRequest("delta must be -20 to 20 and not 0", field: "delta")
        }
        let date = try await recordedDay(request.date, .happened, user: user, context: context)
        let counts = try store.changeDrink(request.drink, by: request.delta, user: user, date: date, idempotent: context.idempotency)
        return counts
    }

    func drinks(_ request: DayRequest, user: String, context: RequestContext) async throws -> DrinkCounts {
        let date = try await day(request.date, user: user, context: context).date
        return try store.drinks(user: user, date: date)
    }

    func goals(_ request: DayRequest, user: String, context: RequestContext) async throws -> GoalsInForce {
        let date = try await day(request.date, user: user, context: context).date
        let inForce = try store.goalHistory(user: user).inForce(on: date)
        return GoalsInForce(date: date, goals: inForce.goals, from: inForce.from)
    }

    func setGoals(_ request: GoalsChange, user: String, context: RequestContext) async throws -> GoalsInForce {
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

    func presets(_ request: Empty, context: RequestContext) throws -> GoalPresets {
        return GoalPresets(presets: DiaryMath.presets)
    }
}
