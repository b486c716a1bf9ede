public import PlannerService
public import SousRuntime
import SousSchema
import SousTestSupport

/// A real planner with an empty database of its own (in memory, or a fresh PostgreSQL schema when
/// `SOUS_TEST_DATABASE_URL` is set), for tests of services that read profiles and plans. Pass
/// the catalog's endpoints in `peers` for methods that look recipes up.
public enum PlannerFixture {
    /// A planner bound to unique `inproc://` endpoints. Run it with `withRunningServices`.
    public static func make(peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system()) throws -> PlannerService {
        try PlannerService(configuration: .testing(.planner, peers: peers, clock: clock), logger: quietLogger("planner"))
    }
}
