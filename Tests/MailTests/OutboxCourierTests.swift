import Foundation
import GRDB
import SousMail
import SousRuntime
import SousTestSupport
import Testing

/// The outbox end to end: messages queued in a transaction, delivered by the courier through a
/// real SMTP server, retried after a pause when the relay defers, given up when it refuses or
/// after a day, and never sent twice.
@Suite(.closesItsSockets)
struct OutboxCourierTests {
    static func database() throws -> SousDatabase {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: outbox") { db in for statement in Outbox.tables { try db.execute(sql: statement) } }
        return try SousDatabase(
            name: "outbox", location: .testing(.notifier),
            schema: DatabaseSchema(sqlite: migrator, postgres: [PostgresMigration("v1: outbox", Outbox.tables)]),
            logger: quietLogger("outbox"))
    }

    static func mail(to: String, _ n: Int) -> MailMessage {
        MailMessage(to: to, subject: "Reminder \(n)", text: "Log your food, \(n).", messageID: "outbox-test-\(n)-\(UUID().uuidString)")
    }

    struct World {
        let database: SousDatabase
        let courier: OutboxCourier
        let clock: WallClock

        @discardableResult
        func queue(_ message: MailMessage, user: String = "ada", dedupe: String? = nil) throws -> Bool {
            let queued = try database.write { session in
                try Outbox.enqueue(
                    channel: MailTransport.channel, recipient: message.to, user: user, payload: message, dedupe: dedupe, now: clock.now, session)
            }
            courier.wake()
            return queued
        }

        func items(_ user: String = "ada") throws -> [Outbox.Item] { try database.read { try Outbox.items(user: user, $0) } }

        /// Waits until each of `user`'s messages is sent, failed, or pending after `attempts` tries
        /// (its outcome written: no longer leased to an attempt, whose lease is 10 minutes).
        func settle(_ user: String = "ada", attempts: Int = 1, within limit: Duration = .seconds(60)) async throws -> [Outbox.Item] {
            try await withTimeout(limit, waitingFor: "the courier") {
                while true {
                    let items = try self.items(user)
                    let leasedUntil = clock.now.addingTimeInterval(600)
                    if items.allSatisfy({ $0.state != .pending || ($0.attempts >= attempts && $0.lastError != nil && $0.dueAt < leasedUntil) }) {
                        return items
                    }
                    await courier.outcomeWritten()
                    try Task.checkCancellation()
                }
            }
        }
    }

    func withCourier<T: Sendable>(
        _ catcher: MailCatcher, _ body: (World) async throws -> T
    ) async throws -> T {
        let database = try Self.database()
        defer { database.close() }
        let clock = WallClock.manual(at: Date(timeIntervalSince1970: 1_790_000_000))
        var settings = MailSettings(
            host: "localhost", port: catcher.port, security: .startTLS, sender: try MailSender("sous@example.org"),
            extraTrustRoots: catcher.certificateFile)
        // The clock stands still, so a session that ran out of time on a loaded machine would
        // never be retried: far longer than any reply takes. A stalled relay's attempt ends at it.
        settings.commandTimeout = .seconds(30)
        let courier = OutboxCourier(
            database: database, transports: [MailTransport.channel: MailTransport(settings: settings)], clock: clock, logger: quietLogger("courier"),
            concurrency: 4)
        let world = World(database: database, courier: courier, clock: clock)
        return try await withRunning(courier) { try await body(world) }
    }

    @Test func queuedMailIsDeliveredOnceAndADedupeKeyQueuesNothingTwice() async throws {
        try await withMailCatcher { catcher in
            try await withCourier(catcher) { world in
                #expect(try world.queue(Self.mail(to: "ada@example.org", 1), dedupe: "ada:2026-11-29:mail"))
                #expect(try !world.queue(Self.mail(to: "ada@example.org", 2), dedupe: "ada:2026-11-29:mail"))
                try world.queue(Self.mail(to: "ada@example.org", 3))
                let mails = try await catcher.mails(count: 2)
                #expect(Set(mails.compactMap { $0.header("Subject") }) == ["Reminder 1", "Reminder 3"])
                let items = try await world.settle()
                #expect(items.map(\.state) == [.sent, .sent] && items.allSatisfy { $0.attempts == 1 && $0.doneAt == world.clock.now })
                #expect(items.allSatisfy { $0.payload.isEmpty }, "what a message said is not kept once it has left")
            }
        }
    }

    @Test func aDeferringRelayIsTriedAgainAfterThePauseAndARefusingOneIsGivenUp() async throws {
        try await withMailCatcher(refuse: ["gone"], defer: ["busy"]) { catcher in
            try await withCourier(catcher) { world in
                try world.queue(Self.mail(to: "busy@example.org", 1))
                try world.queue(Self.mail(to: "gone@example.org", 2))
                var items = try await world.settle()
                let busy = try #require(items.first { $0.recipient == "busy@example.org" })
                let gone = try #require(items.first { $0.recipient == "gone@example.org" })
                #expect(gone.state == .failed && gone.lastError?.contains("550") == true)
                #expect(busy.state == .pending && busy.attempts == 1 && busy.lastError?.contains("451") == true)
                #expect(busy.dueAt == world.clock.now.addingTimeInterval(30), "the first pause is 30 s")
                // 30 s later, the second attempt; then the pauses double.
                world.clock.advance(by: 30)
                items = try await world.settle(attempts: 2)
                let second = try #require(items.first { $0.recipient == "busy@example.org" })
                #expect(second.attempts == 2 && second.dueAt == world.clock.now.addingTimeInterval(60))
                // A day after it was queued, it is given up with its last reason.
                world.clock.advance(by: 24 * 3600)
                items = try await world.settle(attempts: 3)
                let last = try #require(items.first { $0.recipient == "busy@example.org" })
                #expect(last.state == .failed && last.lastError?.hasPrefix("undelivered for a day") == true, "\(String(describing: last.lastError))")
                #expect(catcher.mails.isEmpty)
            }
        }
    }

    @Test func aStalledRelayHoldsOneMessageNotTheOthers() async throws {
        try await withMailCatcher(stall: ["slow"]) { catcher in
            try await withCourier(catcher) { world in
                try world.queue(Self.mail(to: "slow@example.org", 0))
                for n in 1...6 { try world.queue(Self.mail(to: "person\(n)@example.org", n)) }
                // None of the six waits for the stalled attempt to end.
                #expect(try await catcher.mails(count: 6, within: .seconds(60)).count == 6)
                let items = try await world.settle(within: .seconds(90))
                #expect(items.filter { $0.state == .sent }.count == 6)
                let slow = try #require(items.first { $0.recipient == "slow@example.org" })
                #expect(slow.state == .pending && slow.lastError?.hasPrefix("the relay did not answer") == true)
            }
        }
    }

    @Test func aMessageLeftMidAttemptIsSentWhenItsLeaseEnds() async throws {
        try await withMailCatcher { catcher in
            let database = try Self.database()
            defer { database.close() }
            let clock = WallClock.manual(at: Date(timeIntervalSince1970: 1_790_000_000))
            // A process claimed it and died before writing the outcome.
            try database.write { session in
                try Outbox.enqueue(
                    channel: MailTransport.channel, recipient: "ada@example.org", user: "ada", payload: Self.mail(to: "ada@example.org", 1),
                    now: clock.now, session)
                _ = try Outbox.claimDue(now: clock.now, limit: 10, session)
            }
            let settings = MailSettings(
                host: "localhost", port: catcher.port, security: .startTLS, sender: try MailSender("sous@example.org"),
                extraTrustRoots: catcher.certificateFile)
            let courier = OutboxCourier(
                database: database, transports: [MailTransport.channel: MailTransport(settings: settings)], clock: clock,
                logger: quietLogger("courier"))
            try await withRunning(courier) {
                let leased = try database.read { try Outbox.items(user: "ada", $0) }
                #expect(leased.first?.state == .pending && leased.first?.attempts == 1)
                clock.advance(by: 601)
                let mails = try await catcher.mails(count: 1)
                #expect(mails.count == 1)
            }
        }
    }
}

/// Runs `service` while `body` runs, then cancels it and waits for it to end.
func withRunning<T: Sendable>(_ service: OutboxCourier, _ body: () async throws -> T) async throws -> T {
    let running = Task { try await service.run() }
    defer { running.cancel() }
    let value = try await body()
    running.cancel()
    _ = await running.result
    return value
}
