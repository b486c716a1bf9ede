import Foundation
import MessagePack
import NotifierService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// The notifier end to end with a real planner and tracker on inproc sockets and one manual
/// clock: activity arrives as the planner's and tracker's own events, reminders are read off
/// the notifier's PUB socket, outcomes from its delivery log.
@Suite(.closesItsSockets)
struct NotifierServiceTests {
    // 2026-01-15 is a Thursday; Rome is UTC+1 in winter, so 19:00 there is 18:00 UTC.
    static let morning = instant("2026-01-15T08:00:00Z")
    static let rome19 = instant("2026-01-15T18:00:00Z")

    @Test func anActiveUserGetsExactlyOneReminderAt19Local() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        try await world.run { listener in
            try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
            try await world.beActive("ada")
            let next = try await world.next("ada")
            #expect(next.status == .scheduled)
            #expect(next.dueAt == Self.rome19)
            #expect(next.date == LocalDate("2026-01-15"))

            try await world.advance(to: Self.rome19.addingTimeInterval(-1))
            #expect(listener.reminders(for: "ada").isEmpty, "nothing before 19:00")
            try await world.advance(to: Self.rome19)
            let reminders = try await listener.waitFor("ada")
            #expect(reminders.count == 1)
            #expect(reminders.first?.date == LocalDate("2026-01-15"))
            #expect(reminders.first?.dueAt == Self.rome19)
            #expect(reminders.first?.kcal == 0, "the tracker answered: nothing logged yet")
            #expect(reminders.first?.kcalGoal == 2000)
            #expect(reminders.first?.message.hasPrefix("Time to log today's meals") == true)

            // More use the same evening schedules tomorrow's, never a second one today.
            try await world.beActive("ada")
            try await world.advance(to: Self.rome19.addingTimeInterval(3600))
            #expect(listener.reminders(for: "ada").count == 1)
            let log = try await world.log("ada")
            #expect(log.map(\.outcome) == [.sent])
            #expect(log.first?.date == LocalDate("2026-01-15"))
            #expect(try await world.next("ada").date == LocalDate("2026-01-16"))
        }
    }

    @Test func twoUsersInDifferentZonesEachGetTheirsAtTheirOwn19() async throws {
        // 00:00 UTC: 09:00 in Tokyo (UTC+9, no DST), 01:00 in Rome.
        let world = try NotifierWorld.make(at: instant("2026-01-15T00:00:00Z"))
        try await world.run { listener in
            try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
            try await world.setProfile("kenji", ProfileUpdate(timeZone: "Asia/Tokyo"))
            try await world.beActive("ada")
            try await world.beActiveOnTracker("kenji")

            try await world.advance(to: instant("2026-01-15T10:00:00Z"))
            let kenji = try await listener.waitFor("kenji")
            #expect(kenji.map(\.dueAt) == [instant("2026-01-15T10:00:00Z")])
            #expect(listener.reminders(for: "ada").isEmpty)

            try await world.advance(to: Self.rome19)
            let ada = try await listener.waitFor("ada")
            #expect(ada.map(\.dueAt) == [Self.rome19])
            #expect(listener.reminders(for: "kenji").count == 1)
        }
    }

    @Test func activityAfter19SchedulesTomorrow() async throws {
        let world = try NotifierWorld.make(at: instant("2026-01-15T19:00:00Z"))
        try await world.run { listener in
            try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
            try await world.beActive("ada")
            let next = try await world.next("ada")
            #expect(next.date == LocalDate("2026-01-16"))
            #expect(next.dueAt == instant("2026-01-16T18:00:00Z"))
            try await world.advance(to: instant("2026-01-16T17:59:59Z"))
            #expect(listener.reminders(for: "ada").isEmpty)
            try await world.advance(to: instant("2026-01-16T18:00:00Z"))
            #expect(try await listener.waitFor("ada").map(\.date) == [LocalDate("2026-01-16")!])
        }
    }

    /// Ada in Rome, active in the morning, reminded at 19:00 there.
    func remindAdaAt19(_ world: NotifierWorld, _ listener: ReminderListener) async throws {
        try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
        try await world.beActive("ada")
        try await world.advance(to: Self.rome19)
        _ = try await listener.waitFor("ada")
    }

    @Test func anInactiveUserGetsNothingAfterTheScheduledOne() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        try await world.run { listener in
            try await remindAdaAt19(world, listener)
            #expect(try await world.next("ada").status == .handledToday)
            for day in 1...3 {
                try await world.advance(to: Self.rome19.addingTimeInterval(Double(day) * 86_400))
            }
            #expect(listener.reminders(for: "ada").count == 1)
            #expect(try await world.log("ada").count == 1)
            let next = try await world.next("ada")
            #expect(next.status == .notActive)
            #expect(next.dueAt == nil)
        }
    }

    /// Asking when the next reminder is due, or reading the log, is not activity: the notifier
    /// (which subscribes to its own replicas' events) must not schedule a reminder because it was
    /// asked about one. Its events arrive in order, so the first activity seen after asking is
    /// the export's.
    @Test func askingAboutRemindersPublishesNoActivity() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        try await world.run { listener in
            try await remindAdaAt19(world, listener)
            let host = world.notifier.host
            let subscriber = EventSubscriber(endpoints: [host.boundEndpoints.events], prefixes: [EventTopics.activity.name], logger: host.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await subscriber.run() }
                await subscriber.waitUntilSubscribed()
                // Subscriptions propagate asynchronously: export until an activity arrives.
                let warmUp = Task {
                    for _ in 1...500 where !Task.isCancelled {
                        _ = try? await world.notifierClient.call(NotifierAPI.exportArchive, Empty(), user: "warm")
                    }
                }
                _ = try await firstElement(of: subscriber.events, within: .seconds(10)) { _ in true }
                warmUp.cancel()
                _ = await warmUp.result

                #expect(try await world.next("ada").status == .handledToday)
                #expect(try await world.log("ada").count == 1)
                #expect(try await world.next("ada").status == .handledToday, "asking twice schedules nothing")
                _ = try await world.notifierClient.call(NotifierAPI.exportArchive, Empty(), user: "ada")
                let first = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    (try? $0.decode(ActivityEvent.self).user) == "ada"
                }
                #expect(try first.decode(ActivityEvent.self).method == NotifierAPI.exportArchive.name)
                group.cancelAll()
            }
        }
    }

    /// Subscribers can see an activity late or twice (a slow joiner caught up, a retried call, a
    /// second replica's copy): the morning's activity applied after the evening's reminder is
    /// already answered by it and must not schedule tomorrow's.
    @Test func activityDeliveredAfterTheReminderItPrecededSchedulesNothing() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        try await world.run { listener in
            try await remindAdaAt19(world, listener)

            let morningActivity = try Envelope.parseEvent(
                Envelope.eventFrames(
                    EventHeader(topic: EventTopics.activity.name, source: "planner", time: Self.morning),
                    body: ActivityEvent(user: "ada", time: Self.morning, service: "planner", method: "plan.get")
                ))
            #expect(await world.notifier.consumer.apply(morningActivity) == "ada")
            #expect(try await world.next("ada").status == .handledToday)
            try await world.advance(to: Self.rome19.addingTimeInterval(86_400))
            #expect(listener.reminders(for: "ada").count == 1)
            #expect(try await world.next("ada").status == .notActive)
        }
    }

    @Test func optedOutUsersGetNoneAndOptingOutCancelsAPendingOne() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        try await world.run { listener in
            try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome", remindersEnabled: false))
            try await world.beActive("ada")
            #expect(try await world.next("ada").status == .optedOut)

            try await world.setProfile("bob", ProfileUpdate(timeZone: "Europe/Rome"))
            try await world.beActive("bob")
            #expect(try await world.next("bob").status == .scheduled)
            try await world.setProfile("bob", ProfileUpdate(remindersEnabled: false))
            #expect(try await world.next("bob").status == .optedOut)

            try await world.advance(to: Self.rome19.addingTimeInterval(60))
            #expect(listener.reminders(for: "ada").isEmpty)
            #expect(listener.reminders(for: "bob").isEmpty)
            #expect(try await world.log("ada").isEmpty)
            #expect(try await world.log("bob").isEmpty)
        }
    }

    @Test func aLoggedDinnerSkipsTheReminderAndTheSkipIsRecorded() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        try await world.run { listener in
            for user in ["ada", "bob"] {
                try await world.setProfile(user, ProfileUpdate(timeZone: "Europe/Rome"))
                try await world.beActive(user)
            }
            try await world.logDinner("ada", on: LocalDate("2026-01-15")!, kcal: 640)
            // Bob logged a dinner, but for yesterday: today's reminder still goes out.
            try await world.logDinner("bob", on: LocalDate("2026-01-14")!, kcal: 500)

            try await world.advance(to: Self.rome19)
            let bob = try await listener.waitFor("bob")
            #expect(bob.count == 1)
            #expect(listener.reminders(for: "ada").isEmpty)
            let log = try await world.log("ada")
            #expect(log.map(\.outcome) == [.skipped])
            #expect(log.first?.reason == "dinner already logged")
            #expect(log.first?.kcal == 640)
            #expect(try await world.log("bob").map(\.outcome) == [.sent])
        }
    }

    @Test func aProfileChangeMovesThePendingReminderToTheNewZoneAndHour() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        try await world.run { listener in
            try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
            try await world.beActive("ada")
            #expect(try await world.next("ada").dueAt == Self.rome19)
            // Moving to New York (UTC-5) with an 18:00 reminder: 23:00 UTC the same day.
            try await world.setProfile("ada", ProfileUpdate(timeZone: "America/New_York", reminderHour: 18))
            #expect(try await world.next("ada").dueAt == instant("2026-01-15T23:00:00Z"))
            try await world.advance(to: Self.rome19)
            #expect(listener.reminders(for: "ada").isEmpty)
            try await world.advance(to: instant("2026-01-15T23:00:00Z"))
            #expect(try await listener.waitFor("ada").map(\.dueAt) == [instant("2026-01-15T23:00:00Z")])
        }
    }

    @Test func everyReminderDueInTheSameInstantGoesOutInOnePass() async throws {
        let world = try NotifierWorld.make(at: Self.morning)
        let users = (1...40).map { "user-\($0)" }
        // Scheduled through the store: the point is the scheduler's batch, not 40 activities.
        try world.notifier.store.bulkSchedule(
            users.map { ScheduledReminder(user: $0, date: LocalDate("2026-01-15")!, dueAt: Self.rome19) },
            profile: ReminderProfile(timeZone: "Europe/Rome", reminderHour: 19, enabled: true, fetchedAt: Self.morning)
        )
        try await world.run { listener in
            try await world.advance(to: Self.rome19)
            for user in users { _ = try await listener.waitFor(user) }
            #expect(try world.notifier.store.scheduledCount() == 0)
            #expect(users.allSatisfy { listener.reminders(for: $0).count == 1 })
        }
    }
}

/// Restarts on the same database file: pending reminders survive, catch-up within 2 hours, and
/// a reminder is never sent twice.
@Suite(.closesItsSockets)
struct NotifierRestartTests {
    @Test func aPendingReminderSurvivesARestartAndIsSentOnce() async throws {
        try await withTemporaryDirectory { directory in
            let first = try NotifierWorld.make(at: NotifierServiceTests.morning, dataDirectory: directory)
            try await first.runPeers {
                try await first.runNotifier { _ in
                    try await first.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                    try await first.beActive("ada")
                }
                // Down over 19:00; back 30 minutes late.
                first.clock.set(NotifierServiceTests.rome19.addingTimeInterval(30 * 60))
                let second = try first.restartingNotifier(dataDirectory: directory)
                try await second.runNotifier { listener in
                    let reminders = try await listener.waitFor("ada")
                    #expect(reminders.map(\.dueAt) == [NotifierServiceTests.rome19])
                    #expect(try await second.log("ada").map(\.outcome) == [.sent])
                }
                // A third start finds it in the log: nothing goes out again.
                let third = try second.restartingNotifier(dataDirectory: directory)
                try await third.runNotifier { listener in
                    try await third.advance(to: NotifierServiceTests.rome19.addingTimeInterval(40 * 60))
                    #expect(listener.reminders(for: "ada").isEmpty)
                    #expect(try await third.log("ada").map(\.outcome) == [.sent])
                }
            }
        }
    }

    /// Killed between recording a sent reminder and publishing it: the next start publishes it
    /// from the outbox, once; the one after publishes nothing.
    @Test func aReminderRecordedButNotPublishedIsPublishedOnTheNextStart() async throws {
        try await withTemporaryDirectory { directory in
            let world = try NotifierWorld.make(at: NotifierServiceTests.rome19, dataDirectory: directory)
            try await world.runPeers {
                // What the killed notifier left: the reminder in the log and in the outbox.
                let store = NotifierStore(
                    database: try NotifierService.openDatabase(at: .testing(.notifier, dataDirectory: directory), logger: quietLogger("killed")))
                let due = ScheduledReminder(user: "ada", date: LocalDate("2026-01-15")!, dueAt: NotifierServiceTests.rome19)
                #expect(try store.record([ReminderDecision(reminder: due, outcome: .sent, kcal: 900, kcalGoal: 2000)], at: due.dueAt).count == 1)
                store.database.close()

                let second = try world.restartingNotifier(dataDirectory: directory)
                try await second.runNotifier { listener in
                    let published = try await listener.waitFor("ada")
                    #expect(published.map(\.date) == [LocalDate("2026-01-15")!] && published.first?.kcal == 900)
                    #expect(try await second.log("ada").map(\.outcome) == [.sent])
                }
                let third = try second.restartingNotifier(dataDirectory: directory)
                let pending = try await third.runNotifier { _ in try third.notifier.store.unpublished(limit: 10) }
                #expect(pending.isEmpty, "the outbox was emptied once published")
            }
        }
    }

    @Test func aReminderThreeHoursLateOnStartIsRecordedMissedNotSent() async throws {
        try await withTemporaryDirectory { directory in
            let first = try NotifierWorld.make(at: NotifierServiceTests.morning, dataDirectory: directory)
            try await first.runPeers {
                try await first.runNotifier { _ in
                    try await first.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                    try await first.beActive("ada")
                }
                let late = NotifierServiceTests.rome19.addingTimeInterval(3 * 3600)
                first.clock.set(late)
                let second = try first.restartingNotifier(dataDirectory: directory)
                try await second.runNotifier { listener in
                    try await second.advance(to: late)
                    let log = try await second.log("ada")
                    #expect(log.map(\.outcome) == [.missed])
                    #expect(log.first?.date == LocalDate("2026-01-15"))
                    #expect(listener.reminders(for: "ada").isEmpty)
                    #expect(try await second.next("ada").status == .handledToday)
                }
            }
        }
    }
}

/// 19:00 on the wall clock on the days clocks change, next to a zone without DST.
@Suite(.closesItsSockets)
struct NotifierDaylightSavingTests {
    @Test(arguments: [
        // Last Sunday of March: Rome goes from UTC+1 to UTC+2 overnight.
        ("2026-03-28", "2026-03-28T18:00:00Z", "2026-03-29", "2026-03-29T17:00:00Z"),
        // Last Sunday of October: back from UTC+2 to UTC+1.
        ("2026-10-24", "2026-10-24T17:00:00Z", "2026-10-25", "2026-10-25T18:00:00Z"),
    ])
    func romeGetsItsReminderAt19OnTheDayClocksChange(saturday: String, saturday19: String, sunday: String, sunday19: String) async throws {
        let world = try NotifierWorld.make(at: LocalDate(saturday)!.instant(hour: 8, in: TimeZone(identifier: "UTC")!))
        try await world.run { listener in
            // Setting the profile is itself activity: both are scheduled for Saturday.
            try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
            try await world.setProfile("kenji", ProfileUpdate(timeZone: "Asia/Tokyo"))
            try await world.advance(to: instant("\(saturday)T10:00:00Z"))
            try await world.advance(to: instant(saturday19))
            _ = try await listener.waitFor("ada")
            // Active again on Saturday evening: Sunday's reminder, at Sunday's 19:00.
            try await world.beActive("ada")
            try await world.beActive("kenji")
            #expect(try await world.next("ada").dueAt == instant(sunday19))
            try await world.advance(to: instant("\(sunday)T10:00:00Z"))
            try await world.advance(to: instant(sunday19).addingTimeInterval(-60))
            #expect(listener.reminders(for: "ada").count == 1)
            try await world.advance(to: instant(sunday19))
            let ada = try await listener.waitFor("ada", count: 2)
            #expect(ada.map(\.date) == [LocalDate(saturday)!, LocalDate(sunday)!])
            #expect(ada.map(\.dueAt) == [instant(saturday19), instant(sunday19)])
            // Tokyo has no DST: 19:00 there is 10:00 UTC on both days.
            let kenji = try await listener.waitFor("kenji", count: 2)
            #expect(kenji.map(\.dueAt) == ["\(saturday)T10:00:00Z", "\(sunday)T10:00:00Z"].map(instant))
        }
    }
}
