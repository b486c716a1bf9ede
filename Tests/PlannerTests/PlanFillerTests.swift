import Foundation
import SousSchema
import SousWire
import Testing

@testable import PlannerService

/// The fill's rules on their own, with made-up recipes.
struct PlanFillerTests {
    static let monday = LocalDate(year: 2026, month: 3, day: 9)!

    static func recipe(_ id: String, kcal: Double, cost: Double) -> PlanFiller.Candidate {
        PlanFiller.Candidate(id: id, name: id.capitalized, kcal: kcal, cost: cost)
    }

    static func filler(
        _ candidates: [PlanFiller.Candidate], noRepeatDays: Int = 7, budget: Double? = nil, kcal: KcalRange? = nil, seed: UInt64 = 1
    )
        -> PlanFiller
    {
        PlanFiller(
            candidates: candidates, today: monday, people: 2, noRepeatDays: noRepeatDays, weeklyBudget: budget, dailyKcal: kcal, seed: seed,
            candidateDescription: "main course")
    }

    static func week(from date: LocalDate = monday, days: Int = 7) -> [SlotRef] {
        (0..<days).flatMap { offset in [1, 2].map { SlotRef(date: date.adding(days: offset), slot: $0) } }
    }

    @Test func theSameSeedGivesTheSameWeekAndEachSeedItsOwn() {
        let candidates = (1...30).map { Self.recipe("r\($0)", kcal: 500, cost: 2) }
        let first = Self.filler(candidates, seed: 42).fill(Self.week(), planned: [:]).filled.map(\.recipe)
        #expect(first == Self.filler(candidates, seed: 42).fill(Self.week(), planned: [:]).filled.map(\.recipe))
        #expect(first != Self.filler(candidates, seed: 43).fill(Self.week(), planned: [:]).filled.map(\.recipe))
        #expect(first.count == 14 && Set(first).count == 14)
        // The shuffle is written out: this order is part of the contract for seed 42.
        #expect(Self.filler(candidates, seed: 42).shuffled(candidates).prefix(3).map(\.id) == Array(first.prefix(3)))
    }

    @Test func aRecipeDoesNotComeBackWithinTheDaysAskedCountingHistory() {
        let candidates = (1...4).map { Self.recipe("r\($0)", kcal: 500, cost: 2) }
        // r1 was eaten two days before the week: with 3 days it may come back on day 1 (Tuesday).
        let planned = [SlotRef(date: Self.monday.adding(days: -2), slot: 2): PlanFiller.Planned(recipe: "r1", kcal: 500, cost: 2)]
        let (filled, unfilled) = Self.filler(candidates, noRepeatDays: 3).fill(Self.week(days: 4), planned: planned)
        var last: [String: LocalDate] = ["r1": Self.monday.adding(days: -2)]
        for slot in filled {
            if let previous = last[slot.recipe] { #expect(previous.days(to: slot.date) >= 3, "\(slot.recipe) on \(slot.date)") }
            last[slot.recipe] = slot.date
        }
        #expect(!filled.isEmpty)
        for slot in unfilled { #expect(slot.reason.contains("planned within 3 days")) }
        // Four recipes, two a day, none twice in three days: at most 4 of every 3 days' 6 slots.
        #expect(filled.count < 8)
    }

    @Test func dailyKcalPairsLunchWithDinner() {
        let candidates = [
            Self.recipe("light", kcal: 300, cost: 2), Self.recipe("medium", kcal: 600, cost: 2), Self.recipe("heavy", kcal: 1400, cost: 2),
        ]
        let range = KcalRange(min: 800, max: 1000)
        let (filled, _) = Self.filler(candidates, noRepeatDays: 0, kcal: range).fill(Self.week(days: 3), planned: [:])
        #expect(filled.count == 6)
        for day in Dictionary(grouping: filled, by: \.date).values {
            let total = day.map(\.kcalPerServing).reduce(0, +)
            #expect(total >= 800 && total <= 1000, "\(day.map(\.recipe))")
        }
        // Beside a planned 1 400 kcal lunch nothing brings a day within 800–1 000.
        let lunch = [SlotRef(date: Self.monday, slot: 1): PlanFiller.Planned(recipe: "heavy", kcal: 1400, cost: 2)]
        let (none, unfilled) = Self.filler(candidates, noRepeatDays: 0, kcal: range).fill([SlotRef(date: Self.monday, slot: 2)], planned: lunch)
        #expect(none.isEmpty && unfilled.first?.reason.contains("800–1000 kcal beside lunch (1400 kcal)") == true)
    }

    @Test func theBudgetKeepsEnoughForTheSlotsAfter() {
        let candidates = [Self.recipe("cheap", kcal: 500, cost: 1), Self.recipe("dear", kcal: 500, cost: 10)]
        // Two people: cheap costs 2 a meal, dear 20. 4 slots, 30: a dear meal leaves 10 for three
        // slots (6 needed), so at most one dear meal, and only while the reserve allows it.
        let (filled, unfilled) = Self.filler(candidates, noRepeatDays: 0, budget: 30).fill(Self.week(days: 2), planned: [:])
        #expect(unfilled.isEmpty && filled.count == 4)
        let cost = filled.map { $0.costPerServing * 2 }.reduce(0, +)
        #expect(cost <= 30)
        // What is already planned in the week counts; days before it do not.
        let planned = [
            SlotRef(date: Self.monday, slot: 1): PlanFiller.Planned(recipe: "dear", kcal: 500, cost: 10),
            SlotRef(date: Self.monday.adding(days: -1), slot: 1): PlanFiller.Planned(recipe: "dear", kcal: 500, cost: 10),
        ]
        let (after, left) = Self.filler(candidates, noRepeatDays: 0, budget: 25).fill(
            [SlotRef(date: Self.monday, slot: 2), SlotRef(date: Self.monday.adding(days: 1), slot: 1)], planned: planned)
        #expect(after.map(\.recipe) == ["cheap", "cheap"] && left.isEmpty)
        let (broke, reasons) = Self.filler(candidates, noRepeatDays: 0, budget: 21).fill([SlotRef(date: Self.monday, slot: 2)], planned: planned)
        #expect(broke.isEmpty && reasons.first?.reason.contains("€1.00 left of the €21.00 budget") == true)
    }

    @Test func noCandidatesSaysSo() {
        let (filled, unfilled) = Self.filler([]).fill(Self.week(days: 1), planned: [:])
        #expect(filled.isEmpty && unfilled.map(\.reason) == ["no main course", "no main course"])
    }
}
