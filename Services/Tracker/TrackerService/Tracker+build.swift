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
        let host = try ServiceHost(configuration: configuration, logger: logger, databaseHealth: { database.health() })
        // The time-zone lookup happens inside requests whose clients wait about 3 s: it must give
        // up well before that and fall back (last known zone, else UTC) rather than time them out.
        let zoneLookup = ServiceClient.Options(timeout: min(configuration.callTimeout, .seconds(1)), retries: 0)
        let handlers = TrackerHandlers(
            host: host, store: store,
            catalog: ServiceClient(
                service: "catalog", endpoint: configuration.endpoints(of: .catalog).requests, options: .init(timeout: configuration.callTimeout, retries: 1)
            ),
            planner: ServiceClient(service: "planner", endpoint: configuration.endpoints(of: .planner).requests, options: zoneLookup)
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
