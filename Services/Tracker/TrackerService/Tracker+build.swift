import Foundation
public import Logging
public import SousRuntime
public import SousSchema
public import SousWire

/// The tracker service: food diary with macros and goals, water and coffee, saved foods,
/// products by barcode (and the coeliac diary, registered by ``CoeliacHandlers``).
public struct TrackerService: Sendable {
    public let host: ServiceHost
    public let store: TrackerStore
    /// Users' saved cooking profiles (for their time zones), as the planner last announced them.
    public let profiles: PeerValueCache<Planner, CookingProfile>

    /// Builds the tracker from `configuration`: opens the database, loads the shipped products
    /// on first start (or when a newer sample ships), binds the sockets and registers methods.
    /// `database` replaces the one the configuration names. `openFoodFacts` says whether unknown
    /// barcodes are looked up online (off unless given).
    public init(
        configuration: ServiceConfiguration, logger: Logger? = nil, database: SousDatabase? = nil,
        openFoodFacts: OpenFoodFactsSettings = .disabled
    ) throws {
        let logger = logger ?? SousLogging.logger(for: "tracker", level: configuration.logLevel)
        let database = try database ?? Self.openDatabase(at: configuration.database, logger: logger)
        let store = TrackerStore(database: database)
        if let loaded = try store.loadProductSeedIfNeeded(try ProductSeed.bundled()) {
            logger.info("loaded sample products", metadata: ["products": "\(loaded)"])
        }
        // "Today" is the user's: the time zone comes from the saved profile, kept here and
        // current with the planner's changes, so dating an entry makes no round trip.
        let profiles = PeerValueCache(
            PlannerAPI.getProfile, changedBy: PlannerTopics.profileChanged, change: { ($0.user, $0.profile) }, configuration: configuration,
            logger: logger)
        let host = try ServiceHost(configuration: configuration, logger: logger, database: database, services: [profiles])
        let zones = UserTimeZones(profiles: profiles)
        host.server.useFriends(PlannerFriends(of: configuration))
        self.host = host
        self.store = store
        self.profiles = profiles
        TrackerHandlers(
            host: host.parts, store: store, catalog: Peer<Catalog>(Catalog.self, of: configuration), zones: zones,
            openFoodFacts: OpenFoodFacts(settings: openFoodFacts)
        ).register(on: host.server)
        CoeliacHandlers(host: host.parts, database: database, zones: zones).register(on: host.server)
    }

    /// Opens (creating and migrating as needed) the tracker database at `location`.
    public static func openDatabase(at location: DatabaseLocation, logger: Logger) throws -> SousDatabase {
        try SousDatabase(name: "tracker", location: location, schema: TrackerMigrations.schema, logger: logger)
    }
}
