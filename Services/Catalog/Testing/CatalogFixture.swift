public import CatalogService
import Logging
public import SousRuntime
import SousSchema
import SousTestSupport

/// A real catalog with the shipped seed data, for tests of services that read it.
public enum CatalogFixture {
    /// The shipped data files, and a database migrated and seeded from them: loaded once, and a
    /// failure to load is thrown to every test that asks instead of crashing the test process.
    private static let loaded: Result<(seed: SeedData, template: SousDatabase), any Error> = Result {
        let seed = try SeedData.bundled()
        let database = try CatalogService.openDatabase(directory: nil)
        try CatalogStore(database: database).loadSeedIfNeeded(seed)
        return (seed, database)
    }

    /// The shipped data files.
    public static var seed: SeedData {
        get throws { try loaded.get().seed }
    }

    /// A fresh in-memory copy of the seeded catalog database.
    public static func database() throws -> SousDatabase {
        try loaded.get().template.inMemoryCopy()
    }

    /// A seeded catalog bound to unique `inproc://` endpoints. Run it with `withRunningServices`.
    public static func make(peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system()) throws -> CatalogService {
        try CatalogService(
            configuration: .testing(.catalog, peers: peers, clock: clock), seed: seed, logger: quietLogger("catalog"), database: database()
        )
    }
}
