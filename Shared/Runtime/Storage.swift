import Foundation
public import GRDB
public import SousSchema

/// Opens a service's SQLite database: `<directory>/<name>.sqlite` in WAL mode through a GRDB
/// pool, or an in-memory queue when no directory is configured (tests). The service's migrator
/// runs before the database is handed out.
public struct SousDatabase: Sendable {
    public let writer: any DatabaseWriter
    /// The file path, or ":memory:".
    public let path: String
    private let migrator: DatabaseMigrator

    public init(name: String, directory: String?, migrator: DatabaseMigrator) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        if let directory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
            // DatabasePool always runs in WAL mode; synchronous=NORMAL is durable in WAL except
            // against power loss, and a write is acknowledged only after its transaction commits.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            writer = try DatabasePool(path: path, configuration: configuration)
            self.path = path
        } else {
            writer = try DatabaseQueue(configuration: configuration)
            path = ":memory:"
        }
        self.migrator = migrator
        try migrator.migrate(writer)
    }

    private init(writer: any DatabaseWriter, path: String, migrator: DatabaseMigrator) {
        self.writer = writer
        self.path = path
        self.migrator = migrator
    }

    /// An in-memory copy of this database (SQLite's backup API), e.g. a test fixture copied from
    /// a template that was seeded once.
    public func inMemoryCopy() throws -> SousDatabase {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let copy = try DatabaseQueue(configuration: configuration)
        try writer.backup(to: copy)
        return SousDatabase(writer: copy, path: ":memory:", migrator: migrator)
    }

    /// A cheap check for `health`: the database answers a query. (Migrations all ran when it was
    /// opened, or opening failed.)
    public func health() -> DatabaseHealth {
        do {
            _ = try writer.read { try Int.fetchOne($0.cachedStatement(sql: "SELECT 1")) }
            return DatabaseHealth(status: "ok", path: path, detail: "\(migrator.migrations.count) migrations applied")
        } catch {
            return DatabaseHealth(status: "error", path: path, detail: "\(error)")
        }
    }
}
