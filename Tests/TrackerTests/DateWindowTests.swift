import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService

/// What a user records must be dated plausibly: not before 1900, nothing that happened after
/// their today, no plan more than a year ahead. Each refusal names the field and writes nothing.
@Suite(.closesItsSockets)
struct DateWindowTests {
    @Test func implausibleDiaryDrinkAndGoalDatesAreRefusedNamingTheField() async throws {
        try await withTracker { world in
            let cases: [(String, () async -> ServiceError?)] = [
                (
                    "date",
                    { await world.failure(TrackerAPI.addEntry, typed("Battle snack", .lunch, grams: 100, kcal: 100, on: localDate("1066-10-14"))) }
                ),
                (
                    "date",
                    { await world.failure(TrackerAPI.addEntry, typed("Future soup", .lunch, grams: 100, kcal: 100, on: localDate("2999-01-01"))) }
                ),
                // 2026-03-10 10:00 UTC: tomorrow in UTC has not happened yet.
                ("date", { await world.failure(TrackerAPI.addEntry, typed("Tomorrow", .lunch, grams: 100, kcal: 100, on: localDate("2026-03-11"))) }),
                ("date", { await world.failure(TrackerAPI.changeDrink, DrinkChange(date: localDate("9999-12-31"), drink: .water, delta: 1)) }),
                ("date", { await world.failure(TrackerAPI.changeDrink, DrinkChange(date: localDate("1899-12-31"), drink: .coffee, delta: 1)) }),
                ("from", { await world.failure(TrackerAPI.setGoals, GoalsChange(from: localDate("0001-01-01"), preset: "maintenance")) }),
                ("from", { await world.failure(TrackerAPI.setGoals, GoalsChange(from: localDate("2027-03-12"), preset: "maintenance")) }),
            ]
            for (field, attempt) in cases {
                let error = await attempt()
                #expect(error?.code == .badRequest && error?.field == field, "\(String(describing: error))")
            }
            #expect(
                try await world.call(TrackerAPI.history, DateRange(from: localDate("2026-03-01"), to: localDate("2026-03-31"))).days.allSatisfy {
                    $0.entries == 0
                })
            #expect(
                try await world.call(TrackerAPI.drinks, DayRequest(date: localDate("9999-12-31"))).water == 0,
                "reads of any date answer, with nothing there")

            // Accepted at the edges: 1900-01-01, today, and goals up to 366 days ahead.
            _ = try await world.call(TrackerAPI.addEntry, typed("Edge", .lunch, grams: 100, kcal: 100, on: localDate("1900-01-01")))
            _ = try await world.call(TrackerAPI.addEntry, typed("Today", .lunch, grams: 100, kcal: 100, on: localDate("2026-03-10")))
            let planned = try await world.call(TrackerAPI.setGoals, GoalsChange(from: localDate("2027-03-11"), preset: "cutting"))
            #expect(planned.from == localDate("2027-03-11"))

            let entry = try await world.call(TrackerAPI.addEntry, typed("Movable", .dinner, grams: 100, kcal: 100, on: localDate("2026-03-09")))
            let moved = await world.failure(TrackerAPI.editEntry, DiaryEdit(id: entry.id, date: localDate("2030-01-01")))
            #expect(moved?.code == .badRequest && moved?.field == "date")
            #expect(
                try await world.call(TrackerAPI.listEntries, DayRequest(date: localDate("2026-03-09"))).entries.map(\.id) == [entry.id],
                "the entry did not move")
        }
    }

    /// "Today" is the user's: at 11:00 UTC it is already the 11th in Auckland but not in UTC.
    @Test func theFutureIsJudgedInTheUsersTimeZone() async throws {
        try await withTracker { world in
            world.clock.advance(by: 3600)
            let planner = try #require(world.planner)
            _ = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Pacific/Auckland"), user: "kiwi")
            let tomorrowInUTC = typed("Breakfast", .breakfast, grams: 100, kcal: 100, on: localDate("2026-03-11"))
            let kiwi = try await world.call(TrackerAPI.addEntry, tomorrowInUTC, user: "kiwi")
            #expect(kiwi.date == localDate("2026-03-11"))
            #expect(await world.failure(TrackerAPI.addEntry, tomorrowInUTC, user: "londoner")?.field == "date")
        }
    }

    @Test func journalEntriesAndGlutenResultsAreDatedPlausibly() async throws {
        try await withCoeliacTracker { world in
            let ancient = await world.failure(
                CoeliacAPI.addEntry, JournalEntryDraft(title: "Feast", date: localDate("1000-01-01"), time: TimeOfDay("12:00")))
            #expect(ancient?.code == .badRequest && ancient?.field == "date")
            let result = await world.failure(CoeliacAPI.recordResult, GlutenResultRequest(date: localDate("2099-01-01"), positive: false))
            #expect(result?.code == .badRequest && result?.field == "date")
            // A prediction is a plan: tomorrow is fine, the next century is not.
            _ = try await world.call(CoeliacAPI.predict, GlutenPredictionRequest(date: localDate("2026-04-01"), expectsGluten: false))
            #expect(
                await world.failure(CoeliacAPI.predict, GlutenPredictionRequest(date: localDate("2099-01-01"), expectsGluten: false))?.field
                    == "date")
            #expect(try await world.call(CoeliacAPI.listEntries, JournalQuery(date: localDate("1000-01-01"))).entries.isEmpty)
        }
    }

    @Test func aGlutenResultCanBeCorrectedOrWithdrawn() async throws {
        try await withCoeliacTracker { world in
            let date = localDate("2026-03-20")
            _ = try await world.call(CoeliacAPI.predict, GlutenPredictionRequest(date: date, expectsGluten: false))
            let first = try await world.call(CoeliacAPI.recordResult, GlutenResultRequest(date: date, positive: true))
            #expect(first.day.positive == true && first.currentStreak == 0, "predicted no gluten, found some: wrong")
            let again = await world.failure(CoeliacAPI.recordResult, GlutenResultRequest(date: date, positive: false))
            #expect(again?.code == .conflict && again?.field == "date")

            let corrected = try await world.call(CoeliacAPI.recordResult, GlutenResultRequest(date: date, positive: false, replace: true))
            #expect(corrected.day == GlutenDay(date: date, expectsGluten: false, positive: false) && corrected.currentStreak == 1)
            #expect(try await world.call(CoeliacAPI.stats, Empty()).currentStreak == 1)

            let withdrawn = try await world.call(CoeliacAPI.deleteResult, GlutenResultRemoval(date: date))
            #expect(withdrawn == GlutenDay(date: date, expectsGluten: false, positive: nil), "the prediction stays")
            let stats = try await world.call(CoeliacAPI.stats, Empty())
            #expect(stats.currentStreak == 0)
            let gone = await world.failure(CoeliacAPI.deleteResult, GlutenResultRemoval(date: date))
            #expect(gone?.code == .notFound && gone?.field == "date")
            #expect(await world.failure(CoeliacAPI.deleteResult, GlutenResultRemoval(date: date), user: "bob")?.code == .notFound, "only one's own")

            // A day with only a result disappears with it.
            let lone = localDate("2026-03-21")
            _ = try await world.call(CoeliacAPI.recordResult, GlutenResultRequest(date: lone, positive: false))
            #expect(
                try await world.call(CoeliacAPI.deleteResult, GlutenResultRemoval(date: lone))
                    == GlutenDay(date: lone, expectsGluten: nil, positive: nil))
            let calendar = try await world.call(CoeliacAPI.calendar, GlutenCalendarRequest(year: 2026, month: 3))
            #expect(calendar.days[20].status == .nothing)
        }
    }
}

/// "Cooked it" logs what is eaten: a frying bath left in the fryer weighs nothing on the plate.
@Suite(.closesItsSockets)
struct FriedRecipeLoggingTests {
    @Test func aFriedRecipeIsLoggedWithTheCatalogsNutritionAndTheEatenWeight() async throws {
        try await withTracker(catalog: true) { world in
            let entry = try await world.call(
                TrackerAPI.logRecipeServing, RecipeServingLog(meal: .dinner, recipe: "beer-battered-fish-chips", servings: 1))
            let catalog = ServiceClient<Catalog>(
                endpoint: world.tracker.host.configuration.peers[.catalog]!.requests, options: .init(timeout: .seconds(30), retries: 0)
            )
            let recipe = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: "beer-battered-fish-chips"), user: "ada")
            let eaten = recipe.ingredients.reduce(0) { $0 + $1.grams * $1.eatenShare } / Double(recipe.people)
            #expect(near(entry.grams, eaten, tolerance: 1e-6))
            #expect(entry.grams < 1000, "not 1.2 kg of it oil")
            #expect(near(entry.grams * entry.per100g.kcal / 100, recipe.nutritionPerServing.kcal, tolerance: 1e-6))
            #expect(entry.grams * entry.per100g.kcal / 100 < 1100, "not the 4 668 kcal of the whole bath")
        }
    }
}
