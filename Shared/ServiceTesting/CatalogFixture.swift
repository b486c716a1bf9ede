public import CatalogService
public import Logging
public import SousRuntime
import SousSchema

/// A real catalog with the shipped seed data, for tests of services that read it.
public enum CatalogFixture {
    /// The shipped data files, loaded once.
    public static let seed: SeedData = try! SeedData.bundled()

    /// Migrated and seeded once; each service started from it gets its own in-memory copy.
    static let template: SousDatabase = {
        let database = try! CatalogService.openDatabase(directory: nil)
        try! CatalogStore(database: database).loadSeedIfNeeded(seed)
        return database
    }()

    /// A seeded catalog bound to unique `inproc://` endpoints. Run it with `withRunningServices`.
    public static func make(peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system()) throws -> CatalogService {
        try CatalogService(
            configuration: .inProcess(.catalog, peers: peers, clock: clock), seed: seed, logger: quietLogger("catalog"), database: template.inMemoryCopy()
        )
    }
}

/// A logger that only reports critical problems, so test output stays readable.
public func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: "test.\(label)")
    logger.logLevel = .critical
    return logger
}
