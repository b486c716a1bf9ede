import Foundation
public import Logging
public import SousRuntime
import SousSchema
import SousWire

/// The groceries service: its store, its host (server + publisher) and the clients of the
/// catalog (recipes, ingredients) and the planner (people, suggested multipliers) it reads.
public struct GroceriesService: Sendable {
    public let host: ServiceHost
    public let store: GroceriesStore

    /// Builds the service from `configuration`: opens the database, binds the sockets and
    /// registers the methods. `database` replaces the one `configuration` names (SQLite under the
    /// data directory, or PostgreSQL).
    public init(configuration: ServiceConfiguration, logger: Logger? = nil, database: SousDatabase? = nil) throws {
        let logger = logger ?? SousLogging.logger(for: "groceries", level: configuration.logLevel)
        let database = try database ?? Self.openDatabase(at: configuration.database, logger: logger)
        let store = GroceriesStore(database: database)
        let host = try ServiceHost(configuration: configuration, logger: logger, database: database)
        let peers = GroceriesPeers(catalog: Peer<Catalog>(Catalog.self, of: configuration), planner: Peer<Planner>(Planner.self, of: configuration))
        self.host = host
        self.store = store
        GroceriesHandlers(host: host.parts, store: store, peers: peers).register(on: host.server)
    }

    /// Opens (creating and migrating as needed) the groceries database at `location`.
    public static func openDatabase(at location: DatabaseLocation, logger: Logger) throws -> SousDatabase {
        try SousDatabase(name: "groceries", location: location, schema: GroceriesMigrations.schema, logger: logger)
    }
}
