import Foundation
import Logging
import NotifierService
import NotifierTesting
import PlannerService
import PlannerTesting
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import TrackerService
import TrackerTesting

/// A real planner, tracker and notifier on one manual clock, the notifier subscribed to both.
struct NotifierWorld: Sendable {
    let clock: WallClock
    let planner: PlannerService
    let tracker: TrackerService
    let notifier: NotifierService
    let plannerClient: ServiceClient<Planner>
    let trackerClient: ServiceClient<Tracker>
    let notifierClient: ServiceClient<Notifier>

    var peers: [SousService: ServiceEndpoints] {
        [.planner: planner.host.boundEndpoints, .tracker: tracker.host.boundEndpoints]
    }

    /// `dataDirectory` puts the notifier's database in a file (restart tests).
    static func make(
        at start: Date, dataDirectory: String? = nil, channels: ChannelSettings = NotifierFixture.loopbackChannels()
    ) throws -> NotifierWorld {
        let clock = WallClock.manual(at: start)
        let planner = try PlannerFixture.make(clock: clock)
        let tracker = try TrackerFixture.make(peers: [.planner: planner.host.boundEndpoints], clock: clock)
        let notifier = try NotifierFixture.make(
            peers: [.planner: planner.host.boundEndpoints, .tracker: tracker.host.boundEndpoints], clock: clock, dataDirectory: dataDirectory,
            channels: channels)
        return NotifierWorld(clock: clock, planner: planner, tracker: tracker, notifier: notifier)
    }

    init(clock: WallClock, planner: PlannerService, tracker: TrackerService, notifier: NotifierService) {
        self.clock = clock
        self.planner = planner
        self.tracker = tracker
        self.notifier = notifier
        let options = ClientOptions(timeout: .seconds(30), retries: 0)
        plannerClient = ServiceClient<Planner>(endpoint: planner.host.boundEndpoints.requests, options: options)
        trackerClient = ServiceClient<Tracker>(endpoint: tracker.host.boundEndpoints.requests, options: options)
        notifierClient = ServiceClient<Notifier>(endpoint: notifier.host.boundEndpoints.requests, options: options)
    }

    /// The same planner and tracker with a new notifier instance on `dataDirectory` (a restart).
    func restartingNotifier(dataDirectory: String, channels: ChannelSettings = NotifierFixture.loopbackChannels()) throws -> NotifierWorld {
        NotifierWorld(
            clock: clock, planner: planner, tracker: tracker,
            notifier: try NotifierFixture.make(peers: peers, clock: clock, dataDirectory: dataDirectory, channels: channels))
    }

    /// Runs all three; `body` gets a listener that was receiving the notifier's reminders
    /// before the notifier started (so reminders caught up on start are seen too).
    func run<T: Sendable>(_ body: @escaping @Sendable (ReminderListener) async throws -> T) async throws -> T {
        try await runPeers { try await runNotifier(body) }
    }

    /// Runs the planner and tracker only (restart tests start and stop notifiers inside).
    func runPeers<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withRunningServices([planner.host, tracker.host]) { _ in try await body() }
    }

    /// Runs this notifier instance with a listener connected before it starts.
    func runNotifier<T: Sendable>(_ body: @escaping @Sendable (ReminderListener) async throws -> T) async throws -> T {
        try await ReminderListener.listening(to: notifier) { listener in
            try await withRunningServices([notifier.host]) { _ in try await body(listener) }
        }
    }

    // MARK: Driving it

    /// Sets the user's profile through the planner (which publishes profile.changed and activity)
    /// and waits until the notifier applied the change.
    /// Saves a profile and waits until the notifier applied both of its events: the profile,
    /// and the activity the change itself is (published after it, so a test that moved the clock
    /// on after the first could find the user's reminder missed, not sent).
    func setProfile(_ user: String, _ update: ProfileUpdate) async throws {
        try await untilNotifier(notifier, applies: [PlannerTopics.profileChanged.name, EventTopics.activity.name], of: user) {
            _ = try await plannerClient.call(PlannerAPI.updateProfile, update, user: user)
        }
    }

    /// A real user action on the planner (it publishes activity); repeated until the notifier
    /// applied it, since a fresh subscription can miss the first events (slow joiner).
    func beActive(_ user: String) async throws {
        try await untilApplied(user, topic: EventTopics.activity) {
            _ = try await plannerClient.call(PlannerAPI.getPlan, Empty(), user: user)
        }
    }

    /// The same through the tracker's event endpoint.
    func beActiveOnTracker(_ user: String) async throws {
        try await untilApplied(user, topic: EventTopics.activity) {
            _ = try await trackerClient.call(TrackerAPI.goals, DayRequest(), user: user)
        }
    }

    func logDinner(_ user: String, on date: LocalDate, kcal: Double) async throws {
        _ = try await trackerClient.call(
            TrackerAPI.addEntry,
            DiaryAdd(date: date, meal: .dinner, grams: 100, food: "Risotto", per100g: Macros(kcal: kcal, carbohydrates: 30, protein: 5, fat: 5)),
            user: user
        )
    }

    private func untilApplied<Body>(_ user: String, topic: Topic<Body>, _ action: @escaping @Sendable () async throws -> Void) async throws {
        try await untilNotifier(notifier, applies: topic, of: user, after: action)
    }

    /// Moves the clock to `instant` and waits until the scheduler handled everything due by then.
    func advance(to instant: Date) async throws {
        try await advanceClock(clock, of: notifier, to: instant)
    }

    func log(_ user: String) async throws -> [ReminderLogEntry] {
        try await notifierClient.call(NotifierAPI.list, ReminderLogRequest(), user: user).entries
    }

    func next(_ user: String) async throws -> NextReminder {
        try await notifierClient.call(NotifierAPI.next, Empty(), user: user)
    }
}

/// A SUB socket on the notifier's events collecting every reminder, connected and proven to
/// receive before the test starts.
final class ReminderListener: Sendable {
    let subscriber: EventSubscriber
    private let received = Broadcast<Reminder>()
    private let all = LockedList<Reminder>()

    private init(endpoint: String) {
        subscriber = EventSubscriber(endpoints: [endpoint], prefixes: [NotifierTopics.reminderPrefix], logger: quietLogger("listener"))
    }

    static func listening<T: Sendable>(
        to notifier: NotifierService, _ body: @escaping @Sendable (ReminderListener) async throws -> T
    ) async throws -> T {
        let listener = ReminderListener(endpoint: notifier.host.boundEndpoints.events)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await listener.subscriber.run()
                return nil
            }
            group.addTask {
                for await event in listener.subscriber.events {
                    guard let reminder = try? event.decode(Reminder.self) else { continue }
                    listener.all.append(reminder)
                    listener.received.yield(reminder)
                }
                return nil
            }
            // Probe reminders to nobody until one arrives: the subscription is then in place.
            await listener.subscriber.waitUntilSubscribed()
            var ready = false
            for _ in 0..<100 where !ready {
                let stream = listener.received.subscribe()
                notifier.host.publisher.publish(
                    NotifierTopics.reminder(for: "probe"), Reminder(user: "probe", date: LocalDate("2000-01-01")!, message: "probe", dueAt: Date()))
                ready = (try? await firstElement(of: stream, within: .seconds(2)) { $0.user == "probe" }) != nil
            }
            guard ready else { throw NotSeen(what: "the reminder subscription") }
            defer { group.cancelAll() }
            return try await body(listener)
        }
    }

    /// Reminders received so far for `user`.
    func reminders(for user: String) -> [Reminder] { all.values.filter { $0.user == user } }

    /// Waits until `user` has received `count` reminders in all.
    func waitFor(_ user: String, count: Int = 1) async throws -> [Reminder] {
        let stream = received.subscribe()
        if reminders(for: user).count >= count { return reminders(for: user) }
        do {
            _ = try await firstElement(of: stream, within: .seconds(60)) { [self] _ in reminders(for: user).count >= count }
        } catch {
            throw NotSeen(
                what: "\(count) reminders for \(user); got \(reminders(for: user).map(\.dueAt)), all: \(all.values.map { "\($0.user)@\($0.dueAt)" })")
        }
        return reminders(for: user)
    }
}

final class LockedList<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var values: [Element] { lock.withLock { items } }
}

func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

/// A temporary folder removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sous-notifier-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A bounded wait in these tests ran out.
struct NotSeen: Error, CustomStringConvertible {
    let what: String
    var description: String { "gave up waiting for \(what)" }
}

/// Repeats `action` (a call that publishes an event for `user`) until `notifier` has applied an
/// event of `topic` for that user: a fresh subscription can miss the first events (slow joiner).
func untilNotifier<Body>(
    _ notifier: NotifierService, applies topic: Topic<Body>, of user: String, after action: @escaping @Sendable () async throws -> Void
) async throws {
    try await untilNotifier(notifier, applies: [topic.name], of: user, after: action)
}

/// The same for an action that publishes several events (a profile change is also activity):
/// one action whose events of every topic in `topics` were all applied.
func untilNotifier(
    _ notifier: NotifierService, applies topics: Set<String>, of user: String, after action: @escaping @Sendable () async throws -> Void
) async throws {
    for _ in 0..<100 {
        let applied = notifier.consumer.applied.subscribe()
        try await action()
        let seen = LockedList<String>()
        let all = try? await firstElement(of: applied, within: .seconds(2)) { event in
            guard event.user == user, topics.contains(event.topic) else { return false }
            seen.append(event.topic)
            return Set(seen.values) == topics
        }
        if all != nil { return }
    }
    throw NotSeen(what: "the notifier to apply \(topics.sorted()) of \(user)")
}

/// Moves `clock` to `instant` and waits until `notifier`'s scheduler handled everything due by
/// then. Setting again is harmless (it only wakes the scheduler), so a wake-up that raced with a
/// pass in progress is simply repeated.
func advanceClock(_ clock: WallClock, of notifier: NotifierService, to instant: Date) async throws {
    for _ in 0..<40 {
        let passes = notifier.scheduler.passes.subscribe()
        clock.set(instant)
        if (try? await firstElement(of: passes, within: .milliseconds(500), where: { $0 >= instant })) != nil { return }
    }
    throw NotSeen(what: "a scheduler pass at \(instant)")
}
