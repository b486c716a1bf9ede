public import CatalogService
import Logging
public import SousFetch
public import SousRuntime
import SousSchema
import SousTestSupport

/// A real catalog with the shipped seed data, for tests of services that read it.
public enum CatalogFixture {
    /// The shipped data files, and a database migrated and seeded from them: loaded once, and a
    /// failure to load is thrown to every test that asks instead of crashing the test process.
    /// On the test PostgreSQL the template is a schema of its own.
    private static let loaded: Result<(seed: SeedData, template: SousDatabase, store: CatalogStore), any Error> = Result {
        let seed = try SeedData.bundled()
        let database = try CatalogService.openDatabase(at: .testing(.catalog), logger: quietLogger("catalog"))
        let store = try CatalogStore(database: database)
        try store.loadSeedIfNeeded(seed)
        return (seed, database, store)
    }

    /// A store over the seeded template, whose ingredients in memory the copies take over
    /// (reading 8 800 ingredients per test catalog cost half a second in a debug build).
    public static var template: CatalogStore {
        get throws { try loaded.get().store }
    }

    /// What test catalogs may fetch: public addresses and loopback, where tests serve pages.
    public static let fetchPolicy = FetchPolicy(allowed: AddressRange("127.0.0.0/8").map { [$0] } ?? [])

    /// The shipped data without the 8 369 USDA foods, for tests that seed a database of their
    /// own and are about something else (migrations, files): seeding all of them takes seconds
    /// in a debug build.
    public static var curatedSeed: SeedData {
        get throws { try seed.curated }
    }

    /// The shipped data files.
    public static var seed: SeedData {
        get throws { try loaded.get().seed }
    }

    /// A seeded catalog database of its own: an in-memory copy of the template (SQLite's backup
    /// API), or on the test PostgreSQL a fresh schema with the template's rows copied in, a
    /// statement per table (seeding it from the files took two seconds).
    public static func database() throws -> SousDatabase {
        let template = try loaded.get().template
        guard let source = template.postgresLocation else { return try template.inMemoryCopy() }
        let database = try CatalogService.openDatabase(at: .testing(.catalog), logger: quietLogger("catalog"))
        try database.write { session in
            for table in ["ingredient", "recipe", "recipe_ingredient"] {
                try session.execute("INSERT INTO \(table) SELECT * FROM \(source.schema).\(table)")
            }
            try session.execute("UPDATE meta SET value = t.value FROM \(source.schema).meta t WHERE meta.key = t.key")
            // Rows copied with their ids: new recipes are numbered after them.
            try session.execute("SELECT setval(pg_get_serial_sequence('recipe', 'rid'), (SELECT MAX(rid) FROM recipe))")
        }
        return database
    }

    /// A seeded catalog bound to unique `inproc://` endpoints. Run it with `withRunningServices`.
    public static func make(
        peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system(), fetchPolicy: FetchPolicy = fetchPolicy
    ) throws -> CatalogService {
        try CatalogService(
            configuration: .testing(.catalog, peers: peers, clock: clock), seed: seed, logger: quietLogger("catalog"), database: database(),
            copyOf: template, fetchPolicy: fetchPolicy
        )
    }
}
