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
/// names the dependency that failed. The peers here wait 60 s per attempt, with one retry, so
/// without deadlines an answer would take two minutes: only the caller's deadline can cut the
/// wait short. The deadlines are 30 s, so a loaded machine that takes many seconds to start a
/// request or to answer after a peer ran out still passes; the bound checked is the deadline
/// plus as much again.
@Suite(.closesItsSockets)
struct DeadlineTests {
    static let deadline = Duration.seconds(30)
    static let patientPeer = Duration.seconds(60)

    /// An endpoint nobody binds.
    static func silent(_ service: SousService) -> ServiceEndpoints {
        ServiceEndpoints(requests: "inproc://silent-\(service.rawValue)-\(UUID())", events: "inproc://silent-\(service.rawValue)-events-\(UUID())")
    }

    /// An in-process configuration whose calls to `peers` wait ``patientPeer`` per attempt.
    static func configuration(
        _ service: SousService, peers: [SousService: ServiceEndpoints], clock: WallClock = .system()
    )
        -> ServiceConfiguration
    {
        var configuration = ServiceConfiguration.inProcess(service, peers: peers, clock: clock)
        for peer in peers.keys { configuration.peerTimeouts[peer] = patientPeer }
        return configuration
    }

    /// Sends `request` with a deadline ``deadline`` from now, and waits for the reply far longer
    /// (90 s): how soon it comes shows whether the service kept to the deadline.
    static func call<Request: Encodable>(
        _ method: String, _ request: Request, at endpoint: String
    ) async throws -> (
        reply: Envelope.Reply, elapsed: Duration
    ) {
        let peer = try RawPeer(connectingTo: endpoint)
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1000) + Int64(deadline.components.seconds * 1000)
        let header = RequestHeader(
            method: method, id: "d1", session: TestSessions.token(for: "ada"), deadline: milliseconds, idempotencyKey: "deadline-\(UUID())")
        let start = ContinuousClock.now
        try peer.send(Envelope.requestFrames(header, body: MessagePackEncoder().encode(request)))
        let frames = try #require(try await peer.receive(timeout: .seconds(90)), "no reply within 90 s")
        return (try Envelope.parseReply(frames), ContinuousClock.now - start)
    }

    @Test func aDownCatalogIsNamedBeforeTheCallersDeadline() async throws {
        let planner = try PlannerService(
            configuration: Self.configuration(.planner, peers: [.catalog: Self.silent(.catalog), .tracker: Self.silent(.tracker)]),
            logger: quietLogger("planner")
        )
        try await withRunningService(planner.host) { host in
            // The planner gives the catalog 28 s of the 30 and answers then.
            let (reply, elapsed) = try await Self.call(
                PlannerAPI.addRecipe.name, RecipeID(id: "tomato-lentil-soup"), at: host.boundEndpoints.requests)
            let error = #expect(throws: ServiceError.self) { try reply.decode(PlanSelection.self) }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
            #expect(error?.message.contains("the planner needs the catalog") == true, "\(String(describing: error))")
            #expect(elapsed < Self.deadline * 2, "answered after \(elapsed), the deadline was \(Self.deadline)")
        }
    }

    @Test func cookedWithTheCatalogDownBlamesTheCatalogNotTheTracker() async throws {
        let clock = WallClock.manual(at: referenceInstant)
        let catalog = try CatalogFixture.make(clock: clock)
        // The tracker's catalog is down; the planner's is up.
        let tracker = try TrackerService(
            configuration: Self.configuration(.tracker, peers: [.catalog: Self.silent(.catalog)], clock: clock), logger: quietLogger("tracker")
        )
        let planner = try PlannerService(
            configuration: Self.configuration(
                .planner, peers: [.catalog: catalog.host.boundEndpoints, .tracker: tracker.host.boundEndpoints], clock: clock),
            logger: quietLogger("planner")
        )
        try await withRunningServices([catalog.host, tracker.host, planner.host]) { _ in
            let client = planner.host.client(Planner.self)
            _ = try await client.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup), user: "ada")
            // The planner gives the tracker 28 s, the tracker the catalog about 26 s.
            let (reply, elapsed) = try await Self.call(
                PlannerAPI.cooked.name, CookedSlot(date: localDate("2026-03-10"), slot: 1), at: planner.host.boundEndpoints.requests)
            let cooked = try reply.decode(CookedResult.self)
            #expect(!cooked.logged)
            #expect(cooked.loggingError?.contains("the tracker needs the catalog") == true, "\(cooked.loggingError ?? "")")
            #expect(elapsed < Self.deadline * 2, "answered after \(elapsed), the deadline was \(Self.deadline)")
        }
    }
}
