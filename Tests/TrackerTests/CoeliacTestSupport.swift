import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Synchronization
import TrackerService
import TrackerTesting

/// 2026-03-31 12:00 UTC: already 2026-04-01 01:00 in Auckland (NZDT, UTC+13). After every day
/// the tests record in March (nothing is recorded after the user's today).
let coeliacInstant = Date(timeIntervalSince1970: 1_774_958_400)

/// A running tracker (with a stand-in planner answering `profile.get`) and a client.
struct CoeliacWorld: CallsAsUser {
    let tracker: TrackerService
    let client: ServiceClient<Tracker>
    let clock: WallClock
    /// How often the stand-in planner was asked for a profile.
    let plannerCalls: PlannerCalls
}

final class PlannerCalls: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Runs a real tracker over inproc:// with an in-memory database and a manual clock at
/// ``coeliacInstant``. `timeZone` is what the stand-in planner's profiles say; nil runs with no
/// planner at all (the tracker must fall back to UTC).
func withCoeliacTracker<T: Sendable>(timeZone: String? = "UTC", _ body: (CoeliacWorld) async throws -> T) async throws -> T {
    let clock = WallClock.manual(at: coeliacInstant)
    var hosts: [ServiceHost] = []
    var peers: [SousService: ServiceEndpoints] = [:]
    let plannerCalls = PlannerCalls()
    if let timeZone {
        // Only `profile.get` is needed, and it is part of the fixed cross-service contract.
        let planner = try ServiceHost(
            configuration: .inProcess(.planner, clock: clock), logger: quietLogger("planner"), databaseHealth: { DatabaseHealth(status: "ok") }
        )
        planner.server.register(PlannerAPI.getProfile) { _, _ in
            plannerCalls.add()
            return CookingProfile(timeZone: timeZone)
        }
        hosts.append(planner)
        peers[.planner] = planner.boundEndpoints
    }
    // Without a planner (absent in the fixture) the tracker must fall back to UTC.
    let tracker = try TrackerFixture.make(peers: peers, clock: clock)
    hosts.append(tracker.host)
    // Generous: a bound on a hang, not a performance check.
    let client = tracker.host.client(Tracker.self)
    return try await withRunningServices(hosts) { _ in
        try await body(CoeliacWorld(tracker: tracker, client: client, clock: clock, plannerCalls: plannerCalls))
    }
}

/// A request with a raw string where a date belongs, to send what a typed client cannot.
struct RawDatedDraft: Codable, Sendable {
    var title: String
    var date: String
}

let rawAddEntry = Method<Tracker, RawDatedDraft, JournalEntry>.write("journal.add", .public)
