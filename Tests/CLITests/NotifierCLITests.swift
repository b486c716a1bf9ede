import Foundation
import NotifierService
import NotifierTesting
import PlannerService
import PlannerTesting
import SousCLI
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// `sous reminders next|list|watch` against a real planner and notifier on a manual clock (no
/// tracker: reminders go out without kcal, as documented).
@Suite(.closesItsSockets)
struct NotifierCLITests {
    /// 2026-01-15 08:00 UTC, 09:00 in Rome; Rome's 19:00 is 18:00 UTC.
    static let morning = ISO8601DateFormatter().date(from: "2026-01-15T08:00:00Z")!
    static let rome19 = ISO8601DateFormatter().date(from: "2026-01-15T18:00:00Z")!

    struct Services: Sendable {
        let clock: WallClock
        let planner: ServiceClient<Planner>
        let notifier: NotifierService
        var notifierClient: ServiceClient<Notifier> {
            notifier.host.client(Notifier.self)
        }
        var common: [String] { ["--notifier", notifier.host.boundEndpoints.requests, "--user", "ada"] }

        /// A planner call (activity) repeated until the notifier has applied it.
        func beActive(_ user: String) async throws {
            for _ in 0..<100 {
                let applied = notifier.consumer.applied.subscribe()
                _ = try await planner.call(PlannerAPI.getPlan, Empty(), user: user)
                if (try? await firstElement(
                    of: applied, within: .seconds(2), where: { $0.user == user && $0.topic == EventTopics.activity.name })) != nil
                {
                    return
                }
            }
            Issue.record("the notifier never saw \(user)'s activity")
        }

        /// Moves the clock and waits for the scheduler's pass.
        func advance(to instant: Date) async throws {
            for _ in 0..<40 {
                let passes = notifier.scheduler.passes.subscribe()
                clock.set(instant)
                if (try? await firstElement(of: passes, within: .milliseconds(500), where: { $0 >= instant })) != nil { return }
            }
            Issue.record("no scheduler pass at \(instant)")
        }
    }

    func withServices(_ body: @escaping @Sendable (Services) async throws -> Void) async throws {
        let clock = WallClock.manual(at: Self.morning)
        let planner = try PlannerFixture.make(clock: clock)
        let notifier = try NotifierFixture.make(peers: [.planner: planner.host.boundEndpoints], clock: clock)
        let client = planner.host.client(Planner.self)
        try await withRunningServices([planner.host, notifier.host]) { _ in
            _ = try await client.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Europe/Rome"), user: "ada")
            try await body(Services(clock: clock, planner: client, notifier: notifier))
        }
    }

    @Test func nextExplainsWhyNoneThenShowsTheScheduledOneAndListShowsTheLog() async throws {
        try await withServices { services in
            // Bob never used Sous.
            let idle = await sous(["reminders", "next", "--notifier", services.notifier.host.boundEndpoints.requests, "--user", "bob"])
            #expect(idle.code == 0, "\(idle.err)")
            #expect(idle.out == "No reminder scheduled: no activity since the last reminder: reminders come only while you use Sous.\n")

            try await services.beActive("ada")
            let next = await sous(["reminders", "next"] + services.common)
            #expect(next.out == "Next reminder: 2026-01-15 at 19:00 (Europe/Rome).\n")
            let json = await sous(["reminders", "next", "--json"] + services.common)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let parsed = try decoder.decode(NextReminder.self, from: Data(json.out.utf8))
            #expect(parsed.status == .scheduled && parsed.dueAt == Self.rome19)

            #expect(await sous(["reminders", "list"] + services.common).out == "No reminders yet.\n")
            try await services.advance(to: Self.rome19)
            let list = await sous(["reminders", "list"] + services.common)
            #expect(list.code == 0)
            let lines = list.out.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("DATE") == true)
            #expect(lines.last == "2026-01-15  sent     19:00     -  -", "no channels: nothing delivered beyond the event")
            let handled = await sous(["reminders", "next"] + services.common)
            #expect(handled.out.contains("today's reminder was already handled"))
            let bad = await sous(["reminders", "list", "--limit", "0"] + services.common)
            #expect(bad.code == 4 && bad.err.contains("field: limit"))
        }
    }

    /// Reminders reach only their own user: Bob, watching at the same time, gets nothing of
    /// Ada's (there is no way to ask for another user's; the notifier's event bus takes only
    /// Sous services).
    @Test func watchPrintsOnlyTheUsersOwnRemindersAndStopsAfterCount() async throws {
        try await withServices { services in
            try await services.beActive("ada")
            let endpoint = services.notifier.host.boundEndpoints.requests
            let adaConsole = Console(capturing: true)
            let bobConsole = Console(capturing: true)
            let ada = Task {
                await sous(["reminders", "watch", "--notifier", endpoint, "--user", "ada", "--count", "1", "--timeout", "60"], console: adaConsole)
            }
            let bob = Task {
                await sous(["reminders", "watch", "--notifier", endpoint, "--user", "bob", "--count", "1", "--timeout", "60"], console: bobConsole)
            }
            // Each watcher says so once it holds its cursor; then Ada's reminder comes due.
            try await withTimeout(.seconds(20), waitingFor: "reminders watch to start") {
                await adaConsole.waitForOutput(containing: "Waiting for your reminders")
                await bobConsole.waitForOutput(containing: "Waiting for your reminders")
            }
            try await services.advance(to: Self.rome19)
            let result = try await withTimeout(.seconds(60), waitingFor: "sous reminders watch") { await ada.value }
            #expect(result.code == 0, "\(result.err)")
            let lines = result.out.split(separator: "\n").map(String.init)
            #expect(lines == ["Waiting for your reminders from \(endpoint)…", "2026-01-15  Time to log today's meals"])
            // Ada's reminder has been sent; Bob's feed from before it is still empty.
            bob.cancel()
            // Cancelling stops Bob's long poll at once (his client's sockets close with it).
            let stopped = try await withTimeout(.seconds(20), waitingFor: "the cancelled watch to end") { await bob.value }
            #expect(stopped.code != 0 && stopped.err.contains("cancelled"), "\(stopped.err)")
            let feed = try await services.notifierClient.call(NotifierAPI.wait, ReminderWait(after: Self.morning, waitSeconds: 0), user: "bob")
            #expect(feed.reminders.isEmpty)
            #expect(!bobConsole.standardOutput.contains("Time to log"))
            let own = try await services.notifierClient.call(NotifierAPI.wait, ReminderWait(after: Self.morning, waitSeconds: 0), user: "ada")
            #expect(own.reminders.map(\.user) == ["ada"])
        }
    }

    @Test func watchGivesUpAfterTheTimeoutWithExitCode5() async throws {
        try await withServices { services in
            let endpoint = services.notifier.host.boundEndpoints.requests
            let result = await sous(["reminders", "watch", "--notifier", endpoint, "--user", "ada", "--count", "1", "--timeout", "0.2"])
            #expect(result.code == 5)
            #expect(result.err.contains("fewer than 1 reminder arrived within 0.2 s"))
        }
    }

    @Test func channelsAreAddedTestedListedAndRemovedAndTheLogShowsEachDelivery() async throws {
        try await withHTTPCatcher { http in
            try await withServices { services in
                let added = await sous(["reminders", "channels", "add", "webhook", http.url("/hook/ada"), "--label", "home"] + services.common)
                #expect(added.code == 0, "\(added.err)")
                #expect(added.out.contains("Signing secret (shown once"))
                let id = try #require(
                    added.out.split(separator: "\n").first { $0.hasPrefix("Added webhook channel ") }.map {
                        String($0.dropFirst("Added webhook channel ".count).prefix { $0 != ":" })
                    })
                let tested = await sous(["reminders", "channels", "test", id] + services.common)
                #expect(tested.code == 0, "\(tested.err)")
                #expect(tested.out == "Delivered to webhook channel \(id).\n")
                _ = await sous(["reminders", "channels", "add", "ntfy", http.url("/status/500/ntfy")] + services.common)
                let list = await sous(["reminders", "channels"] + services.common)
                let row = list.out.split(separator: "\n").first { $0.hasPrefix(id) }
                #expect(row?.contains(http.url("/hook/ada")) == true && row?.contains("home") == true && row?.hasSuffix("on") == true, "\(list.out)")
                let quiet = await sous(["reminders", "quiet", "23", "6"] + services.common)
                #expect(quiet.out.contains("Quiet hours: 23:00 to 06:00."))
                let badHour = await sous(["reminders", "quiet", "25", "6"] + services.common)
                #expect(badHour.code == 4 && badHour.err.contains("field: quietHours.from"), "\(badHour.err)")
                let badTopic = await sous(["reminders", "channels", "add", "ntfy", "no spaces please"] + services.common)
                #expect(badTopic.code == 4 && badTopic.err.contains("field: address"), "\(badTopic.err)")

                try await services.beActive("ada")
                try await services.advance(to: Self.rome19)
                _ = try await http.requests(count: 2, to: "/hook/ada")
                // The ntfy endpoint answers 500: its delivery waits for its retry.
                _ = try await http.requests(count: 1, to: "/status/500/ntfy")
                try await withTimeout(.seconds(60), waitingFor: "both deliveries' first outcomes") {
                    while true {
                        let entry = try await services.notifierClient.call(NotifierAPI.list, ReminderLogRequest(), user: "ada").entries.first
                        if let deliveries = entry?.deliveries, deliveries.count == 2, deliveries.allSatisfy({ $0.state == .sent || $0.reason != nil })
                        {
                            return
                        }
                        await services.notifier.courier.outcomeWritten()
                    }
                }
                let log = await sous(["reminders", "list"] + services.common)
                #expect(log.out.contains("ntfy pending, webhook sent 19:00"), "\(log.out)")
                #expect(log.out.contains("ntfy: the endpoint answered HTTP 500"), "\(log.out)")

                let removed = await sous(["reminders", "channels", "remove", id] + services.common)
                #expect(removed.code == 0)
                #expect(!removed.out.contains(http.url("/hook/ada")))
                let again = await sous(["reminders", "channels", "test", id] + services.common)
                #expect(again.code == 3 && again.err.contains("you have no channel"), "\(again.err)")
            }
        }
    }
}
