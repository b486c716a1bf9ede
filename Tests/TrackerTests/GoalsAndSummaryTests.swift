import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService

@Suite(.closesItsSockets)
struct GoalsAndSummaryTests {
    @Test func summaryUsesTheGoalInForceThatDayAcrossAChange() async throws {
        try await withTracker { world in
            let monday = localDate("2026-03-09")
            let tuesday = localDate("2026-03-10")
            for date in [monday, tuesday] {
                _ = try await world.call(
                    TrackerAPI.addEntry, typed("Pasta", .dinner, grams: 200, kcal: 150, carbohydrates: 30, protein: 5, fat: 1, on: date))
                _ = try await world.call(
                    TrackerAPI.addEntry, typed("Granola", .breakfast, grams: 100, kcal: 450, carbohydrates: 60, protein: 10, fat: 18, on: date))
            }
            // Before any change: the documented defaults, with no start date.
            let before = try await world.call(TrackerAPI.summary, DayRequest(date: monday))
            #expect(before.goals == .default && before.goalsFrom == nil)

            let cut = Goals(kcal: 1500, carbohydrates: 150, protein: 120, fat: 50)
            let set = try await world.call(TrackerAPI.setGoals, GoalsChange(from: tuesday, goals: cut))
            #expect(set == GoalsInForce(date: tuesday, goals: cut, from: tuesday))

            let past = try await world.call(TrackerAPI.summary, DayRequest(date: monday))
            #expect(past.goals == .default, "a past day keeps the goal it had")
            let today = try await world.call(TrackerAPI.summary, DayRequest(date: tuesday))
            #expect(today.goals == cut && today.goalsFrom == tuesday)
            // 200 g at 150 kcal + 100 g at 450 kcal = 750 kcal; carbs 60 + 60 = 120 g.
            #expect(today.totals == Macros(kcal: 750, carbohydrates: 120, protein: 20, fat: 20))
            #expect(today.remaining == Macros(kcal: 750, carbohydrates: 30, protein: 100, fat: 30))
            #expect(near([today.percent.kcal, today.percent.carbohydrates, today.percent.protein], [50, 80, 100.0 * 20 / 120]))
            #expect(today.meals.map(\.meal) == [.breakfast, .dinner])
            #expect(today.meals[1].totals.kcal == 300)

            let later = try await world.call(TrackerAPI.goals, DayRequest(date: localDate("2026-04-01")))
            #expect(later.goals == cut && later.from == tuesday)
            let status = try await world.call(TrackerAPI.diaryStatus, DiaryStatusRequest(date: tuesday))
            #expect(status == DiaryStatus(date: tuesday, mealsLogged: [.breakfast, .dinner], kcal: 750, kcalGoal: 1500))
            let empty = try await world.call(TrackerAPI.diaryStatus, DiaryStatusRequest(date: monday), user: "bea")
            #expect(empty == DiaryStatus(date: monday, mealsLogged: [], kcal: 0, kcalGoal: 2000))

            // The notifier asks for a whole batch of users' days in one call, answered in order
            // with what each user's own `diary.status` says. Bea's Tuesday lunch is read with the
            // batch's other days (one read for all users and dates) but counts only on Tuesday.
            _ = try await world.call(
                TrackerAPI.addEntry, typed("Soup", .lunch, grams: 300, kcal: 40, carbohydrates: 5, protein: 2, fat: 1, on: tuesday), user: "bea")
            let days = [("ada", tuesday), ("bea", monday), ("ada", monday), ("ada", tuesday), ("bea", tuesday), ("cleo", monday)].map {
                DiaryStatusBatch.Day(user: $0, date: $1)
            }
            let batch = try await world.client.call(TrackerAPI.diaryStatuses, DiaryStatusBatch(days: days))
            #expect(batch.statuses.count == days.count)
            for (day, answered) in zip(days, batch.statuses) {
                #expect(answered == (try await world.call(TrackerAPI.diaryStatus, DiaryStatusRequest(date: day.date), user: day.user)))
            }
            #expect(batch.statuses[0] == status && batch.statuses[1] == empty)
            #expect(batch.statuses[2] == DiaryStatus(date: monday, mealsLogged: [.breakfast, .dinner], kcal: 750, kcalGoal: 2000))
            #expect(batch.statuses[4] == DiaryStatus(date: tuesday, mealsLogged: [.lunch], kcal: 120, kcalGoal: 2000))
            #expect(batch.statuses[5] == DiaryStatus(date: monday, mealsLogged: [], kcal: 0, kcalGoal: 2000))
            let tooMany = DiaryStatusBatch(days: Array(repeating: days[0], count: DiaryStatusBatch.limit + 1))
            let refused = await #expect(throws: ServiceError.self) { try await world.client.call(TrackerAPI.diaryStatuses, tooMany) }
            #expect(refused?.code == .badRequest && refused?.field == "days")
            let blank = DiaryStatusBatch(days: [days[0], .init(user: " ", date: monday)])
            let nobody = await #expect(throws: ServiceError.self) { try await world.client.call(TrackerAPI.diaryStatuses, blank) }
            #expect(nobody?.code == .badRequest && nobody?.field == "days.1.user")
            // It names other users' days: a signed-in user may not ask it.
            #expect(await world.failure(TrackerAPI.diaryStatuses, DiaryStatusBatch(days: days))?.code == .forbidden)
        }
    }

    @Test func presetsExplainTheirSplitAndSetGoalsFromKcal() async throws {
        try await withTracker { world in
            let presets = try await world.call(TrackerAPI.presets, Empty()).presets
            #expect(Set(presets.map(\.name)).isSuperset(of: ["maintenance", "cutting", "bulking", "endurance"]))
            for preset in presets {
                #expect(!preset.explanation.isEmpty && !preset.explanation.contains("\n"))
                #expect(abs(preset.split.carbohydrates + preset.split.protein + preset.split.fat - 100) < 0.001)
            }
            let endurance = try await world.call(TrackerAPI.setGoals, GoalsChange(from: localDate("2026-03-01"), preset: "endurance", kcal: 3000))
            // 60/15/25 % of 3000 kcal: 1800 kcal / 4, 450 kcal / 4, 750 kcal / 9.
            #expect(endurance.goals == Goals(kcal: 3000, carbohydrates: 450, protein: 113, fat: 83))
            // Without --kcal a preset applies its own energy: cutting is a deficit, not the 3000 in force.
            let cutting = try await world.call(TrackerAPI.setGoals, GoalsChange(from: localDate("2026-03-02"), preset: "cutting"))
            #expect(cutting.goals.kcal == 1600)
            #expect(cutting.goals == presets.first { $0.name == "cutting" }?.goals)
            let unknown = await world.failure(TrackerAPI.setGoals, GoalsChange(preset: "keto-max"))
            #expect(unknown?.code == .badRequest && unknown?.field == "preset")
            let bad = await world.failure(
                TrackerAPI.setGoals, GoalsChange(from: localDate("2026-03-01"), goals: Goals(kcal: -1, carbohydrates: 0, protein: 0, fat: 0)))
            #expect(bad?.field == "goals.kcal")
            // Figures that contradict each other are refused: 900 g of each is not a 2000 kcal day…
            let impossible = await world.failure(
                TrackerAPI.setGoals, GoalsChange(goals: Goals(kcal: 2000, carbohydrates: 900, protein: 900, fat: 900)))
            #expect(impossible?.code == .badRequest && impossible?.field == "goals")
            // …100 g of food holds at most 100 g of macros, and 10/10/10 g cannot be 5 kcal.
            let heavy = await world.failure(
                TrackerAPI.addEntry,
                DiaryAdd(meal: .lunch, grams: 100, food: "Impossible", per100g: Macros(kcal: 100, carbohydrates: 90, protein: 90, fat: 90)))
            #expect(heavy?.code == .badRequest && heavy?.field == "per100g")
            let light = await world.failure(
                TrackerAPI.addEntry,
                DiaryAdd(meal: .lunch, grams: 100, food: "Light", per100g: Macros(kcal: 5, carbohydrates: 10, protein: 10, fat: 10)))
            #expect(light?.code == .badRequest && light?.field == "per100g.kcal")
            let beer = try await world.call(
                TrackerAPI.addEntry,
                DiaryAdd(meal: .dinner, grams: 330, food: "Beer", per100g: Macros(kcal: 43, carbohydrates: 3.6, protein: 0.5, fat: 0)))
            #expect(beer.food == "Beer", "alcohol's energy is not in the macros, and is allowed")
        }
    }

    /// Each day of a history carries every goal in force that day, for charts of each macro:
    /// the defaults before a change, the new goals from the day it takes effect.
    @Test func historyCarriesEachDaysGoals() async throws {
        try await withTracker { world in
            world.clock.advance(by: 7 * 86_400)
            let cutting = Goals(kcal: 1600, carbohydrates: 150, protein: 120, fat: 50)
            _ = try await world.call(TrackerAPI.setGoals, GoalsChange(from: localDate("2026-03-05"), goals: cutting))
            let history = try await world.call(TrackerAPI.history, DateRange(from: localDate("2026-03-03"), to: localDate("2026-03-06")))
            #expect(history.days.map(\.goals) == [.default, .default, cutting, cutting])
            #expect(history.days.map(\.kcalGoal) == [2000, 2000, 1600, 1600])
        }
    }

    @Test func historyAndAnalysisOverAHandBuiltFortnight() async throws {
        try await withTracker { world in
            // Recorded a week later, so every day of the fortnight is in the past.
            world.clock.advance(by: 7 * 86_400)
            // Week of Mon 2 March: three days at exactly 2000 kcal (the default goal); week of
            // Mon 9 March: one day at 2150 (within 10 %) and one at 3000 (outside).
            let days: [(String, Double)] = [
                ("2026-03-02", 2000), ("2026-03-03", 2000), ("2026-03-05", 2000), ("2026-03-09", 2150), ("2026-03-11", 3000),
            ]
            for (date, kcal) in days {
                // A food of 500 kcal with 25 g carbohydrates and 25 g protein per 100 g, scaled.
                _ = try await world.call(
                    TrackerAPI.addEntry,
                    typed("Food", .lunch, grams: kcal / 5, kcal: 500, carbohydrates: 25, protein: 25, fat: 0, on: localDate(date)))
            }
            let range = DateRange(from: localDate("2026-03-01"), to: localDate("2026-03-14"))
            let history = try await world.call(TrackerAPI.history, range)
            #expect(
                history.days.count == 14 && history.days.first?.date == localDate("2026-03-01") && history.days.last?.date == localDate("2026-03-14"))
            #expect(near(history.days.filter { $0.entries > 0 }.map(\.totals.kcal), [2000, 2000, 2000, 2150, 3000]))
            #expect(history.days.allSatisfy { $0.kcalGoal == 2000 })

            let analysis = try await world.call(TrackerAPI.analysis, range)
            #expect(analysis.daysLogged == 5)
            #expect(analysis.weeks.map(\.weekStart) == [localDate("2026-03-02"), localDate("2026-03-09")])
            #expect(analysis.weeks.map(\.daysLogged) == [3, 2])
            #expect(near([analysis.weeks[0].average.kcal, analysis.weeks[1].average.kcal], [2000, 2575]))
            #expect(analysis.daysWithinKcalGoal == 4)
            #expect(near([analysis.macroSplit.carbohydrates, analysis.macroSplit.protein, analysis.macroSplit.fat], [50, 50, 0]))

            let tooLong = await world.failure(TrackerAPI.history, DateRange(from: localDate("2025-01-01"), to: localDate("2026-03-14")))
            #expect(tooLong?.code == .badRequest && tooLong?.field == "to")
        }
    }
}

@Suite(.closesItsSockets)
struct SavedFoodTests {
    @Test func savedFoodsAreFilteredByMealAndLoggedWithAQuantity() async throws {
        try await withTracker { world in
            let shake = try await world.call(
                TrackerAPI.createFood,
                SavedFoodDraft(
                    name: "Protein shake", meals: [.snack, .breakfast], grams: 300, per100g: Macros(kcal: 80, carbohydrates: 6, protein: 10, fat: 1.5)
                ))
            #expect(shake.meals == [.breakfast, .snack])
            let salad = try await world.call(
                TrackerAPI.createFood,
                SavedFoodDraft(name: "Big salad", meals: [.lunch], grams: 400, per100g: Macros(kcal: 35, carbohydrates: 4, protein: 2, fat: 1)))
            let apple = try await world.call(
                TrackerAPI.createFood, SavedFoodDraft(name: "Apple", grams: 180, per100g: Macros(kcal: 52, carbohydrates: 14, protein: 0.3, fat: 0.2))
            )

            #expect(try await world.call(TrackerAPI.listFoods, SavedFoodFilter()).foods.map(\.name) == ["Apple", "Big salad", "Protein shake"])
            #expect(try await world.call(TrackerAPI.listFoods, SavedFoodFilter(meal: .lunch)).foods.map(\.id) == [apple.id, salad.id])
            #expect(try await world.call(TrackerAPI.listFoods, SavedFoodFilter(), user: "bea").foods.isEmpty)

            let entry = try await world.call(TrackerAPI.logFood, SavedFoodLog(id: shake.id, date: localDate("2026-03-10"), quantity: 1.5))
            #expect(entry.grams == 450 && entry.meal == .breakfast && entry.food == "Protein shake")
            #expect(entry.source == EntrySource(kind: .savedFood, reference: String(shake.id)))
            #expect(entry.totals.protein == 45)

            let edited = try await world.call(TrackerAPI.editFood, SavedFoodEdit(id: salad.id, name: "Huge salad", grams: 600))
            #expect(edited.name == "Huge salad" && edited.grams == 600 && edited.meals == [.lunch])
            let tooMuch = await world.failure(TrackerAPI.logFood, SavedFoodLog(id: salad.id, date: localDate("2026-03-10"), quantity: 9))
            #expect(tooMuch?.code == .badRequest && tooMuch?.field == "quantity")
            try await world.call(TrackerAPI.deleteFood, EntryID(id: salad.id))
            #expect(await world.failure(TrackerAPI.logFood, SavedFoodLog(id: salad.id))?.code == .notFound)
            #expect(await world.failure(TrackerAPI.deleteFood, EntryID(id: shake.id), user: "bea")?.code == .notFound)
            #expect(try await world.call(TrackerAPI.listEntries, DayRequest(date: localDate("2026-03-10"))).entries == [entry])
        }
    }
}

/// The tracker's writes check their idempotency key at commit (docs/PROTOCOL.md, "Idempotency"):
/// a retry runs up to its write, is rolled back and answered as the first attempt, also where
/// run anew it would apply again or fail.
@Suite(.closesItsSockets)
struct TrackerRetryTests {
    @Test func aRetriedWriteIsAnsweredAsTheFirstAndAppliedOnce() async throws {
        try await withTracker { world in
            let client = world.client
            let draft = SavedFoodDraft(name: "Shake", grams: 300, per100g: Macros(kcal: 80, carbohydrates: 6, protein: 10, fat: 1.5))
            let food = try await client.call(TrackerAPI.createFood, draft, user: "ada", idempotencyKey: "create")
            #expect(try await client.call(TrackerAPI.createFood, draft, user: "ada", idempotencyKey: "create") == food)
            #expect(try await world.call(TrackerAPI.listFoods, SavedFoodFilter()).foods.map(\.id) == [food.id], "a retry saved it twice")

            let log = SavedFoodLog(id: food.id, date: localDate("2026-03-10"))
            let entry = try await client.call(TrackerAPI.logFood, log, user: "ada", idempotencyKey: "log")
            #expect(try await client.call(TrackerAPI.logFood, log, user: "ada", idempotencyKey: "log") == entry)
            #expect(try await world.call(TrackerAPI.listEntries, DayRequest(date: localDate("2026-03-10"))).entries == [entry])

            // Run anew, the retry would find nothing to delete: it is answered as the first.
            let delete = EntryID(id: food.id)
            #expect(try await client.call(TrackerAPI.deleteFood, delete, user: "ada", idempotencyKey: "delete") == Empty())
            #expect(try await client.call(TrackerAPI.deleteFood, delete, user: "ada", idempotencyKey: "delete") == Empty())
            #expect(await world.failure(TrackerAPI.deleteFood, delete)?.code == .notFound, "a new request is run anew")

            let conflict = await #expect(throws: ServiceError.self) {
                try await client.call(
                    TrackerAPI.createFood, SavedFoodDraft(name: "Other", grams: 1, per100g: draft.per100g), user: "ada", idempotencyKey: "create")
            }
            #expect(conflict?.code == .conflict && conflict?.field == "header.idempotencyKey")
        }
    }
}
