import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService
import TrackerTesting

/// `diary.add` with the meal as free text, to send what the typed schema cannot.
private struct LooseAdd: Codable, Sendable {
    var date: String
    var meal: String
    var grams: Double
    var food: String
    var per100g: Macros
}

private let looseAdd = Method<Tracker, LooseAdd, DiaryEntry>.write("diary.add", .public)

@Suite(.closesItsSockets)
struct DiaryEntryTests {
    @Test func addListEditDeleteKeepsOneUsersDiaryApart() async throws {
        try await withTracker { world in
            let date = localDate("2026-03-10")
            let oats = try await world.call(
                TrackerAPI.addEntry, typed("Porridge", .breakfast, grams: 250, kcal: 70, carbohydrates: 12, protein: 2.5, fat: 1.4, on: date))
            #expect(oats.source == EntrySource(kind: .manual) && oats.date == date && oats.loggedAt == trackerInstant)
            let soup = try await world.call(TrackerAPI.addEntry, typed("Soup, \"homemade\"", .lunch, grams: 300, kcal: 45, on: date))
            _ = try await world.call(TrackerAPI.addEntry, typed("Toast", .breakfast, grams: 40, kcal: 260, on: date), user: "bea")

            let listed = try await world.call(TrackerAPI.listEntries, DayRequest(date: date))
            #expect(listed.entries.map(\.id) == [oats.id, soup.id])
            #expect(listed.day == ResolvedDay(date: date, timeZone: nil))

            let edited = try await world.call(TrackerAPI.editEntry, DiaryEdit(id: soup.id, meal: .dinner, grams: 350))
            #expect(edited.meal == .dinner && edited.grams == 350 && edited.food == soup.food && edited.per100g == soup.per100g)
            #expect(await world.failure(TrackerAPI.editEntry, DiaryEdit(id: soup.id, grams: 10), user: "bea")?.code == .notFound)

            try await world.call(TrackerAPI.deleteEntry, EntryID(id: oats.id))
            let after = try await world.call(TrackerAPI.listEntries, DayRequest(date: date))
            #expect(after.entries == [edited])
            let missing = await world.failure(TrackerAPI.deleteEntry, EntryID(id: oats.id))
            #expect(missing?.code == .notFound && missing?.field == "id")
        }
    }

    @Test func badInputIsRefusedNamingTheFieldAndWritesNothing() async throws {
        try await withTracker { world in
            let date = localDate("2026-03-10")
            let zero = await world.failure(TrackerAPI.addEntry, typed("Air", .snack, grams: 0, kcal: 0, on: date))
            #expect(zero?.code == .badRequest && zero?.field == "grams")
            let huge = await world.failure(TrackerAPI.addEntry, typed("Feast", .dinner, grams: 5001, kcal: 100, on: date))
            #expect(huge?.field == "grams")
            let negative = await world.failure(TrackerAPI.addEntry, typed("Odd", .lunch, grams: 100, kcal: 100, protein: -1, on: date))
            #expect(negative?.code == .badRequest && negative?.field == "per100g.protein")
            let meal = await world.failure(looseAdd, LooseAdd(date: "2026-03-10", meal: "brunch", grams: 100, food: "Eggs", per100g: .zero))
            #expect(meal?.code == .badRequest && meal?.field == "meal")
            let badDate = await world.failure(looseAdd, LooseAdd(date: "2026-02-30", meal: "lunch", grams: 100, food: "Eggs", per100g: .zero))
            #expect(badDate?.code == .badRequest && badDate?.field == "date")
            let twoSources = await world.failure(
                TrackerAPI.addEntry, DiaryAdd(date: date, meal: .lunch, grams: 10, food: "X", per100g: .zero, barcode: "2100000000005"))
            #expect(twoSources?.code == .badRequest)

            let good = try await world.call(TrackerAPI.addEntry, typed("Apple", .snack, grams: 150, kcal: 52, on: date))
            let badEdit = await world.failure(TrackerAPI.editEntry, DiaryEdit(id: good.id, meal: .lunch, grams: -5))
            #expect(badEdit?.field == "grams")
            // Neither the refused adds nor the refused edit changed anything.
            #expect(try await world.call(TrackerAPI.listEntries, DayRequest(date: date)).entries == [good])
        }
    }

    @Test func yesterdaysFoodsAreOfferedOnceEach() async throws {
        try await withTracker { world in
            let monday = localDate("2026-03-09")
            for _ in 0..<2 { _ = try await world.call(TrackerAPI.addEntry, typed("Espresso biscotti", .snack, grams: 30, kcal: 420, on: monday)) }
            _ = try await world.call(TrackerAPI.addEntry, typed("Risotto", .dinner, grams: 320, kcal: 140, on: monday))
            _ = try await world.call(TrackerAPI.addEntry, typed("Cake", .snack, grams: 80, kcal: 380, on: localDate("2026-03-10")))
            let recent = try await world.call(TrackerAPI.yesterday, DayRequest(date: localDate("2026-03-10")))
            #expect(recent.date == monday)
            #expect(recent.foods.map(\.food) == ["Risotto", "Espresso biscotti"])
        }
    }

    @Test func exportIsRFC4180() async throws {
        try await withTracker { world in
            world.clock.advance(by: 3 * 86_400)
            _ = try await world.call(
                TrackerAPI.addEntry, typed("Soup, \"homemade\"", .lunch, grams: 300, kcal: 45, carbohydrates: 6.5, on: localDate("2026-03-10")))
            _ = try await world.call(TrackerAPI.addEntry, typed("Bread", .breakfast, grams: 50, kcal: 265, on: localDate("2026-03-11")))
            _ = try await world.call(TrackerAPI.addEntry, typed("Outside", .breakfast, grams: 50, kcal: 265, on: localDate("2026-03-12")))
            let export = try await world.call(TrackerAPI.export, DateRange(from: localDate("2026-03-10"), to: localDate("2026-03-11")))
            #expect(export.rows == 2)
            let lines = export.csv.components(separatedBy: "\r\n")
            #expect(lines.count == 4 && lines[3].isEmpty, "header, two rows, CRLF after each")
            #expect(lines[0].hasPrefix("date,meal,food,grams,kcal_per_100g"))
            #expect(
                lines[1].hasPrefix("2026-03-10,lunch,\"Soup, \"\"homemade\"\"\",300,45,6.5,0,0,135,19.5,0,0,manual,,2026-03-13T10:00:00Z"),
                "logged three days later")
            #expect(lines[2].hasPrefix("2026-03-11,breakfast,Bread,50,265"))
            let backwards = await world.failure(TrackerAPI.export, DateRange(from: localDate("2026-03-11"), to: localDate("2026-03-10")))
            #expect(backwards?.code == .badRequest && backwards?.field == "to")
        }
    }

    @Test func changesPublishEntryEventsAndActivity() async throws {
        try await withTracker(planner: false) { world in
            let host = world.tracker.host
            let subscriber = EventSubscriber(
                endpoints: [host.boundEndpoints.events], prefixes: ["tracker.entry.", EventTopics.activity.name], logger: host.logger
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await subscriber.run() }
                await subscriber.waitUntilSubscribed()
                // Subscriptions propagate asynchronously: keep logging until an event arrives.
                let warmUp = Task {
                    for _ in 1...500 {
                        if Task.isCancelled { return }
                        _ = try? await world.call(
                            TrackerAPI.addEntry, typed("Warm-up", .snack, grams: 1, kcal: 1, on: localDate("2026-01-01")), user: "warm")
                    }
                }
                _ = try await firstElement(of: subscriber.events, within: .seconds(10)) { $0.header.topic == TrackerTopics.entryLogged.name }
                warmUp.cancel()
                _ = await warmUp.result

                let entry = try await world.call(TrackerAPI.addEntry, typed("Pear", .snack, grams: 170, kcal: 57, on: localDate("2026-03-10")))
                let logged = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == TrackerTopics.entryLogged.name && (try? $0.decode(DiaryEntryEvent.self).user) == "ada"
                }
                #expect(
                    try logged.decode(DiaryEntryEvent.self)
                        == DiaryEntryEvent(user: "ada", entry: entry.id, date: localDate("2026-03-10"), meal: .snack))
                let activity = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == EventTopics.activity.name && (try? $0.decode(ActivityEvent.self).user) == "ada"
                }
                let body = try activity.decode(ActivityEvent.self)
                #expect(body.service == "tracker" && body.method == "diary.add" && body.time == trackerInstant)

                _ = try await world.call(TrackerAPI.editEntry, DiaryEdit(id: entry.id, meal: .dinner))
                let changed = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == TrackerTopics.entryChanged.name
                }
                #expect(try changed.decode(DiaryEntryEvent.self).meal == .dinner)
                try await world.call(TrackerAPI.deleteEntry, EntryID(id: entry.id))
                let deleted = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == TrackerTopics.entryDeleted.name
                }
                #expect(try deleted.decode(DiaryEntryEvent.self).entry == entry.id)
                group.cancelAll()
            }
        }
    }
}

@Suite(.closesItsSockets)
struct DayBoundaryTests {
    @Test func todayIsTheDateInTheProfilesTimeZone() async throws {
        try await withTracker { world in
            let planner = try #require(world.planner)
            _ = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Pacific/Auckland"), user: "ada")
            _ = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "America/Los_Angeles"), user: "bea")
            let lateEvening = localDate("2026-03-10").instant(hour: 23, minute: 30, in: TimeZone(identifier: "Pacific/Auckland")!)
            world.clock.set(lateEvening)
            let before = try await world.call(
                TrackerAPI.addEntry,
                DiaryAdd(meal: .snack, grams: 20, food: "Chocolate", per100g: Macros(kcal: 540, carbohydrates: 60, protein: 5, fat: 30)))
            #expect(before.date == localDate("2026-03-10"))
            world.clock.advance(by: 3600)
            let after = try await world.call(
                TrackerAPI.addEntry,
                DiaryAdd(meal: .breakfast, grams: 200, food: "Yogurt", per100g: Macros(kcal: 60, carbohydrates: 5, protein: 4, fat: 3)))
            #expect(after.date == localDate("2026-03-11"), "00:30 in Auckland is the next day, though still 11:30 on the 10th in UTC")
            let summary = try await world.call(TrackerAPI.summary, DayRequest())
            #expect(summary.day == ResolvedDay(date: localDate("2026-03-11"), timeZone: "Pacific/Auckland"))
            #expect(summary.meals.map(\.meal) == [.breakfast])

            // At the same instant it is still the afternoon before in Los Angeles.
            let bea = try await world.call(TrackerAPI.listEntries, DayRequest(), user: "bea")
            #expect(bea.day.date == localDate("2026-03-10") && bea.day.timeZone == "America/Los_Angeles")
        }
    }

    @Test func whenThePlannerGoesAwayTheLastZoneItGaveIsUsed() async throws {
        let auckland = TimeZone(identifier: "Pacific/Auckland")!
        // 23:30 on the 10th in Auckland, 10:30 UTC.
        let clock = WallClock.manual(at: localDate("2026-03-10").instant(hour: 23, minute: 30, in: auckland))
        // Over TCP, as deployed: a stopped peer's requests queue until the client's timeout.
        var configuration = ServiceConfiguration.inProcess(.planner, clock: clock)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let planner = try PlannerService(
            configuration: configuration, logger: quietLogger("planner"))
        let tracker = try TrackerFixture.make(peers: [.planner: planner.host.boundEndpoints], clock: clock)
        // 9 s: the time-zone lookup is optional and gets a third of it, ample for a live planner
        // and short enough not to stall the test once the planner has stopped.
        let client = ServiceClient<Tracker>(endpoint: tracker.host.boundEndpoints.requests, options: .init(timeout: .seconds(9), retries: 0))
        try await withRunningServices([tracker.host]) { _ in
            try await withRunningServices([planner.host]) { _ in
                let plannerClient = try planner.host.testClient(as: Planner.self)
                _ = try await plannerClient.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Pacific/Auckland"), user: "ada")
                let first = try await client.call(TrackerAPI.summary, DayRequest(), user: "ada")
                #expect(first.day == ResolvedDay(date: localDate("2026-03-10"), timeZone: "Pacific/Auckland"))
            }
            // The planner has stopped. An hour later it is the 11th in Auckland, still the 10th in UTC.
            clock.advance(by: 3600)
            let later = try await client.call(TrackerAPI.summary, DayRequest(), user: "ada")
            #expect(later.day.date == localDate("2026-03-11") && later.day.timeZone == "Pacific/Auckland")
            #expect(later.day.note?.contains("last known zone") == true)
            let stranger = try await client.call(TrackerAPI.summary, DayRequest(), user: "bea")
            #expect(stranger.day.date == localDate("2026-03-10") && stranger.day.timeZone == "UTC")
        }
    }

    @Test func withoutThePlannerTodayIsTakenInUTCAndTheReplySaysSo() async throws {
        try await withTracker(planner: false) { world in
            world.clock.set(localDate("2026-03-10").instant(hour: 23, minute: 59, in: .gmt))
            let summary = try await world.call(TrackerAPI.summary, DayRequest())
            #expect(summary.day.date == localDate("2026-03-10") && summary.day.timeZone == "UTC")
            #expect(summary.day.note?.contains("planner") == true)
        }
    }
}

@Suite(.closesItsSockets)
struct DrinkTests {
    @Test func waterAndCoffeeCountUpAndNeverBelowZero() async throws {
        try await withTracker { world in
            // The day after is recorded too: it must not be in the future.
            world.clock.advance(by: 86_400)
            let date = localDate("2026-03-10")
            var counts = try await world.call(TrackerAPI.changeDrink, DrinkChange(date: date, drink: .water, delta: 2))
            counts = try await world.call(TrackerAPI.changeDrink, DrinkChange(date: date, drink: .coffee, delta: 1))
            #expect(counts == DrinkCounts(date: date, water: 2, coffee: 1))
            counts = try await world.call(TrackerAPI.changeDrink, DrinkChange(date: date, drink: .coffee, delta: -3))
            #expect(counts == DrinkCounts(date: date, water: 2, coffee: 0))
            counts = try await world.call(TrackerAPI.changeDrink, DrinkChange(date: localDate("2026-03-11"), drink: .water, delta: -1))
            #expect(counts == DrinkCounts(date: localDate("2026-03-11"), water: 0, coffee: 0))
            #expect(try await world.call(TrackerAPI.summary, DayRequest(date: date)).water == 2)
            #expect(await world.failure(TrackerAPI.changeDrink, DrinkChange(date: date, drink: .water, delta: 0))?.field == "delta")
            #expect(try await world.call(TrackerAPI.drinks, DayRequest(date: date), user: "bea") == DrinkCounts(date: date, water: 0, coffee: 0))
        }
    }
}
