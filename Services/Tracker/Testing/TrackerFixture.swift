public import SousRuntime
import SousSchema
import SousTestSupport
public import TrackerService

/// A real tracker with a database of its own (in memory, or a fresh PostgreSQL schema) and the shipped sample products, for tests of
/// services that call it. Pass the catalog (recipes, ingredients) and planner (time zone) in `peers`.
public enum TrackerFixture {
    /// Bound to unique `inproc://` endpoints. Run it with `withRunningServices`.
    /// Unknown barcodes are not looked up online unless `openFoodFacts` says where.
    public static func make(
        peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system(), openFoodFacts: OpenFoodFactsSettings = .disabled
    ) throws -> TrackerService {
        try TrackerService(
            configuration: .testing(.tracker, peers: peers, clock: clock), logger: quietLogger("tracker"), openFoodFacts: openFoodFacts)
    }
}
