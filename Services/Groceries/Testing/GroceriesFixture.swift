public import GroceriesService
public import SousRuntime
import SousTestSupport

/// A groceries service with an empty database of its own (in memory, or a fresh PostgreSQL schema
/// when the tests run on PostgreSQL), for tests of services and clients that use it. Pass the
/// catalog's and the planner's bound endpoints as `peers`.
public enum GroceriesFixture {
    /// Bound to unique `inproc://` endpoints. Run it with `withRunningServices`.
    public static func make(peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system()) throws -> GroceriesService {
        try GroceriesService(configuration: .testing(.groceries, peers: peers, clock: clock), logger: quietLogger("groceries"))
    }
}
