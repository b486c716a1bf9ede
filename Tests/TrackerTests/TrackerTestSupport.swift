import CatalogService
import CatalogTesting
import Foundation
import PlannerService
import PlannerTesting
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import TrackerService
import TrackerTesting

/// 2026-03-10 10:00 UTC, a Tuesday.
let trackerInstant = Date(timeIntervalSince1970: 1_773_136_800)

/// A typed-in food of `kcal` per 100 g with the given macros per 100 g.
func typed(
    _ food: String, _ meal: Meal, grams: Double, kcal: Double, carbohydrates: Double = 0, protein: Double = 0, fat: Double = 0, on date: LocalDate
) -> DiaryAdd {
    DiaryAdd(date: date, meal: meal, grams: grams, food: food, per100g: Macros(kcal: kcal, carbohydrates: carbohydrates, protein: protein, fat: fat))
}

/// A client of a running service, calling as "ada" unless told otherwise.
protocol CallsAsUser: Sendable {
    var client: ServiceClient<Tracker> { get }
}

extension CallsAsUser {
    @discardableResult
    func call<Request, Response>(_ method: Method<Tracker, Request, Response>, _ request: Request, user: String = "ada") async throws -> Response {
        try await client.call(method, request, user: user)
    }

    /// The error `method` answers `request` with, or nil if it succeeded.
    func failure<Request, Response>(_ method: Method<Tracker, Request, Response>, _ request: Request, user: String = "ada") async -> ServiceError? {
        do {
            _ = try await client.call(method, request, user: user)
            return nil
        } catch {
            return error
        }
    }
}

/// A running tracker and the services it reads, with a client calling as "ada" by default.
struct TrackerWorld: CallsAsUser {
    let tracker: TrackerService
    let planner: ServiceClient<Planner>?
    let client: ServiceClient<Tracker>
    let clock: WallClock
}

/// Runs a real tracker over inproc:// with an in-memory database and a manual clock at
/// ``trackerInstant``; with `planner`, a real planner for time zones; with `catalog`, the seeded catalog.
func withTracker<T: Sendable>(
    planner withPlanner: Bool = true, catalog withCatalog: Bool = false, openFoodFacts: OpenFoodFactsSettings = .disabled,
    _ body: (TrackerWorld) async throws -> T
) async throws -> T {
    let clock = WallClock.manual(at: trackerInstant)
    var hosts: [ServiceHost] = []
    var peers: [SousService: ServiceEndpoints] = [:]
    var plannerClient: ServiceClient<Planner>?
    if withCatalog {
        let catalog = try CatalogFixture.make(clock: clock)
        hosts.append(catalog.host)
        peers[.catalog] = catalog.host.boundEndpoints
    }
    if withPlanner {
        let planner = try PlannerFixture.make(peers: peers, clock: clock)
        hosts.append(planner.host)
        peers[.planner] = planner.host.boundEndpoints
        plannerClient = planner.host.client(Planner.self)
    }
    // Without a planner (absent in the fixture) the tracker must fall back to UTC.
    let tracker = try TrackerFixture.make(peers: peers, clock: clock, openFoodFacts: openFoodFacts)
    hosts.append(tracker.host)
    // Generous: a bound on a hang, not a performance check.
    let client = tracker.host.client(Tracker.self)
    return try await withRunningServices(hosts) { _ in
        try await body(TrackerWorld(tracker: tracker, planner: plannerClient, client: client, clock: clock))
    }
}
