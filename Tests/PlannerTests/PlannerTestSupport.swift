import CatalogService
import CatalogTesting
import Foundation
import Logging
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import TrackerService
import TrackerTesting

/// A planner and a seeded catalog running in-process, with a client of the planner.
struct PlannerWorld {
    let planner: PlannerService
    let client: ServiceClient<Planner>
    /// The catalog the planner reads recipes from.
    let catalog: ServiceClient<Catalog>
    /// The real tracker, when the world has one.
    let tracker: ServiceClient<Tracker>?
    let clock: WallClock

    /// Calls the planner as `user`.
    func call<Request, Response>(
        _ method: Method<Planner, Request, Response>, _ request: Request, user: String = "ada"
    ) async throws(ServiceError) -> Response {
        try await client.call(method, request, user: user)
    }
}

/// 2026-03-10 10:00 UTC: a Tuesday, after the US and before the European DST change.
let referenceInstant = ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!

/// Which tracker the planner talks to.
enum TrackerPeer {
    /// The real tracker (`TrackerFixture`), reading recipes from the same catalog.
    case real
    /// No tracker: an endpoint nobody binds (see `ServiceConfiguration.makeAbsent`).
    case absent
}

/// Runs a catalog and a planner (and, if asked, the real tracker) with a manual clock; the
/// planner's data in memory, or with `onFile` in a SQLite file of its own, as a deployment keeps
/// it (only there does its I/O thread confirm kept weeks by ``DataStamp``).
func withPlanner<T: Sendable>(
    at instant: Date = referenceInstant,
    tracker: TrackerPeer? = nil,
    onFile: Bool = false,
    _ body: (PlannerWorld) async throws -> T
) async throws -> T {
    let clock = WallClock.manual(at: instant)
    let catalog = try CatalogFixture.make(clock: clock)
    let directory = onFile ? FileManager.default.temporaryDirectory.appendingPathComponent("sous-planner-\(UUID().uuidString)").path : nil
    defer { if let directory { try? FileManager.default.removeItem(atPath: directory) } }
    var configuration = ServiceConfiguration.inProcess(
        .planner, dataDirectory: directory, peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
    // No groceries service: a cooked meal's pantry call gives up at once.
    configuration.makeAbsent(.groceries)
    var hosts = [catalog.host]
    var trackerClient: ServiceClient<Tracker>?
    switch tracker {
    case .real:
        // The tracker reads time zones from the planner: give it the planner's endpoints before either runs.
        let plannerEndpoints = ServiceEndpoints(requests: configuration.bind, events: configuration.eventsBind)
        let service = try TrackerFixture.make(peers: [.catalog: catalog.host.boundEndpoints, .planner: plannerEndpoints], clock: clock)
        configuration.peers[.tracker] = service.host.boundEndpoints
        hosts.append(service.host)
        trackerClient = service.host.client(Tracker.self)
    case .absent:
        configuration.makeAbsent(.tracker)
    case nil:
        break
    }
    let planner = try PlannerService(configuration: configuration, logger: quietLogger("planner"))
    // Generous: a bound on a hang, not a performance check.
    let client = planner.host.client(Planner.self)
    let catalogClient = catalog.host.client(Catalog.self)
    return try await withRunningServices(hosts + [planner.host]) { _ in
        try await body(PlannerWorld(planner: planner, client: client, catalog: catalogClient, tracker: trackerClient, clock: clock))
    }
}
