import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService

/// The coeliac food journal over real sockets and a real (in-memory) SQLite database.
@Suite(.closesItsSockets)
struct CoeliacJournalTests {
    @Test func entriesAreAddedListedEditedAndDeletedWithTheirPhotos() async throws {
        try await withCoeliacTracker { world in
            let photo = jpeg(count: 300_000)
            let lunch = try await world.call(
                CoeliacAPI.addEntry,
                JournalEntryDraft(
                    title: "  Lunch at Mario's ", description: "GF pizza", photo: photo, date: localDate("2026-03-01"), time: TimeOfDay("13:15")
                ))
            #expect(lunch.title == "Lunch at Mario's", "title is trimmed")
            #expect(lunch.hasPhoto && lunch.photoBytes == photo.count)
            #expect(lunch.createdAt == coeliacInstant)
            let breakfast = try await world.call(
                CoeliacAPI.addEntry, JournalEntryDraft(title: "Porridge", date: localDate("2026-03-01"), time: TimeOfDay("08:00")))
            try await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "Dinner", date: localDate("2026-03-03"), time: TimeOfDay("19:30")))

            let day = try await world.call(CoeliacAPI.listEntries, JournalQuery(date: localDate("2026-03-01")))
            #expect(day.entries.map(\.title) == ["Porridge", "Lunch at Mario's"], "ordered by time")
            #expect(day.entries.map(\.hasPhoto) == [false, true])
            let range = try await world.call(CoeliacAPI.listEntries, JournalQuery(from: localDate("2026-03-01"), to: localDate("2026-03-03")))
            #expect(range.entries.map(\.title) == ["Porridge", "Lunch at Mario's", "Dinner"])

            let detail = try await world.call(CoeliacAPI.getEntry, JournalEntryID(id: lunch.id))
            #expect(detail.photo == photo, "the stored bytes come back unchanged")
            #expect(try await world.call(CoeliacAPI.getEntry, JournalEntryID(id: breakfast.id)).photo == nil)

            world.clock.advance(by: 60)
            let edited = try await world.call(
                CoeliacAPI.editEntry, JournalEdit(id: lunch.id, description: "", removePhoto: true, date: localDate("2026-03-02")))
            #expect(edited.title == "Lunch at Mario's" && edited.description == nil && !edited.hasPhoto && edited.date == localDate("2026-03-02"))
            #expect(edited.time == TimeOfDay("13:15"), "fields left out stay")
            #expect(edited.updatedAt == coeliacInstant.addingTimeInterval(60) && edited.createdAt == coeliacInstant)
            #expect(try await world.call(CoeliacAPI.getEntry, JournalEntryID(id: lunch.id)).photo == nil)
            let replaced = try await world.call(CoeliacAPI.editEntry, JournalEdit(id: lunch.id, title: "Pizza", photo: jpeg(count: 3)))
            #expect(replaced.photoBytes == 3 && replaced.title == "Pizza")

            try await world.call(CoeliacAPI.deleteEntry, JournalEntryID(id: lunch.id))
            let after = try await world.call(CoeliacAPI.listEntries, JournalQuery(from: localDate("2026-03-01"), to: localDate("2026-03-03")))
            #expect(after.entries.map(\.title) == ["Porridge", "Dinner"])
            #expect(await world.failure(CoeliacAPI.getEntry, JournalEntryID(id: lunch.id))?.code == .notFound)
        }
    }

    @Test func photosUpToFiveMebibytesAreStoredAndLargerOnesRefusedWithoutWriting() async throws {
        try await withCoeliacTracker { world in
            let limit = 5 * 1024 * 1024
            let largest = try await world.call(
                CoeliacAPI.addEntry, JournalEntryDraft(title: "Big", photo: jpeg(count: limit), date: localDate("2026-03-01")))
            #expect(largest.photoBytes == limit)
            #expect(try await world.call(CoeliacAPI.getEntry, JournalEntryID(id: largest.id)).photo?.count == limit)

            let tooLarge = await world.failure(
                CoeliacAPI.addEntry, JournalEntryDraft(title: "Too big", photo: jpeg(count: limit + 1), date: localDate("2026-03-02")))
            #expect(tooLarge?.code == .badRequest && tooLarge?.field == "photo")
            let editTooLarge = await world.failure(CoeliacAPI.editEntry, JournalEdit(id: largest.id, title: "Renamed", photo: jpeg(count: limit + 1)))
            #expect(editTooLarge?.code == .badRequest && editTooLarge?.field == "photo")

            // No partial writes: neither the refused entry nor the refused edit's title landed.
            #expect(try await world.call(CoeliacAPI.listEntries, JournalQuery(date: localDate("2026-03-02"))).entries.isEmpty)
            #expect(try await world.call(CoeliacAPI.getEntry, JournalEntryID(id: largest.id)).entry.title == "Big")
        }
    }

    @Test func badInputNamesTheFieldAndUnknownEntriesAreNotFound() async throws {
        try await withCoeliacTracker { world in
            let badDate = await world.failure(rawAddEntry, RawDatedDraft(title: "x", date: "2026-02-30"))
            #expect(badDate?.code == .badRequest && badDate?.field == "date")
            #expect(await world.failure(CoeliacAPI.addEntry, JournalEntryDraft(title: "   "))?.field == "title")
            #expect(await world.failure(CoeliacAPI.addEntry, JournalEntryDraft(title: String(repeating: "a", count: 201)))?.field == "title")
            #expect(
                await world.failure(CoeliacAPI.addEntry, JournalEntryDraft(title: "x", description: String(repeating: "a", count: 5_001)))?.field
                    == "description")
            #expect(await world.failure(CoeliacAPI.addEntry, JournalEntryDraft(title: "x", photo: Data()))?.field == "photo")
            // Only images, judged by their first bytes: a text file is not a photo.
            let text = await world.failure(CoeliacAPI.addEntry, JournalEntryDraft(title: "x", photo: Data("just some notes\n".utf8)))
            #expect(text?.code == .badRequest && text?.field == "photo" && text?.message.contains("JPEG, PNG, HEIC or WebP") == true)
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
            let webp = Data("RIFF".utf8) + Data([0, 0, 0, 0]) + Data("WEBPVP8 ".utf8)
            let heic = Data([0, 0, 0, 24]) + Data("ftypheic".utf8)
            for image in [png, webp, heic] {
                #expect(
                    try await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "ok", photo: image, date: localDate("2026-03-03"))).hasPhoto)
            }

            let backwards = await world.failure(CoeliacAPI.listEntries, JournalQuery(from: localDate("2026-03-05"), to: localDate("2026-03-01")))
            #expect(backwards?.code == .badRequest && backwards?.field == "to")
            #expect(
                await world.failure(CoeliacAPI.listEntries, JournalQuery(from: localDate("2025-01-01"), to: localDate("2026-03-01")))?.field
                    == "to")
            #expect(
                await world.failure(CoeliacAPI.listEntries, JournalQuery(date: localDate("2026-03-01"), from: localDate("2026-03-01")))?.field
                    == "date")

            let entry = try await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "Mine", date: localDate("2026-03-01")))
            #expect(await world.failure(CoeliacAPI.editEntry, JournalEdit(id: entry.id, photo: Data([1]), removePhoto: true))?.field == "removePhoto")
            for id in [entry.id + 100, entry.id] {
                // Another user's entry is as unknown as one that never existed.
                let user = id == entry.id ? "bea" : "ada"
                #expect(await world.failure(CoeliacAPI.getEntry, JournalEntryID(id: id), user: user)?.code == .notFound)
                #expect(await world.failure(CoeliacAPI.editEntry, JournalEdit(id: id, title: "x"), user: user)?.code == .notFound)
                #expect(await world.failure(CoeliacAPI.deleteEntry, JournalEntryID(id: id), user: user)?.code == .notFound)
            }
            #expect(try await world.call(CoeliacAPI.getEntry, JournalEntryID(id: entry.id)).entry.title == "Mine")
            let anonymous = await world.failure(CoeliacAPI.listEntries, JournalQuery(), user: "")
            #expect(anonymous?.code == .unauthorized)
        }
    }

    @Test func leftOutDatesAndTimesAreNowInTheUsersTimeZone() async throws {
        try await withCoeliacTracker(timeZone: "Pacific/Auckland") { world in
            // 2026-03-01 12:00 UTC: already 2026-03-02 01:00 in Auckland (NZDT, UTC+13).
            world.clock.set(Date(timeIntervalSince1970: 1_772_366_400))
            let entry = try await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "Late snack"))
            #expect(entry.date == localDate("2026-03-02") && entry.time == TimeOfDay("01:00"))
            let today = try await world.call(CoeliacAPI.listEntries, JournalQuery())
            #expect(today.from == localDate("2026-03-02") && today.entries.map(\.id) == [entry.id])
            let predicted = try await world.call(CoeliacAPI.predict, GlutenPredictionRequest(expectsGluten: false))
            #expect(predicted.date == localDate("2026-03-02"))
            let calendar = try await world.call(CoeliacAPI.calendar, GlutenCalendarRequest())
            #expect(calendar.year == 2026 && calendar.month == 3 && calendar.days[1].status == .predicted)
        }
    }

    @Test func inputIsCheckedBeforeThePlannerIsAsked() async throws {
        try await withCoeliacTracker { world in
            #expect(await world.failure(CoeliacAPI.addEntry, JournalEntryDraft(title: " "))?.field == "title")
            #expect(world.plannerCalls.value == 0)
            _ = try await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "Snack"))
            #expect(world.plannerCalls.value == 1)
        }
    }

    @Test func withoutAPlannerTodayIsTheUTCDate() async throws {
        try await withCoeliacTracker(timeZone: nil) { world in
            #expect(await world.failure(CoeliacAPI.addEntry, JournalEntryDraft(title: " "))?.field == "title")
            let entry = try await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "Snack"))
            #expect(entry.date == localDate("2026-03-31") && entry.time == TimeOfDay("12:00"))
        }
    }

    @Test func changesPublishJournalAndBadgeEventsAndActivity() async throws {
        try await withCoeliacTracker { world in
            let host = world.tracker.host
            let subscriber = EventSubscriber(
                endpoints: [host.boundEndpoints.events],
                prefixes: [CoeliacTopics.journalChanged.name, CoeliacTopics.badgeEarned.name, EventTopics.activity.name],
                logger: host.logger
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await subscriber.run() }
                await subscriber.waitUntilSubscribed()
                // Subscriptions propagate asynchronously: keep writing until the first event arrives.
                let warmUp = Task {
                    for _ in 1...500 {
                        if Task.isCancelled { return }
                        _ = try? await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "warm-up", date: localDate("2026-01-01")))
                    }
                }
                _ = try await firstElement(of: subscriber.events, within: .seconds(10)) { $0.header.topic == CoeliacTopics.journalChanged.name }
                warmUp.cancel()
                _ = await warmUp.result

                let entry = try await world.call(CoeliacAPI.addEntry, JournalEntryDraft(title: "Soup", date: localDate("2026-03-04")), user: "bea")
                let added = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == CoeliacTopics.journalChanged.name && ((try? $0.decode(JournalEvent.self).user) == "bea")
                }
                #expect(
                    try added.decode(JournalEvent.self) == JournalEvent(user: "bea", entry: entry.id, date: localDate("2026-03-04"), change: .added)
                )
                let activity = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == EventTopics.activity.name && ((try? $0.decode(ActivityEvent.self).user) == "bea")
                }
                let body = try activity.decode(ActivityEvent.self)
                #expect(body.service == "tracker" && body.method == "journal.add" && body.time == coeliacInstant)

                for offset in 0..<3 {
                    let date = localDate("2026-03-01").adding(days: offset)
                    try await world.call(CoeliacAPI.predict, GlutenPredictionRequest(date: date, expectsGluten: false), user: "bea")
                    try await world.call(CoeliacAPI.recordResult, GlutenResultRequest(date: date, positive: false), user: "bea")
                }
                let badge = try await firstElement(of: subscriber.events, within: .seconds(10)) { $0.header.topic == CoeliacTopics.badgeEarned.name }
                #expect(try badge.decode(GlutenEvent.self).badge == GlutenBadge(streak: 3, reachedOn: localDate("2026-03-03")))
                group.cancelAll()
            }
        }
    }
}

/// Gluten-test predictions and results, over the wire, for a hand-built history.
@Suite(.closesItsSockets)
struct CoeliacGlutenTests {
    /// Records `(date, prediction, result)` days for `user`.
    static func record(_ world: CoeliacWorld, _ days: [(String, Bool?, Bool?)], user: String = "ada") async throws -> [GlutenResultRecorded] {
        var replies: [GlutenResultRecorded] = []
        for (text, prediction, result) in days {
            if let prediction {
                try await world.call(CoeliacAPI.predict, GlutenPredictionRequest(date: localDate(text), expectsGluten: prediction), user: user)
            }
            if let result {
                replies.append(
                    try await world.call(CoeliacAPI.recordResult, GlutenResultRequest(date: localDate(text), positive: result), user: user))
            }
        }
        return replies
    }

    @Test func hitRateStreaksBadgesAndCalendarForAHandBuiltHistory() async throws {
        try await withCoeliacTracker { world in
            let replies = try await Self.record(
                world,
                [
                    ("2026-02-27", true, true),  // right         streak 1
                    ("2026-02-28", false, false),  // right         streak 2
                    ("2026-03-01", false, false),  // right         streak 3: badge 3
                    ("2026-03-02", false, true),  // wrong         streak 0 (best 3)
                    ("2026-03-03", nil, false),  // no prediction: not scored, streak stays 0
                    ("2026-03-05", true, true),  // right         streak 1 (03-04 empty: no break)
                    ("2026-03-06", false, false),  // right         streak 2
                    ("2026-03-08", true, nil),  // predicted, no result yet
                ])
            #expect(replies.map(\.currentStreak) == [1, 2, 3, 0, 0, 1, 2])
            #expect(replies.map(\.newBadges.count) == [0, 0, 1, 0, 0, 0, 0])
            #expect(replies[3].day.correct == false && replies[4].day.correct == nil)

            let stats = try await world.call(CoeliacAPI.stats, Empty())
            #expect(stats.results == 7)
            #expect(stats.scored == 6)
            #expect(stats.correct == 5)
            #expect(stats.hitRate == 5.0 / 6.0)
            #expect(stats.currentStreak == 2 && stats.bestStreak == 3)
            #expect(stats.badges == [GlutenBadge(streak: 3, reachedOn: localDate("2026-03-01"))])
            #expect(stats.nextBadge == 7)

            let march = try await world.call(CoeliacAPI.calendar, GlutenCalendarRequest(year: 2026, month: 3))
            #expect(march.days.count == 31)
            #expect(
                march.days.prefix(9).map(\.status) == [
                    .negative, .positive, .negative, .nothing, .positive, .negative, .nothing, .predicted, .nothing,
                ])
            #expect(march.days[1].correct == false && march.days[0].correct == true && march.days[7].expectsGluten == true)
            let february = try await world.call(CoeliacAPI.calendar, GlutenCalendarRequest(year: 2026, month: 2))
            #expect(february.days.count == 28 && february.days.suffix(2).map(\.status) == [.positive, .negative])

            // Another user's history is their own.
            let bea = try await world.call(CoeliacAPI.stats, Empty(), user: "bea")
            #expect(bea.results == 0 && bea.hitRate == nil && bea.badges.isEmpty)
        }
    }

    @Test func aPredictionCanChangeUntilTheResultAndAResultIsRecordedOnce() async throws {
        try await withCoeliacTracker { world in
            let day = localDate("2026-03-10")
            try await world.call(CoeliacAPI.predict, GlutenPredictionRequest(date: day, expectsGluten: true))
            let changed = try await world.call(CoeliacAPI.predict, GlutenPredictionRequest(date: day, expectsGluten: false))
            #expect(changed.expectsGluten == false)
            let result = try await world.call(CoeliacAPI.recordResult, GlutenResultRequest(date: day, positive: false))
            #expect(result.day == GlutenDay(date: day, expectsGluten: false, positive: false) && result.day.correct == true)

            let late = await world.failure(CoeliacAPI.predict, GlutenPredictionRequest(date: day, expectsGluten: true))
            #expect(late?.code == .conflict && late?.field == "date")
            let again = await world.failure(CoeliacAPI.recordResult, GlutenResultRequest(date: day, positive: true))
            #expect(again?.code == .conflict)
            let stats = try await world.call(CoeliacAPI.stats, Empty())
            #expect(stats.correct == 1 && stats.scored == 1 && stats.currentStreak == 1, "the refused calls changed nothing")

            #expect(await world.failure(CoeliacAPI.calendar, GlutenCalendarRequest(year: 2026, month: 13))?.field == "month")
            #expect(await world.failure(CoeliacAPI.calendar, GlutenCalendarRequest(month: 3))?.field == "year")
            // The last month of the calendar (it used to trap past 9999-12-31) and absurd years.
            let last = try await world.call(CoeliacAPI.calendar, GlutenCalendarRequest(year: 9999, month: 12))
            #expect(last.days.count == 31 && last.days.last?.date == LocalDate("9999-12-31"))
            #expect(await world.failure(CoeliacAPI.calendar, GlutenCalendarRequest(year: 1 << 62, month: 1))?.field == "year")
        }
    }

    @Test func badgesOfThreeSevenAndThirtyAreEarnedOnceAndKept() async throws {
        try await withCoeliacTracker { world in
            var days: [(String, Bool?, Bool?)] = []
            var date = localDate("2026-01-01")
            for _ in 0..<30 {
                days.append((date.description, false, false))
                date = date.adding(days: 1)
            }
            let replies = try await Self.record(world, days)
            #expect(
                replies.flatMap(\.newBadges) == [
                    GlutenBadge(streak: 3, reachedOn: localDate("2026-01-03")),
                    GlutenBadge(streak: 7, reachedOn: localDate("2026-01-07")),
                    GlutenBadge(streak: 30, reachedOn: localDate("2026-01-30")),
                ])
            // A back-dated wrong prediction before the run breaks nothing already earned.
            _ = try await Self.record(world, [("2025-12-31", true, false)])
            let stats = try await world.call(CoeliacAPI.stats, Empty())
            #expect(stats.badges.map(\.streak) == [3, 7, 30] && stats.nextBadge == nil)
            #expect(stats.bestStreak == 30 && stats.currentStreak == 30)
        }
    }
}

/// `count` bytes that start like a JPEG (what the journal checks), the rest filler.
func jpeg(count: Int) -> Data {
    Data([0xFF, 0xD8, 0xFF].prefix(count)) + Data((0..<max(count - 3, 0)).map { UInt8($0 % 251) })
}
