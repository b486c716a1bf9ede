import Foundation
import SousSchema
import SousWire

/// Chooses recipes for the empty slots of `plan.fill`. Pure and seeded, so a plan, a catalog
/// and a seed always give the same week, and the rules are tested without services.
///
/// Slots are filled in date order, lunch before dinner. For each, the candidates (in an order
/// shuffled by the seed) are narrowed step by step, and the first step that leaves none is the
/// reason the slot stays empty:
/// 1. not planned within `noRepeatDays` consecutive days of the slot (history, the week, and
///    what this fill chose before it);
/// 2. the day's kcal within `dailyKcal` with the other slot's meal, or, when that slot is still
///    to be filled, with at least one candidate beside it;
/// 3. within the budget: what the week already costs, plus this meal, plus the cheapest meal for
///    every slot still to fill. Among those, one within an even share of what is left is
///    preferred, so the budget lasts the week.
struct PlanFiller {
    struct Candidate: Equatable, Sendable {
        var id: String
        var name: String
        /// Per serving.
        var kcal: Double
        /// EUR per serving.
        var cost: Double
    }

    /// A meal already in the plan; kcal and cost are nil when the catalog no longer has it.
    struct Planned: Equatable, Sendable {
        var recipe: String
        var kcal: Double?
        var cost: Double?
    }

    var candidates: [Candidate]
    /// The first day of the visible week: the budget counts meals from it on.
    var today: LocalDate
    var people: Int
    var noRepeatDays: Int
    var weeklyBudget: Double?
    var dailyKcal: KcalRange?
    var seed: UInt64
    /// What the dish type and filters were, for the reasons ("main course that passes your saved profile").
    var candidateDescription: String

    /// Chooses for `slots` (empty, in the week), given what is `planned` (the week and the days
    /// before it that the repeat rule looks at).
    func fill(_ slots: [SlotRef], planned: [SlotRef: Planned]) -> (filled: [FilledSlot], unfilled: [UnfilledSlot]) {
        let order = shuffled(candidates)
        let cheapest = candidates.map(\.cost).min() ?? 0
        var planned = planned
        var spent = planned.filter { $0.key.date >= today }.values.reduce(0) { $0 + ($1.cost ?? 0) * Double(people) }
        let slots = slots.sorted { ($0.date, $0.slot) < ($1.date, $1.slot) }
        var filled: [FilledSlot] = []
        var unfilled: [UnfilledSlot] = []
        for (index, ref) in slots.enumerated() {
            let later = slots[(index + 1)...]
            func leave(_ reason: String) { unfilled.append(UnfilledSlot(date: ref.date, slot: ref.slot, reason: reason)) }
            guard !order.isEmpty else {
                leave("no \(candidateDescription)")
                continue
            }
            let fresh = order.filter { candidate in
                !planned.contains { $0.value.recipe == candidate.id && abs($0.key.date.days(to: ref.date)) < noRepeatDays }
            }
            guard !fresh.isEmpty else {
                leave("each of the \(order.count) recipes (\(candidateDescription)) is planned within \(noRepeatDays) days of it")
                continue
            }
            let other = SlotRef(date: ref.date, slot: ref.slot == 1 ? 2 : 1)
            let otherMeal = PlanSlotKind.meal(of: other.slot)?.rawValue ?? "the other meal"
            var fitting = fresh
            var kcalReason: (Candidate) -> String? = { _ in nil }
            if let range = dailyKcal {
                let span = "\(Self.kcal(range.min))–\(Self.kcal(range.max)) kcal"
                if let otherKcal = planned[other]?.kcal {
                    fitting = fresh.filter { range.contains($0.kcal + otherKcal) }
                    kcalReason = {
                        "with \(otherMeal) (\(Self.kcal(otherKcal)) kcal) the day comes to \(Self.kcal($0.kcal + otherKcal)) kcal, within \(span)"
                    }
                    guard !fitting.isEmpty else {
                        leave(
                            "none of the \(fresh.count) recipes left brings the day within \(span) beside \(otherMeal) (\(Self.kcal(otherKcal)) kcal)"
                        )
                        continue
                    }
                } else if later.contains(other) {
                    fitting = fresh.filter { candidate in order.contains { $0.id != candidate.id && range.contains(candidate.kcal + $0.kcal) } }
                    kcalReason = { "\(Self.kcal($0.kcal)) kcal leaves room for a \(otherMeal) within \(span) for the day" }
                    guard !fitting.isEmpty else {
                        leave("no two recipes together come within \(span) for the day")
                        continue
                    }
                } else {
                    fitting = fresh.filter { range.contains($0.kcal) }
                    kcalReason = { "\(Self.kcal($0.kcal)) kcal, the day's only planned meal, within \(span)" }
                    guard !fitting.isEmpty else {
                        leave("none of the \(fresh.count) recipes left is within \(span) on its own")
                        continue
                    }
                }
            }
            let pick: Candidate
            var budgetReason: String?
            let people = Double(people)
            if let budget = weeklyBudget {
                let reserve = Double(later.count) * cheapest * people
                let affordable = fitting.filter { spent + $0.cost * people + reserve <= budget + 0.005 }
                guard !affordable.isEmpty else {
                    leave(
                        "none of the \(fitting.count) recipes left fits the \(Self.euros(max(budget - spent, 0))) left of the "
                            + "\(Self.euros(budget)) budget, keeping \(Self.euros(reserve)) for the \(later.count) slots after it")
                    continue
                }
                let share = (budget - spent) / Double(later.count + 1)
                pick = affordable.first { $0.cost * people <= share + 0.005 } ?? affordable[0]
                spent += pick.cost * people
                budgetReason =
                    "\(Self.euros(pick.cost * people)) for \(Int(people)) \(people == 1 ? "person" : "people"); "
                    + "\(Self.euros(budget - spent)) of the \(Self.euros(budget)) budget left after it"
            } else {
                pick = fitting[0]
                spent += pick.cost * people
            }
            planned[ref] = Planned(recipe: pick.id, kcal: pick.kcal, cost: pick.cost)
            var reasons = ["a \(candidateDescription)"]
            if noRepeatDays > 0 { reasons.append("not planned within \(noRepeatDays) days of it") }
            if let reason = kcalReason(pick) { reasons.append(reason) }
            reasons.append(budgetReason ?? "\(Self.euros(pick.cost)) a serving")
            reasons.append("drawn with seed \(seed) from the \(fitting.count) that fit")
            filled.append(
                FilledSlot(
                    date: ref.date, slot: ref.slot, recipe: pick.id, recipeName: pick.name, kcalPerServing: pick.kcal, costPerServing: pick.cost,
                    reasons: reasons))
        }
        return (filled, unfilled)
    }

    /// `candidates` in the seed's order: a Fisher–Yates shuffle written out, so the order does
    /// not depend on the standard library's shuffle.
    func shuffled(_ candidates: [Candidate]) -> [Candidate] {
        var generator = SplitMix64(seed: seed)
        var result = candidates
        guard result.count > 1 else { return result }
        for index in stride(from: result.count - 1, to: 0, by: -1) {
            let other = Int(generator.next() % UInt64(index + 1))
            result.swapAt(index, other)
        }
        return result
    }

    static func kcal(_ value: Double) -> String { String(format: "%.0f", value) }
    static func euros(_ value: Double) -> String { String(format: "€%.2f", value) }
}

extension KcalRange {
    func contains(_ kcal: Double) -> Bool { kcal >= min - 0.5 && kcal <= max + 0.5 }
}
