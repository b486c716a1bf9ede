import CatalogService
import CatalogTesting
import Foundation
import MessagePack
import PlannerService
import PlannerTesting
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService
import TrackerTesting

/// A dependency that does not answer costs a caller at most its own deadline, and the error
/// names the dependency that failed. The peers here are down but keep their full (10 s)
/// per-attempt timeouts: only the caller's deadline can cut the wait short.
@Suite(.closesItsSockets)
struct DeadlineTests {
    /// An endpoint nobody binds, with no short timeout of its own.
    static func silent(_ service: SousService) -> ServiceEndpoints {
        ServiceEndpoints(requests: "inproc://silent-\(service.rawValue)-\(UUID())", events: "inproc://silent-\(service.rawValue)-events-\(UUID())")
    }

    /// Sends `request` with a deadline `deadline` from now, and waits for the reply far longer
    /// (30 s): how soon it comes shows whether the service kept to the deadline (its down peer
    /// has a 10 s per-attempt timeout and one retry, so without deadlines it would answer after
    /// 20 s). The deadlines are long because a loaded machine may take seconds to start a call.
    static func call<Request: Encodable>(
        _ method: String, _ request: Request, at endpoint: String, deadline: Duration
    ) async throws -> (reply: Envelope.Reply, elapsed: Duration) {
        let peer = try RawPeer(connectingTo: endpoint)
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1000) + Int64(deadline.components.seconds * 1000)
        let header = RequestHeader(
            method: method, id: "d1", session: TestSessions.token(for: "ada"), deadline: milliseconds, idempotencyKey: "deadline-\(UUID())")
        let start = ContinuousClock.now
        try peer.send(Envelope.requestFrames(header, body: MessagePackEncoder().encode(request)))
        let frames = try #require(try await peer.receive(timeout: .seconds(30)), "no reply within 30 s")
        return (try Envelope.parseReply(frames), ContinuousClock.now - start)
    }

    @Test func aDownCatalogIsNamedBeforeTheCallersDeadline() async throws {
        let planner = try PlannerService(
            configuration: .inProcess(.planner, peers: [.catalog: Self.silent(.catalog), .tracker: Self.silent(.tracker)]),
            logger: quietLogger("planner"), database: PlannerService.openDatabase(directory: nil)
        )
        try await withRunningService(planner.host) { host in
            // A 10 s deadline: the planner gives the catalog 8 s of it and answers then.
            let (reply, elapsed) = try await Self.call(
                PlannerAPI.addRecipe.name, RecipeID(id: "tomato-lentil-soup"), at: host.boundEndpoints.requests, deadline: .seconds(10))
            let error = #expect(throws: ServiceError.self) { try reply.decode(PlanSelection.self) }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("the planner needs the catalog") == true, "\(String(describing: error))")
            #expect(elapsed < .seconds(17), "answered after \(elapsed), the deadline was 10 s")
        }
    }

    @Test func cookedWithTheCatalogDownBlamesTheCatalogNotTheTracker() async throws {
        let clock = WallClock.manual(at: referenceInstant)
        let catalog = try CatalogFixture.make(clock: clock)
        // The tracker's catalog is down; the planner's is up.
        let tracker = try TrackerFixture.make(peers: [.catalog: Self.silent(.catalog)], clock: clock)
        let planner = try PlannerFixture.make(peers: [.catalog: catalog.host.boundEndpoints, .tracker: tracker.host.boundEndpoints], clock: clock)
        try await withRunningServices([catalog.host, tracker.host, planner.host]) { _ in
            let client = planner.host.client(Planner.self)
            _ = try await client.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup), user: "ada")
            // A 12 s deadline: the planner gives the tracker 11 s, the tracker the catalog 10 s.
            let (reply, elapsed) = try await Self.call(
                PlannerAPI.cooked.name, SlotRef(date: localDate("2026-03-10"), slot: 1), at: planner.host.boundEndpoints.requests,
                deadline: .seconds(12))
            let cooked = try reply.decode(CookedResult.self)
            #expect(!cooked.logged)
            #expect(cooked.loggingError?.contains("the tracker needs the catalog") == true, "\(cooked.loggingError ?? "")")
            #expect(elapsed < .seconds(17), "answered after \(elapsed), the deadline was 12 s")
        }
    }
}
