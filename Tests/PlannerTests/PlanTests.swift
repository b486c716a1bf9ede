import CatalogService
import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService

let soup = "tomato-lentil-soup"
let gazpacho = "chilled-gazpacho"
let minestrone = "minestrone"

@Suite(.closesItsSockets)
struct SelectionTests {
    @Test func addingNeedsARecipeTheCatalogKnows() async throws {
        try await withPlanner { world in
            let error = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.addRecipe, RecipeID(id: "unicorn-stew")) }
            #expect(error?.code == .notFound && error?.field == "id")
            let selection = try await world.call(PlannerAPI.addRecipe, RecipeID(id: soup))
            #expect(selection.recipes.map(\.id) == [soup])
            #expect(selection.recipes.first?.name == "Tomato and Red Lentil Soup")
            #expect(selection.recipes.first?.addedAt == referenceInstant, "times come from the injected clock")
            _ = try await world.call(PlannerAPI.addRecipe, RecipeID(id: gazpacho))
            _ = try await world.call(PlannerAPI.addRecipe, RecipeID(id: soup))
            let listed = try await world.call(PlannerAPI.selection, Empty())
            #expect(listed.recipes.map(\.id) == [soup, gazpacho], "in the order added, once each")
            #expect(try await world.call(PlannerAPI.selection, Empty(), user: "bob").recipes.isEmpty)
        }
    }

    /// The plan's writes check their idempotency key at commit: a retried `plan.put` is answered
    /// as the first attempt was and changes nothing, also after the slot was cleared since.
    @Test func aRetriedPutIsAnsweredAsTheFirstAndChangesNothing() async throws {
        try await withPlanner { world in
            let put = SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup)
            let first = try await world.client.call(PlannerAPI.putSlot, put, user: "ada", idempotencyKey: "put-1")
            #expect(try await world.client.call(PlannerAPI.putSlot, put, user: "ada", idempotencyKey: "put-1") == first)
            _ = try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-10"), slot: 1))
            #expect(try await world.client.call(PlannerAPI.putSlot, put, user: "ada", idempotencyKey: "put-1") == first)
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(week.days.first { $0.date == localDate("2026-03-10") }?.slots.allSatisfy { $0.recipe == nil } == true, "a retry put it back")
        }
    }

    @Test func removingClearsEverySlotThatHoldsIt() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-12"), slot: 2, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-12"), slot: 1, recipe: gazpacho))
            let selection = try await world.call(PlannerAPI.removeRecipe, RecipeID(id: soup))
            #expect(selection.recipes.map(\.id) == [gazpacho])
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            let filled = week.days.flatMap(\.slots).compactMap(\.recipe)
            #expect(filled == [gazpacho])
            let again = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.removeRecipe, RecipeID(id: soup)) }
            #expect(again?.code == .notFound)
        }
    }
}

@Suite(.closesItsSockets)
struct SlotTests {
    @Test func theWeekIsSevenDaysFromTodayWithLunchAndDinner() async throws {
        try await withPlanner { world in
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(week.today == localDate("2026-03-10"))
            #expect(week.days.map(\.date) == (0..<7).map { localDate("2026-03-10").adding(days: $0) })
            #expect(week.days.map(\.isToday) == [true, false, false, false, false, false, false])
            #expect(week.days.first?.weekday == 2, "2026-03-10 is a Tuesday")
            #expect(week.days.allSatisfy { $0.slots.map(\.meal) == [.lunch, .dinner] && $0.slots.allSatisfy { $0.recipe == nil } })
        }
    }

    @Test func puttingAddsToTheSelectionAndTheSameRecipeMayFillSeveralSlots() async throws {
        try await withPlanner { world in
            let slot = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-11"), slot: 2, recipe: soup))
            #expect(slot.recipe == soup && slot.recipeName == "Tomato and Red Lentil Soup" && slot.meal == .dinner)
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-12"), slot: 1, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-16"), slot: 2, recipe: soup))
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(week.selection.map(\.id) == [soup])
            #expect(week.selection.first?.plannedSlots == 3)
            #expect(week.days.flatMap(\.slots).filter { $0.recipe == soup }.count == 3)
            // Replacing a slot's recipe.
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-12"), slot: 1, recipe: gazpacho))
            #expect(
                try await world.call(PlannerAPI.suggestedMultiplier, RecipeID(id: soup))
                    == SuggestedMultiplier(recipe: soup, multiplier: 2, plannedSlots: 2))
        }
    }

    @Test func theMultiplierIsOneForARecipeThatIsNotPlanned() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.addRecipe, RecipeID(id: soup))
            #expect(
                try await world.call(PlannerAPI.suggestedMultiplier, RecipeID(id: soup))
                    == SuggestedMultiplier(recipe: soup, multiplier: 1, plannedSlots: 0))
            let unknown = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.suggestedMultiplier, RecipeID(id: "anything")) }
            #expect(unknown?.code == .notFound && unknown?.field == "id")
        }
    }

    /// What groceries asks before it reads a recipe itself: the household and the planned slots
    /// in one read, the catalog not asked (an unknown id fills no slot instead of notFound).
    @Test func theHouseholdIsThePeopleAndThePlannedSlotsWithoutTheCatalog() async throws {
        try await withPlanner { world in
            #expect(try await world.call(PlannerAPI.household, RecipeID(id: soup)) == RecipeHousehold(recipe: soup, people: 2, plannedSlots: 0))
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(people: 5))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-16"), slot: 2, recipe: soup))
            #expect(try await world.call(PlannerAPI.household, RecipeID(id: soup)) == RecipeHousehold(recipe: soup, people: 5, plannedSlots: 2))
            #expect(
                try await world.call(PlannerAPI.household, RecipeID(id: "anything"))
                    == RecipeHousehold(recipe: "anything", people: 5, plannedSlots: 0))
            for id in ["", String(repeating: "x", count: 201)] {
                let error = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.household, RecipeID(id: id)) }
                #expect(error?.code == .badRequest && error?.field == "id")
            }
        }
    }

    /// What groceries keeps per user: the household for the whole visible week, every planned
    /// recipe's slots, valid until the user's midnight (when past days leave the count).
    @Test func theWeeksHouseholdCountsEveryPlannedRecipeUntilTheUsersMidnight() async throws {
        try await withPlanner { world in
            let instant = { (text: String) in ISO8601DateFormatter().date(from: text)! }
            let empty = try await world.call(PlannerAPI.weekHousehold, Empty())
            // The world's clock reads 2026-03-10, 10:00 UTC.
            #expect(empty == WeekHousehold(people: 2, planned: [], validUntil: instant("2026-03-11T00:00:00Z")))
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(people: 3, timeZone: "America/New_York"))
            for (day, slot, recipe) in [("2026-03-10", 1, soup), ("2026-03-12", 2, soup), ("2026-03-16", 1, soup), ("2026-03-11", 1, gazpacho)] {
                _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate(day), slot: slot, recipe: recipe))
            }
            let week = try await world.call(PlannerAPI.weekHousehold, Empty())
            #expect(week.people == 3)
            #expect(week.planned == [PlannedRecipe(recipe: gazpacho, slots: 1), PlannedRecipe(recipe: soup, slots: 3)], "by recipe id")
            #expect(week.validUntil == instant("2026-03-11T04:00:00Z"), "midnight in New York (EDT since 8 March)")
            #expect(week.plannedSlots(of: soup) == 3 && week.plannedSlots(of: "anything") == 0)
            #expect(try await world.call(PlannerAPI.household, RecipeID(id: soup)).plannedSlots == 3, "as the one-recipe read counts")

            // Two days on, 10 and 11 March are history.
            _ = world.clock.advance(by: 2 * 86_400)
            let later = try await world.call(PlannerAPI.weekHousehold, Empty())
            #expect(later.planned == [PlannedRecipe(recipe: soup, slots: 2)] && later.validUntil == instant("2026-03-13T04:00:00Z"))
        }
    }

    @Test func movingToAnOccupiedSlotSwapsAndToAnEmptyOneMoves() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-13"), slot: 2, recipe: gazpacho))
            let swapped = try await world.call(
                PlannerAPI.moveSlot,
                SlotMove(from: SlotRef(date: localDate("2026-03-10"), slot: 1), to: SlotRef(date: localDate("2026-03-13"), slot: 2)))
            #expect(swapped.days.map(\.date) == [localDate("2026-03-10"), localDate("2026-03-13")])
            var week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(recipe(in: week, "2026-03-10", 1) == gazpacho)
            #expect(recipe(in: week, "2026-03-13", 2) == soup)
            _ = try await world.call(
                PlannerAPI.moveSlot,
                SlotMove(from: SlotRef(date: localDate("2026-03-13"), slot: 2), to: SlotRef(date: localDate("2026-03-13"), slot: 1)))
            week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(recipe(in: week, "2026-03-13", 1) == soup)
            #expect(recipe(in: week, "2026-03-13", 2) == nil)
            let empty = await #expect(throws: ServiceError.self) {
                try await world.call(
                    PlannerAPI.moveSlot,
                    SlotMove(from: SlotRef(date: localDate("2026-03-15"), slot: 1), to: SlotRef(date: localDate("2026-03-14"), slot: 1)))
            }
            #expect(empty?.code == .notFound && empty?.field == "from")

            // Onto itself: nothing changes.
            let onItself = SlotRef(date: localDate("2026-03-13"), slot: 1)
            let unmoved = try await world.call(PlannerAPI.moveSlot, SlotMove(from: onItself, to: onItself))
            #expect(unmoved.days.map(\.date) == [localDate("2026-03-13")])
            #expect(recipe(in: try await world.call(PlannerAPI.getPlan, Empty()), "2026-03-13", 1) == soup)
        }
    }

    @Test func clearingEmptiesOneSlot() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: soup))
            let cleared = try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-10"), slot: 2))
            #expect(cleared.recipe == nil)
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(recipe(in: week, "2026-03-10", 1) == soup && recipe(in: week, "2026-03-10", 2) == nil)
            #expect(week.selection.map(\.id) == [soup], "clearing a slot keeps the recipe selected")
        }
    }

    @Test func badInputNamesTheField() async throws {
        try await withPlanner { world in
            let past = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-09"), slot: 1, recipe: soup))
            }
            #expect(past?.code == .badRequest && past?.field == "date")
            let late = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-17"), slot: 1, recipe: soup))
            }
            #expect(late?.code == .badRequest && late?.field == "date")
            let slot = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 3, recipe: soup))
            }
            #expect(slot?.code == .badRequest && slot?.field == "slot")
            let unknown = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: "unicorn"))
            }
            #expect(unknown?.code == .notFound && unknown?.field == "recipe")
            let move = await #expect(throws: ServiceError.self) {
                try await world.call(
                    PlannerAPI.moveSlot,
                    SlotMove(from: SlotRef(date: localDate("2026-03-10"), slot: 1), to: SlotRef(date: localDate("2026-03-20"), slot: 1)))
            }
            #expect(move?.field == "to.date")
            let clear = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-10"), slot: 0))
            }
            #expect(clear?.field == "slot")
            let selection = try await world.call(PlannerAPI.selection, Empty())
            #expect(selection.recipes.isEmpty, "nothing was written")
        }
    }
}

@Suite(.closesItsSockets)
struct RollingWindowTests {
    @Test func theWeekRollsAtLocalMidnightAndPastDaysStayInHistory() async throws {
        // 22:59 UTC is 23:59 in Rome (CET, UTC+1) on 2026-03-10.
        try await withPlanner(at: ISO8601DateFormatter().date(from: "2026-03-10T22:59:00Z")!) { world in
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Europe/Rome"))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-16"), slot: 2, recipe: gazpacho))
            #expect(try await world.call(PlannerAPI.getPlan, Empty()).today == localDate("2026-03-10"))
            #expect(try await world.call(PlannerAPI.suggestedMultiplier, RecipeID(id: soup)).plannedSlots == 1)

            world.clock.advance(by: 60)  // 00:00 in Rome
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(week.today == localDate("2026-03-11"))
            #expect(week.days.first?.date == localDate("2026-03-11") && week.days.last?.date == localDate("2026-03-17"))
            #expect(recipe(in: week, "2026-03-16", 2) == gazpacho)
            #expect(!week.days.flatMap(\.slots).contains { $0.recipe == soup }, "yesterday left the view")
            #expect(try await world.call(PlannerAPI.suggestedMultiplier, RecipeID(id: soup)).plannedSlots == 0)

            let history = try await world.call(PlannerAPI.history, PlanDateRange(from: localDate("2026-03-09"), to: localDate("2026-03-11")))
            #expect(history.days.map(\.date) == [localDate("2026-03-09"), localDate("2026-03-10"), localDate("2026-03-11")])
            #expect(history.days[1].slots[1].recipe == soup, "past days stay queryable")
            #expect(history.days.map(\.isToday) == [false, false, true])

            let write = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-10"), slot: 2))
            }
            #expect(write?.field == "date", "yesterday can no longer be changed")
            // Removing the recipe keeps history intact.
            _ = try await world.call(PlannerAPI.removeRecipe, RecipeID(id: soup))
            let after = try await world.call(PlannerAPI.history, PlanDateRange(from: localDate("2026-03-10"), to: localDate("2026-03-10")))
            #expect(after.days[0].slots[1].recipe == soup && after.days[0].slots[1].recipeName == "Tomato and Red Lentil Soup")
        }
    }

    @Test func usersInAucklandAndLosAngelesSeeDifferentTodaysAtTheSameInstant() async throws {
        // 2026-03-10 20:00 UTC: 09:00 on the 11th in Auckland (NZDT, +13), 13:00 on the 10th in Los Angeles (PDT, −7).
        try await withPlanner(at: ISO8601DateFormatter().date(from: "2026-03-10T20:00:00Z")!) { world in
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Pacific/Auckland"), user: "kiri")
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "America/Los_Angeles"), user: "sam")
            let kiri = try await world.call(PlannerAPI.getPlan, Empty(), user: "kiri")
            let sam = try await world.call(PlannerAPI.getPlan, Empty(), user: "sam")
            #expect(kiri.today == localDate("2026-03-11") && kiri.timeZone == "Pacific/Auckland")
            #expect(sam.today == localDate("2026-03-10"))
            // The 10th is writable for Sam and already history for Kiri.
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: soup), user: "sam")
            let error = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: soup), user: "kiri")
            }
            #expect(error?.field == "date")
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-17"), slot: 1, recipe: soup), user: "kiri")
        }
    }
}

func recipe(in week: WeekPlan, _ day: String, _ slot: Int) -> String? {
    week.days.first { $0.date == localDate(day) }?.slots.first { $0.slot == slot }?.recipe
}
