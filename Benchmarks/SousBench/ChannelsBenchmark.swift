import ArgumentParser
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NotifierService
import NotifierTesting
import SousCrypto
import SousFetch
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Synchronization

/// Reminders delivered to channels at scale: many users due at 19:00, one channel each,
/// against HTTP endpoints on loopback (a server of their own in this process); from the due
/// instant until every endpoint that answers has received its delivery. Then the same with a
/// share of the endpoints on a server that never answers.
struct ChannelsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract:
            "100 000 reminders due at 19:00 delivered to webhooks, ntfy topics and Web Push endpoints on loopback; then with 10 % of webhooks never answering.",
        discussion: "Users and channels are written through the notifier's store (its bulk paths). Use --quick for a short debug run."
    )

    @Option(help: "Users due at the same instant, one channel each.") var users = 100_000
    @Option(help: "Per cent of the webhook endpoints that never answer, in the last run.") var hanging = 10
    @Option(help: "One attempt's bound in seconds (the notifier's default is 15).") var timeout = 15
    @Option(help: "Seconds an attempt holds its place among those started (the notifier's default is 2; the timeout: never gives it back).")
    var patience = 2
    @Option(help: "Runs: webhook, ntfy, push, hanging (comma-separated).") var runs = "webhook,ntfy,push,hanging"
    @Flag(help: "5 000 users, for a debug build.") var quick = false

    static let dueInstant = ISO8601DateFormatter().date(from: "2026-01-15T18:00:00Z")!

    func run() async throws {
        let count = quick ? 5_000 : users
        print("\n### Channels: \(count) reminders due at 19:00, one channel each, endpoints on loopback\n")
        print("| channel | endpoints answering | delivered | due → last delivered | p50 delay | p99 delay | deliveries/s | peak RSS |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name in runs.split(separator: ",").map(String.init) {
            switch name {
            case "webhook": try await deliver(count, kind: .webhook, hangingPercent: 0)
            case "ntfy": try await deliver(count, kind: .ntfy, hangingPercent: 0)
            case "push": try await deliver(count, kind: .push, hangingPercent: 0)
            case "hanging": try await deliver(count, kind: .webhook, hangingPercent: hanging)
            default: throw ValidationError("unknown run \(name)")
            }
        }
    }

    func deliver(_ count: Int, kind: ReminderChannelKind, hangingPercent: Int) async throws {
        let arrivals = Arrivals()
        let answering = Router()
        for path in ["/hook/:n", "/ntfy/:n", "/push/:n"] {
            answering.post(RouterPath(path)) { _, _ -> HTTPResponse.Status in
                arrivals.record()
                return path.hasPrefix("/push") ? .created : .ok
            }
        }
        let hangingEvery = hangingPercent > 0 ? 100 / hangingPercent : 0
        let expected = hangingEvery > 0 ? count - (count + hangingEvery - 1) / hangingEvery : count
        try await withLocalWebServer(answering) { port in
            let silent = Router()
            silent.post("/hook/:n") { _, _ -> HTTPResponse.Status in
                // Never answers: the notifier's attempt runs into its own timeout.
                try await Task.sleep(for: .seconds(Int64(timeout + 5)))
                return .ok
            }
            try await withLocalWebServer(silent) { silentPort in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-channels-\(UUID().uuidString)").path
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let clock = WallClock.manual(at: Self.dueInstant.addingTimeInterval(-3600))
                var configuration = ServiceConfiguration.inProcess(
                    .notifier, dataDirectory: directory,
                    peers: [.tracker: ServiceEndpoints(requests: "tcp://127.0.0.1:1", events: "tcp://127.0.0.1:1")], clock: clock)
                configuration.bind = "tcp://127.0.0.1:*"
                configuration.eventsBind = "tcp://127.0.0.1:*"
                configuration.callTimeout = .milliseconds(200)
                let channels = ChannelSettings(
                    fetch: FetchPolicy(allowed: [AddressRange("127.0.0.0/8")!], timeout: .seconds(Int64(timeout))),
                    patience: .seconds(Int64(patience)),
                    timeout: .seconds(Int64(timeout)))
                let notifier = try NotifierService(
                    configuration: configuration, logger: quietLogger("notifier"), options: NotifierOptions(startupGrace: .zero), channels: channels)
                let browser = P256.KeyAgreement.PrivateKey()
                let p256dh = Base64URL.encode([UInt8](browser.publicKey.x963Representation))
                let auth = Base64URL.encode(Sodium.randomBytes(16))
                let profile = ReminderProfile(timeZone: "Europe/Rome", reminderHour: 19, enabled: true, fetchedAt: clock.now)
                let date = LocalDate("2026-01-15")!
                for start in stride(from: 0, to: count, by: 50_000) {
                    let range = start..<min(start + 50_000, count)
                    try notifier.store.bulkSchedule(
                        range.map { ScheduledReminder(user: "user-\($0)", date: date, dueAt: Self.dueInstant) }, profile: profile)
                    try notifier.store.bulkAddChannels(
                        range.map { index in
                            let silentOne = hangingEvery > 0 && index % hangingEvery == 0
                            let path = "/\(kind == .webhook ? "hook" : kind.rawValue)/\(index)"
                            return NotifierStore.BulkChannel(
                                user: "user-\(index)", kind: kind, address: "http://127.0.0.1:\(silentOne ? silentPort : port)\(path)",
                                p256dh: kind == .push ? p256dh : nil, auth: kind == .push ? auth : nil)
                        }, now: clock.now)
                }
                let before = ProcessMemory.read()
                let passes = notifier.scheduler.passes.subscribe()
                let serving = Task { try await withRunningServices([notifier.host]) { _ in try await arrivals.all(expected) } }
                for await _ in passes { break }
                arrivals.start()
                clock.set(Self.dueInstant)
                let delays = try await serving.value
                if delays.count < expected {
                    for (outcome, count) in try notifier.store.deliveryCounts().sorted(by: { $0.value > $1.value }).prefix(5) {
                        print("<!-- \(count) × \(outcome) -->")
                    }
                }
                let elapsed = Double(delays.last ?? 0) / 1e9
                let peak = ProcessMemory.read()
                var samples = Samples(name: "delivery delay")
                samples.nanoseconds = delays
                let label = hangingPercent > 0 ? "\(kind.rawValue), \(hangingPercent) % never answer" : kind.rawValue
                print(
                    "| \(label) | \(expected) of \(count) | \(delays.count) | \(String(format: "%.1f", elapsed)) s | \(String(format: "%.2f", samples.p50 / 1e6)) s | \(String(format: "%.2f", samples.p99 / 1e6)) s | \(Int(Double(delays.count) / max(elapsed, 0.001))) | \(before.rss / 1024) → \(peak.hwm / 1024) MiB |"
                )
            }
        }
    }
}

/// Arrival times at the answering endpoints, since the due instant was set.
private final class Arrivals: Sendable {
    private let state = Mutex<(start: UInt64, delays: [UInt64])>((0, []))
    private let arrival = Wakeup()

    func start() { state.withLock { $0.start = DispatchTime.now().uptimeNanoseconds } }

    func record() {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { $0.delays.append(now - $0.start) }
        arrival.signal()
    }

    /// Every delay once `count` have arrived, or what arrived when none came for 60 s.
    func all(_ count: Int) async throws -> [UInt64] {
        while true {
            let delays = state.withLock { $0.delays }
            if delays.count >= count { return delays.sorted() }
            do {
                try await withTimeout(.seconds(60), waitingFor: "a delivery") { [self] in await arrival.wait() }
            } catch is TestTimeout {
                return delays.sorted()
            }
        }
    }
}
