import Foundation
public import Logging
public import SousRuntime
import SousSchema
import SousWire

/// The tracker service: food diary with macros and goals, water and coffee, saved foods,
/// products by barcode (and the coeliac diary, registered by ``CoeliacHandlers``).
public struct TrackerService: Sendable {
    public let host: ServiceHost
    public let store: TrackerStore

    /// Builds the tracker from `configuration`: opens the database, loads the shipped products
    /// on first start (or when a newer sample ships), binds the sockets and registers methods.
    /// `database` replaces the file under the data directory (tests pass an in-memory one).
    public init(configuration: ServiceConfiguration, logger: Logger? = nil, database: SousDatabase? = nil) throws {
        let logger = logger ?? SousLogging.logger(for: "tracker", level: configuration.logLevel)
        let database = try database ?? Self.openDatabase(directory: configuration.dataDirectory)
        let store = TrackerStore(database: database)
        if let loaded = try store.loadProductSeedIfNeeded(try ProductSeed.bundled()) {
            logger.info("loaded sample products", metadata: ["products": "\(loaded)"])
        }
        let host = try ServiceHost(configuration: configuration, logger: logger, database: database)
        // The time-zone lookup is optional (it falls back to the last known zone, else UTC), so
        // it takes a third of the caller's time at most; see Peer.Need.
        let handlers = TrackerHandlers(
            host: host, store: store, catalog: Peer<Catalog>(Catalog.self, of: configuration), planner: Peer<Planner>(Planner.self, of: configuration)
        )
        self.host = host
        self.store = store
        handlers.register()
        CoeliacHandlers(host: host, database: database).register()
    }

    /// Opens (creating and migrating as needed) the tracker database in `directory`, or in memory.
    public static func openDatabase(directory: String?) throws -> SousDatabase {
        try SousDatabase(name: "tracker", directory: directory, migrator: TrackerMigrations.migrator)
    }
}
