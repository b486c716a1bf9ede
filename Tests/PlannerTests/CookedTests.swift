import CatalogService
import CatalogTesting
import Foundation
import MessagePack
import PlannerService
import SousCrypto
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService
import TrackerTesting

@Suite(.closesItsSockets)
struct CookedTests {
    @Test func cookingAPlannedMealLogsOneServingInTheRealTrackersDiary() async throws {
        try await withPlanner(tracker: .real) { world in
            let tracker = try #require(world.tracker)
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(people: 4))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            let result = try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 1))
            #expect(result.logged && result.loggingError == nil)
            let entry = try #require(result.diaryEntry)
            #expect(result.slot.cookedAt == referenceInstant && result.slot.diaryEntry == entry.id)
            #expect(entry.date == localDate("2026-03-10") && entry.meal == .lunch && entry.source == EntrySource(kind: .recipe, reference: soup))

            // One serving, whatever the people count: the diary holds what one person ate.
            let recipe = try await world.catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: soup), user: "ada")
            #expect(abs(entry.totals.kcal - recipe.nutritionPerServing.kcal) < 0.5)
            let diary = try await tracker.call(TrackerAPI.listEntries, DayRequest(date: localDate("2026-03-10")), user: "ada")
            #expect(diary.entries.map(\.id) == [entry.id])
            #expect(diary.entries.first?.food == "Tomato and Red Lentil Soup")

            // The plan remembers it; cooking it again must not log a second serving.
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(week.days[0].slots[0].diaryEntry == entry.id)
            let again = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 1))
            }
            #expect(again?.code == .conflict)
            #expect(try await tracker.call(TrackerAPI.listEntries, DayRequest(date: localDate("2026-03-10")), user: "ada").entries.count == 1)
        }
    }

    @Test func cookedNeedsAPlannedMealOnOrBeforeToday() async throws {
        try await withPlanner(tracker: .real) { world in
            let empty = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 2))
            }
            #expect(empty?.code == .notFound && empty?.field == "slot")
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-11"), slot: 2, recipe: soup))
            let future = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-11"), slot: 2))
            }
            #expect(future?.code == .badRequest && future?.field == "date")
            let slot = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 5))
            }
            #expect(slot?.field == "slot")
            // Yesterday's dinner can still be marked after midnight, into yesterday's diary.
            world.clock.advance(by: 86_400)
            let late = try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-11"), slot: 2))
            #expect(late.logged && late.slot.meal == .dinner && late.diaryEntry?.date == localDate("2026-03-11"))
        }
    }

    @Test func whenTheTrackerIsDownTheMarkStaysAndTheUserIsTold() async throws {
        try await withPlanner(tracker: .absent) { world in
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: soup))
            let result = try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 2))
            #expect(!result.logged && result.diaryEntry == nil)
            let message = try #require(result.loggingError)
            #expect(message.contains("could not be logged") && message.contains("tracker"))
            #expect(result.slot.cookedAt == referenceInstant)
            let week = try await world.call(PlannerAPI.getPlan, Empty())
            #expect(week.days[0].slots[1].cookedAt == referenceInstant && week.days[0].slots[1].diaryEntry == nil, "the plan change committed")
        }
    }

    @Test func markingAgainRetriesLoggingThatFailed() async throws {
        let clock = WallClock.manual(at: referenceInstant)
        let catalog = try CatalogFixture.make(clock: clock)
        let tracker = try TrackerFixture.make(peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
        let database = try PlannerService.openDatabase(at: .testing(.planner), logger: quietLogger("planner"))
        defer { database.close() }
        // Two planners over one database: the first cannot reach the tracker, the second can.
        func planner(_ tracker: ServiceEndpoints?) throws -> PlannerService {
            var configuration = ServiceConfiguration.inProcess(.planner, peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
            if let tracker { configuration.peers[.tracker] = tracker } else { configuration.makeAbsent(.tracker) }
            return try PlannerService(configuration: configuration, logger: quietLogger("planner"), database: database)
        }
        let down = try planner(nil)
        let up = try planner(tracker.host.boundEndpoints)
        try await withRunningServices([catalog.host, tracker.host, down.host, up.host]) { _ in
            let downClient = down.host.client(Planner.self)
            let upClient = up.host.client(Planner.self)
            _ = try await downClient.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup), user: "ada")
            #expect(try await downClient.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 1), user: "ada").logged == false)
            clock.advance(by: 600)
            let retried = try await upClient.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 1), user: "ada")
            #expect(retried.logged && retried.diaryEntry?.meal == .lunch)
            #expect(retried.slot.cookedAt == referenceInstant, "the first mark's time is kept")
        }
    }

    /// The planner logged the serving but died before recording it (here: the tracker got the
    /// planner's call, the planner never got the reply). Marking again with the same key logs
    /// nothing new: the tracker call carries the key derived from the request's ("<key>>method").
    @Test func aCookedRetriedAfterACrashLogsOneServing() async throws {
        try await withPlanner(tracker: .real) { world in
            let tracker = try #require(world.tracker)
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: soup))
            let logged = try await tracker.call(
                TrackerAPI.logRecipeServing, RecipeServingLog(date: localDate("2026-03-10"), meal: .dinner, recipe: soup, servings: 1),
                user: "ada", idempotencyKey: "cook-1>diary.logRecipe"
            )
            let cooked = try await world.client.call(
                PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 2), user: "ada", idempotencyKey: "cook-1")
            #expect(cooked.logged && cooked.diaryEntry == logged)
            // And the same request again replays the planner's reply.
            let again = try await world.client.call(
                PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 2), user: "ada", idempotencyKey: "cook-1")
            #expect(again == cooked)
            #expect(
                try await tracker.call(TrackerAPI.listEntries, DayRequest(date: localDate("2026-03-10")), user: "ada").entries.map(\.id) == [
                    logged.id
                ])
        }
    }

    /// The planner died between marking the meal cooked (its transaction left the key's applied
    /// mark) and logging the serving: a retry with the same key finishes the job, whether the
    /// mark is a second old or an hour, and the serving is logged once.
    @Test(arguments: [1.0, 3600.0])
    func aCookedRetriedAfterItsMarkWasCommittedFinishesTheLogging(markAge: TimeInterval) async throws {
        try await withPlanner(tracker: .real) { world in
            let tracker = try #require(world.tracker)
            let ref = CookedSlot(date: localDate("2026-03-10"), slot: 2)
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: ref.date, slot: ref.slot, recipe: soup))
            // What the dead attempt committed: the slot marked cooked, and its key's mark.
            let database = world.planner.store.database
            try database.write { session in
                try session.execute(
                    #"UPDATE slot SET cooked_at = ? WHERE household = 'ada' AND date = '2026-03-10' AND slot = 2"#,
                    [referenceInstant.timeIntervalSince1970])
            }
            let body = try MessagePackEncoder().encode(ref)
            try database.save(
                IdempotencyRecord(
                    user: "ada", key: "cook-2", method: PlannerAPI.cooked.name, digest: Sodium.digest([Array(PlannerAPI.cooked.name.utf8), body]),
                    reply: [], createdAt: Date().addingTimeInterval(-markAge)))

            let finished = try await world.client.call(PlannerAPI.cooked, ref, user: "ada", idempotencyKey: "cook-2")
            #expect(finished.logged && finished.diaryEntry?.meal == .dinner)
            #expect(finished.slot.cookedAt == referenceInstant && finished.slot.diaryEntry == finished.diaryEntry?.id)
            let again = try await world.client.call(PlannerAPI.cooked, ref, user: "ada", idempotencyKey: "cook-2")
            #expect(again == finished, "a second retry replays the finished reply")
            let diary = try await tracker.call(TrackerAPI.listEntries, DayRequest(date: ref.date), user: "ada")
            #expect(diary.entries.map(\.id) == [try #require(finished.diaryEntry).id])
        }
    }
}
