import CatalogService
import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing
import TrackerService

/// A dependency that does not answer costs a caller at most its own deadline, and the error
/// names the dependency that failed. The peers here are down but keep their full (10 s)
/// per-attempt timeouts: only the caller's deadline can cut the wait short.
struct DeadlineTests {
    /// An endpoint nobody binds, with no short timeout of its own.
    static func silent(_ service: SousService) -> ServiceEndpoints {
        ServiceEndpoints(requests: "inproc://silent-\(service.rawValue)-\(UUID())", events: "inproc://silent-\(service.rawValue)-events-\(UUID())")
    }

    @Test func aDownCatalogIsNamedBeforeTheCallersDeadline() async throws {
        let planner = try PlannerService(
            configuration: .inProcess(.planner, peers: [.catalog: Self.silent(.catalog), .tracker: Self.silent(.tracker)]),
            logger: quietLogger("planner"), database: PlannerService.openDatabase(directory: nil)
        )
        try await withRunningService(planner.host) { host in
            // One attempt of 6 s: the planner keeps a fifth (at most 1 s) to answer in, so its
            // reply arrives before the client gives up, whatever the catalog's own timeout.
            let client = ServiceClient(service: "planner", endpoint: host.boundEndpoints.requests, options: .init(timeout: .seconds(6), retries: 0))
            let error = await #expect(throws: ServiceError.self) { try await client.call(PlannerAPI.addRecipe, RecipeID(id: "tomato-lentil-soup"), user: "ada") }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("the planner needs the catalog") == true, "\(String(describing: error))")
        }
    }

    @Test func cookedWithTheCatalogDownBlamesTheCatalogNotTheTracker() async throws {
        let clock = WallClock.manual(at: referenceInstant)
        let catalog = try CatalogFixture.make(clock: clock)
        // The tracker's catalog is down; the planner's is up.
        let tracker = try TrackerFixture.make(peers: [.catalog: Self.silent(.catalog)], clock: clock)
        let planner = try PlannerFixture.make(peers: [.catalog: catalog.host.boundEndpoints, .tracker: tracker.host.boundEndpoints], clock: clock)
        try await withRunningServices([catalog.host, tracker.host, planner.host]) { _ in
            let client = ServiceClient(service: "planner", endpoint: planner.host.boundEndpoints.requests, options: .init(timeout: .seconds(8), retries: 0))
            _ = try await client.call(PlannerAPI.putSlot, SlotAssignment(date: date("2026-03-10"), slot: 1, recipe: soup), user: "ada")
            let cooked = try await client.call(PlannerAPI.cooked, SlotRef(date: date("2026-03-10"), slot: 1), user: "ada")
            #expect(!cooked.logged)
            #expect(cooked.loggingError?.contains("the tracker needs the catalog") == true, "\(cooked.loggingError ?? "")")
        }
    }
}
