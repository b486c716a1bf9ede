import Foundation
import NotifierService
import NotifierTesting
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Two notifier replicas on one PostgreSQL schema, as a deployment runs them: each due reminder is
/// claimed by one replica and sent once, and a batch a dead replica claimed is taken over when its
/// claim runs out.
@Suite(.closesItsSockets, .enabled(if: TestDatabase.url != nil, "replicas share a PostgreSQL schema (SOUS_TEST_DATABASE_URL)"))
struct NotifierReplicaTests {
    static let morning = instant("2026-01-15T08:00:00Z")
    static let rome19 = instant("2026-01-15T18:00:00Z")

    @Test func twoReplicasSendEachDueReminderExactlyOnce() async throws {
        try await withTemporaryDirectory { directory in
            let world = try NotifierWorld.make(at: Self.morning, dataDirectory: directory)
            // Small batches, so both replicas take some of the twelve.
            let second = try NotifierFixture.make(
                peers: world.peers, clock: world.clock, dataDirectory: directory, options: NotifierOptions(batchSize: 2, startupGrace: .zero))
            let users = (1...12).map { "user\($0)" }
            try await world.run { first in
                try await ReminderListener.listening(to: second) { other in
                    try await withRunningServices([second.host]) { _ in
                        for user in users {
                            try await world.setProfile(user, ProfileUpdate(timeZone: "Europe/Rome"))
                            try await world.beActive(user)
                        }
                        try await advanceClock(world.clock, of: world.notifier, to: Self.rome19)
                        try await advanceClock(world.clock, of: second, to: Self.rome19)
                        for user in users {
                            let log = try await world.log(user)
                            #expect(log.map(\.outcome) == [.sent], "\(user)")
                        }
                        // Published once in all: by one replica or the other, never both.
                        let published = users.map { first.reminders(for: $0).count + other.reminders(for: $0).count }
                        #expect(published == Array(repeating: 1, count: users.count))
                    }
                }
            }
        }
    }

    @Test func aBatchClaimedByAReplicaThatDiedIsSentByAnotherWhenTheClaimRunsOut() async throws {
        try await withTemporaryDirectory { directory in
            let world = try NotifierWorld.make(at: Self.morning, dataDirectory: directory)
            // What a replica that dies mid-batch leaves: its claim on the schedule, nothing logged.
            let dead = NotifierStore(
                database: try NotifierService.openDatabase(at: .testing(.notifier, dataDirectory: directory), logger: quietLogger("dead")))
            let lease = NotifierOptions().claimLease
            try await world.run { listener in
                try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                try await world.beActive("ada")
                let claimed = try dead.claimDue(through: Self.rome19, limit: 10, until: Self.rome19.addingTimeInterval(lease))
                #expect(claimed.map(\.user) == ["ada"])

                try await world.advance(to: Self.rome19)
                #expect(listener.reminders(for: "ada").isEmpty, "claimed by the other replica")
                #expect(try await world.log("ada").isEmpty)

                try await world.advance(to: Self.rome19.addingTimeInterval(lease))
                let reminders = try await listener.waitFor("ada")
                #expect(reminders.map(\.dueAt) == [Self.rome19])
                #expect(try await world.log("ada").map(\.outcome) == [.sent])
            }
            dead.database.close()
        }
    }
}

extension NotifierReplicaTests {
    /// A user waiting on one replica hears of the reminder another replica sent at once (its
    /// event), not when the wait runs out (25 s here; the bound checked is 20 s).
    @Test func aWaitOnOneReplicaEndsWhenAnotherSendsTheReminder() async throws {
        try await withTemporaryDirectory { directory in
            let world = try NotifierWorld.make(at: Self.morning, dataDirectory: directory)
            var peers = world.peers
            peers[.notifier] = world.notifier.host.boundEndpoints
            // Its scheduler waits an hour before its first pass: only the other replica sends.
            let answering = try NotifierFixture.make(
                peers: peers, clock: world.clock, dataDirectory: directory, options: NotifierOptions(startupGrace: .seconds(3600)))
            try await world.run { _ in
                try await withRunningServices([answering.host]) { _ in
                    try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                    try await world.beActive("ada")
                    let client = ServiceClient<Notifier>(
                        endpoint: answering.host.boundEndpoints.requests, options: .init(timeout: .seconds(60), retries: 0))
                    let cursor = try await client.call(NotifierAPI.wait, ReminderWait(), user: "ada").cursor
                    // Its subscription to the other replica's events is in place once a probe
                    // reminder published there reaches it.
                    try await untilNotifier(answering, applies: NotifierTopics.reminder(for: "probe"), of: "probe") {
                        world.notifier.host.publisher.publish(
                            NotifierTopics.reminder(for: "probe"),
                            Reminder(user: "probe", date: LocalDate("2000-01-01")!, message: "probe", dueAt: Date()))
                    }
                    let waiting = Task {
                        let started = ContinuousClock.now
                        let feed = try await client.call(NotifierAPI.wait, ReminderWait(after: cursor, waitSeconds: 25), user: "ada")
                        return (feed, ContinuousClock.now - started)
                    }
                    try await world.advance(to: Self.rome19)
                    let (feed, waited) = try await waiting.value
                    #expect(feed.reminders.map(\.dueAt) == [Self.rome19])
                    #expect(waited < .seconds(20), "woken by the other replica's reminder, not by the end of the wait")
                }
            }
        }
    }
}
