import Foundation
import SousRuntime
import SousSchema
import SousWire

/// `plan.fill` and `plan.unfill`: the week filled from the catalog under the profile's filters
/// and the request's constraints, and undone.
extension PlannerHandlers {
    /// Candidates the catalog is asked for: five pages of its largest size.
    static let maxFillCandidates = 500

    func fill(_ request: PlanFill, user: String, context: RequestContext) async throws -> PlanFillResult {
        let member = try member(user, context)
        let profile = try store.profile(user: user)
        let window = PlanWindow(now: now, profile: profile)
        let from = request.from ?? window.today
        let to = request.to ?? window.last
        guard window.contains(from) else {
            throw ServiceError.badRequest("\(from) is outside the plan's week \(window.today) … \(window.last)", field: "from")
        }
        guard window.contains(to) else {
            throw ServiceError.badRequest("\(to) is outside the plan's week \(window.today) … \(window.last)", field: "to")
        }
        guard from <= to else { throw ServiceError.badRequest("from \(from) is after to \(to)", field: "to") }
        let slots = request.slots ?? Array(PlanSlotKind.slots)
        guard !slots.isEmpty else { throw ServiceError.badRequest("name at least one slot (1 lunch, 2 dinner)", field: "slots") }
        for (index, slot) in slots.enumerated() { try PlanWindow.check(slot: slot, field: "slots.\(index)") }
        let noRepeatDays = request.noRepeatDays ?? 7
        guard (0...28).contains(noRepeatDays) else {
            throw ServiceError.badRequest("noRepeatDays must be 0 to 28, got \(noRepeatDays)", field: "noRepeatDays")
        }
        if let budget = request.weeklyBudget, !(budget.isFinite && budget > 0 && budget <= 100_000) {
            throw ServiceError.badRequest("weeklyBudget must be more than 0 and at most 100000 EUR", field: "weeklyBudget")
        }
        if let range = request.dailyKcal {
            guard range.min.isFinite, range.min >= 0, range.min <= 20_000 else {
                throw ServiceError.badRequest("dailyKcal.min must be 0 to 20000", field: "dailyKcal.min")
            }
            guard range.max.isFinite, range.max >= range.min, range.max <= 20_000 else {
                throw ServiceError.badRequest("dailyKcal.max must be at least min and at most 20000", field: "dailyKcal.max")
            }
        }
        let seed = request.seed ?? UInt64.random(in: 0...UInt64.max)
        let dishType = request.dishType ?? .mainCourse

        let candidates = try await fillCandidates(dishType: dishType, user: user, context: context)
        let history = try store.days(member: member, range: PlanDateRange(from: window.today.adding(days: -noRepeatDays), to: window.last), now: now)
        let known = Dictionary(candidates.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var planned: [SlotRef: PlanFiller.Planned] = [:]
        var outside: [String: PlanFiller.Candidate?] = [:]
        var empty: [SlotRef] = []
        for day in history {
            for slot in day.slots {
                let ref = SlotRef(date: slot.date, slot: slot.slot)
                guard let recipe = slot.recipe else {
                    if day.date >= from, day.date <= to, slots.contains(slot.slot) { empty.append(ref) }
                    continue
                }
                // A planned recipe the filters now exclude still counts for kcal and the budget.
                var facts = known[recipe]
                if facts == nil, day.date >= window.today {
                    if outside[recipe] == nil { outside[recipe] = try await plannedFacts(recipe, user: user, context: context) }
                    facts = outside[recipe] ?? nil
                }
                planned[ref] = PlanFiller.Planned(recipe: recipe, kcal: facts?.kcal, cost: facts?.cost)
            }
        }
        let filler = PlanFiller(
            candidates: candidates, today: window.today, people: profile.people, noRepeatDays: noRepeatDays, weeklyBudget: request.weeklyBudget,
            dailyKcal: request.dailyKcal, seed: seed, candidateDescription: "\(dishType.rawValue) that passes your saved profile")
        let (chosen, unfilled) = filler.fill(empty, planned: planned)
        var costs = planned.mapValues { $0.cost ?? 0 }
        for choice in chosen { costs[SlotRef(date: choice.date, slot: choice.slot)] = choice.costPerServing }
        let result = try store.fill(member: member, choices: chosen, seed: seed, now: now) { fill, written, days in
            let lost = chosen.filter { !written.contains(SlotRef(date: $0.date, slot: $0.slot)) }
            let weekCost = days.flatMap(\.slots).reduce(0.0) { total, slot in
                total + (slot.recipe == nil ? 0 : costs[SlotRef(date: slot.date, slot: slot.slot)] ?? 0)
            }
            return PlanFillResult(
                fill: fill, seed: seed, filled: chosen.filter { written.contains(SlotRef(date: $0.date, slot: $0.slot)) },
                unfilled: unfilled + lost.map { UnfilledSlot(date: $0.date, slot: $0.slot, reason: "planned by another change meanwhile") },
                candidates: candidates.count, weekCost: (weekCost * Double(profile.people) * 100).rounded() / 100, days: days)
        }
        if !result.filled.isEmpty { planChanged(member, dates: Array(Set(result.filled.map(\.date))).sorted()) }
        return result
    }

    func unfill(_ request: PlanFillRef, user: String, context: RequestContext) throws -> PlanUnfillResult {
        let member = try member(user, context)
        let result = try store.unfill(member: member, number: request.fill, now: now)
        if !result.cleared.isEmpty { planChanged(member, dates: Array(Set(result.cleared.map(\.date))).sorted()) }
        return result
    }

    /// The recipes of `dishType` passing the user's saved profile, from the catalog.
    func fillCandidates(dishType: DishType, user: String, context: RequestContext) async throws -> [PlanFiller.Candidate] {
        var candidates: [PlanFiller.Candidate] = []
        let pageSize = 100
        for page in 1...(Self.maxFillCandidates / pageSize) {
            let found = try await catalog.call(
                CatalogAPI.searchRecipes, RecipeSearch(dishType: dishType, useSavedProfile: true, page: page, pageSize: pageSize), user: user,
                for: context)
            candidates += found.recipes.map { PlanFiller.Candidate(id: $0.id, name: $0.name, kcal: $0.kcalPerServing, cost: $0.costPerServing) }
            if found.recipes.count < pageSize { break }
        }
        return candidates
    }

    /// kcal and cost per serving of a planned recipe outside the candidates; nil when the
    /// catalog no longer has it.
    func plannedFacts(_ recipe: String, user: String, context: RequestContext) async throws -> PlanFiller.Candidate? {
        do {
            let detail = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: recipe), user: user, for: context)
            return PlanFiller.Candidate(id: detail.id, name: detail.name, kcal: detail.nutritionPerServing.kcal, cost: detail.costPerServing)
        } catch {
            guard error.code == .notFound else { throw error }
            return nil
        }
    }
}
