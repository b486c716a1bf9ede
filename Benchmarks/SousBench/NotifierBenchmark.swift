import ArgumentParser
import Foundation
import Logging
import NotifierService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import TrackerService
import TrackerTesting
import ZeroMQ

/// The notifier at scale: a burst of reminders due in the same minute, from the due instant until
/// a subscriber has received them all; and the process's memory with many users scheduled.
struct NotifierBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifier",
        abstract: "Reminders due in the same minute: time until all are published; memory with many scheduled users.",
        discussion: "Users are scheduled through the notifier's store (its bulk path), not over the wire. Use --quick for a short debug run."
    )

    @Option(help: "Users whose reminders come due in the same minute.") var users = 100_000
    @Option(help: "Users scheduled (in the future) for the memory measurement.") var scheduled = 1_000_000
    @Flag(help: "Small numbers (2 000 due, 20 000 scheduled), for a debug build.") var quick = false
    @Flag(help: "Skip the run with a real tracker answering diary.statuses for every batch of reminders.") var noTracker = false
    @Flag(help: "Log the notifier's per-batch timings (debug level) to stderr.") var verbose = false
    @Option(help: "Folder for the databases (default: a temporary folder, removed afterwards).") var dataDir: String?

    static let dueInstant = ISO8601DateFormatter().date(from: "2026-01-15T18:00:00Z")!

    func run() async throws {
        let due = quick ? 2_000 : users
        let total = quick ? 20_000 : scheduled
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-notifier-\(UUID().uuidString)").path
        defer { if dataDir == nil { try? FileManager.default.removeItem(atPath: directory) } }

        print("\n### Notifier: \(due) reminders due in the same minute\n")
        print("| tracker | reminders | due → all published | p50 µs | p90 µs | p99 µs | reminders/s |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        try await burst(due, directory: "\(directory)/down", withTracker: false)
        if !noTracker { try await burst(due, directory: "\(directory)/up", withTracker: true) }

        try await memory(total, directory: "\(directory)/memory")
    }

    /// Schedules `count` users due at one instant, moves the clock there, and times until a SUB
    /// socket has counted every reminder.
    func burst(_ count: Int, directory: String, withTracker: Bool) async throws {
        let clock = WallClock.manual(at: Self.dueInstant.addingTimeInterval(-3600))
        var peers: [SousService: ServiceEndpoints] = [:]
        var trackerHost: ServiceHost?
        if withTracker {
            let tracker = try TrackerFixture.make(clock: clock)
            trackerHost = tracker.host
            peers[.tracker] = tracker.host.boundEndpoints
        } else {
            // Nobody listens there: the first calls time out and the rest of the pass skips the tracker.
            peers[.tracker] = ServiceEndpoints(requests: "tcp://127.0.0.1:1", events: "tcp://127.0.0.1:1")
        }
        var configuration = ServiceConfiguration.inProcess(.notifier, dataDirectory: directory, peers: peers, clock: clock)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        configuration.callTimeout = .milliseconds(200)
        let notifier = try NotifierService(
            configuration: configuration, logger: notifierLogger,
            options: NotifierOptions(startupGrace: .zero)
        )
        let profile = ReminderProfile(timeZone: "Europe/Rome", reminderHour: 19, enabled: true, fetchedAt: clock.now)
        let date = LocalDate("2026-01-15")!
        for start in stride(from: 0, to: count, by: 50_000) {
            try notifier.store.bulkSchedule(
                (start..<min(start + 50_000, count)).map { ScheduledReminder(user: "user-\($0)", date: date, dueAt: Self.dueInstant) },
                profile: profile
            )
        }

        // The event bus lets in only Sous services: the counter subscribes with the tracker's key.
        let asTracker = CurveClientSetup(
            serverKey: notifier.host.keyring.own.publicKey, keyPair: try ServiceConfiguration.inProcess(.tracker).keyring().own)
        let counter = try ReminderCounter(endpoint: notifier.host.boundEndpoints.events, curve: asTracker, expected: count)
        try counter.waitUntilReceiving(from: notifier.host.publisher)
        let passes = notifier.scheduler.passes.subscribe()
        let hosts = [notifier.host] + (trackerHost.map { [$0] } ?? [])
        let serving = Task { try await servingWhile(hosts) { try await counter.finished() } }
        // Let the scheduler settle into its sleep before the due instant comes.
        for await _ in passes { break }
        let start = DispatchTime.now().uptimeNanoseconds
        counter.start(at: start)
        clock.set(Self.dueInstant)
        let samples = try await serving.value
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let received = samples.nanoseconds.count
        print(
            "| \(withTracker ? "up (one diary.statuses per 1 000)" : "down (sent without kcal)") | \(received) of \(count) | \(String(format: "%.2f", elapsed)) s | \(format(samples.p50)) | \(format(samples.p90)) | \(format(samples.p99)) | \(Int(Double(received) / elapsed)) |"
        )
    }

    var notifierLogger: Logger {
        guard verbose else { return quietLogger("notifier") }
        var logger = Logger(label: "sous.notifier") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .debug
        return logger
    }

    /// Runs `hosts` while `body` runs, then stops them.
    func servingWhile<T: Sendable>(_ hosts: [ServiceHost], _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for host in hosts { group.addTask { try await host.run(signals: false) } }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// Schedules `count` users in the future and reads the process's memory with the notifier running.
    func memory(_ count: Int, directory: String) async throws {
        let clock = WallClock.manual(at: Self.dueInstant.addingTimeInterval(-3600))
        let before = ProcessMemory.read()
        var configuration = ServiceConfiguration.inProcess(.notifier, dataDirectory: directory, clock: clock)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let notifier = try NotifierService(
            configuration: configuration, logger: quietLogger("notifier"), options: NotifierOptions(startupGrace: .zero))
        let profile = ReminderProfile(timeZone: "Europe/Rome", reminderHour: 19, enabled: true, fetchedAt: clock.now)
        let insertStart = Date()
        for start in stride(from: 0, to: count, by: 50_000) {
            // Spread over a day of due instants so the index is realistic.
            try notifier.store.bulkSchedule(
                (start..<min(start + 50_000, count)).map { index in
                    ScheduledReminder(
                        user: "user-\(index)", date: LocalDate("2026-01-16")!,
                        dueAt: Self.dueInstant.addingTimeInterval(Double(3600 + index % 86_400)))
                }, profile: profile)
        }
        let insertSeconds = Date().timeIntervalSince(insertStart)
        let passes = notifier.scheduler.passes.subscribe()
        let after = try await servingWhile([notifier.host]) {
            for await _ in passes { break }
            var samples = Samples(name: "next due lookup (index)")
            for _ in 0..<1_000 { try samples.record { _ = try notifier.store.earliestDue() } }
            return (ProcessMemory.read(), samples, try notifier.store.scheduledCount())
        }
        print("\n### Notifier: memory with \(after.2) scheduled users\n")
        print("| measurement | value |")
        print("|---|---:|")
        print("| bulk schedule through the store | \(String(format: "%.1f", insertSeconds)) s |")
        print("| next-due lookup p50 / p99 | \(format(after.1.p50)) / \(format(after.1.p99)) µs |")
        print("| VmRSS before → with the notifier running | \(before.rss / 1024) → \(after.0.rss / 1024) MiB |")
        print("| VmHWM (peak, including the bulk insert) | \(after.0.hwm / 1024) MiB |")
        let size = ["", "-wal"].map { (try? FileManager.default.attributesOfItem(atPath: "\(directory)/notifier.sqlite\($0)")[.size] as? Int) ?? 0 }
            .reduce(0, +)
        print("| database on disk (file + WAL) | \(size / 1_048_576) MiB |")
    }
}

/// A raw SUB socket counting reminders on its own thread, with each arrival's time since the
/// due instant was set (the notifier's PUB is the only thing measured, not a subscriber library).
final class ReminderCounter: @unchecked Sendable {
    private let socket: ZMQSocket
    let expected: Int
    private let lock = NSLock()
    private var startNanoseconds: UInt64 = 0

    init(endpoint: String, curve: CurveClientSetup, expected: Int) throws {
        socket = try ZMQContext.shared.socket(.sub)
        try socket.setLinger(milliseconds: 0)
        try socket.setCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair)
        try socket.setReceiveHighWaterMark(0)
        try socket.subscribe(NotifierTopics.reminderPrefix)
        try socket.connect(endpoint)
        self.expected = expected
    }

    deinit { socket.close() }

    /// Publishes probes until one arrives: the subscription is then in place.
    func waitUntilReceiving(from publisher: EventPublisher) throws {
        let probe = Reminder(user: "probe", date: LocalDate("2000-01-01")!, message: "probe", dueAt: Date(timeIntervalSince1970: 0))
        for _ in 0..<200 {
            publisher.publish(NotifierTopics.reminder(for: "probe"), probe)
            if try socket.receive(timeout: .milliseconds(50)) != nil {
                // Drain the probes still on their way.
                while try socket.receive(timeout: .milliseconds(100)) != nil {}
                return
            }
        }
        throw ValidationError("the reminder subscription never received a probe")
    }

    func start(at nanoseconds: UInt64) { lock.withLock { startNanoseconds = nanoseconds } }

    /// Arrival offsets of the expected reminders, once all have come or 10 s passed without one.
    func finished() async throws -> Samples {
        // Blocking receives belong on a thread of their own, not on Swift's cooperative pool.
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { [self] in
                var samples = Samples(name: "reminder arrival since the due instant")
                samples.nanoseconds.reserveCapacity(expected)
                do {
                    while samples.nanoseconds.count < expected, try socket.receive(timeout: .seconds(10)) != nil {
                        let start = lock.withLock { startNanoseconds }
                        samples.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
                    }
                    continuation.resume(returning: samples)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }
}
