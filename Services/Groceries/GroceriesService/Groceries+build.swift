import Foundation
public import Logging
public import SousRuntime
public import SousSchema
public import SousWire

/// The groceries service: its store, its host (server + publisher), the catalog's client
/// (recipes, ingredients) and the households it keeps from the planner.
public struct GroceriesService: Sendable {
    public let host: ServiceHost
    public let store: GroceriesStore
    /// Each user's household for the visible week, as the planner last announced it.
    public let households: PeerValueCache<Planner, WeekHousehold>

    /// Builds the service from `configuration`: opens the database, binds the sockets and
    /// registers the methods. `database` replaces the one `configuration` names (SQLite under the
    /// data directory, or PostgreSQL).
    public init(configuration: ServiceConfiguration, logger: Logger? = nil, database: SousDatabase? = nil) throws {
        let logger = logger ?? SousLogging.logger(for: "groceries", level: configuration.logLevel)
        let database = try database ?? Self.openDatabase(at: configuration.database, logger: logger)
        let store = GroceriesStore(database: database)
        // Adding a recipe scales it for the household: kept here, dropped on the planner's
        // changes and at the user's midnight, so an add asks only the catalog.
        let households = PeerValueCache(
            PlannerAPI.weekHousehold,
            changes: [.dropped(by: PlannerTopics.profileChanged, user: \.user), .dropped(by: PlannerTopics.planChanged, user: \.user)],
            expiry: \.validUntil, configuration: configuration, logger: logger)
        let changes = ChangeSignals()
        // Other replicas' changes wake the `groceries.wait` calls waiting here.
        let follower = ReplicaChangeFollower(
            configuration: configuration, topic: GroceriesTopics.changed, key: { $0.household }, changes: changes, logger: logger)
        let host = try ServiceHost(
            configuration: configuration, logger: logger, database: database, services: [households] + (follower.map { [$0] } ?? []))
        host.server.useHouseholds(PlannerHouseholds(of: configuration))
        let peers = GroceriesPeers(
            catalog: Peer<Catalog>(Catalog.self, of: configuration), planner: Peer<Planner>(Planner.self, of: configuration), households: households)
        self.host = host
        self.store = store
        self.households = households
        GroceriesHandlers(host: host.parts, store: store, peers: peers, changes: changes).register(on: host.server)
    }

    /// Opens (creating and migrating as needed) the groceries database at `location`.
    public static func openDatabase(at location: DatabaseLocation, logger: Logger) throws -> SousDatabase {
        try SousDatabase(name: "groceries", location: location, schema: GroceriesMigrations.schema, logger: logger)
    }
}
