import Foundation
public import GRDB
import GRDBSQLite
public import Logging
import MessagePack
public import SousWire

/// Where a service keeps its data: a SQLite file (the default: one machine, nothing to run
/// beside Sous), or a PostgreSQL database shared by several replicas (docs/SCALING.md).
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// `<directory>/<name>.sqlite`; nil keeps it in memory (tests).
    case sqlite(directory: String?)
    case postgres(PostgresLocation)

    public var description: String {
        switch self {
        case .sqlite(let directory): directory.map { "SQLite in \($0)" } ?? "SQLite in memory"
        case .postgres(let location): "\(location)"
        }
    }
}

/// A service's schema on both engines: GRDB's migrator for SQLite, and the same tables as
/// PostgreSQL migrations. Each list is versioned and frozen once shipped.
public struct DatabaseSchema: Sendable {
    public let sqlite: DatabaseMigrator
    public let postgres: [PostgresMigration]

    public init(sqlite: DatabaseMigrator, postgres: [PostgresMigration]) {
        self.sqlite = sqlite
        self.postgres = postgres
    }
}

/// A service's database: `<directory>/<name>.sqlite` in WAL mode through a GRDB pool, an
/// in-memory SQLite queue when no directory is configured (tests), or PostgreSQL
/// (``PostgresDatabase``). The service's migrations run before the database is handed out.
///
/// Stores read and write through ``read(_:)`` and ``write(_:)``, with SQL written once for both
/// engines (``SQLSession``), never the engine directly:
/// - every statement has a time limit (``queryTimeLimit``): a query that runs past it is
///   interrupted and the request answered `timeout`, so no reader is held for long;
/// - a write made for a request that carries an idempotency key commits with the key: the
///   write whose value is the reply says so (``write(idempotent:_:)``) and the reply is stored
///   with it; any other write of that request marks the key applied. A retry after any crash,
///   on any replica, then replays the reply or is refused, and never writes twice.
public struct SousDatabase: Sendable {
    enum Backend: Sendable {
        case sqlite(any DatabaseWriter)
        case postgres(PostgresDatabase)
    }

    let backend: Backend
    /// The file path, ":memory:", or the PostgreSQL location (without its password).
    public let path: String
    private let migrationCount: Int
    /// The longest one statement may run before it is interrupted.
    public static let queryTimeLimit = Duration.seconds(2)
    /// Concurrent readers: more than the request threads of all lanes together, so no reader is
    /// ever waited for (see ``RPCServer/Options``).
    public static let readerCount = 12
    /// Connections to PostgreSQL per replica: each request thread holds one for a transaction at
    /// most; more would only wait on the server (and 5 services × replicas share its limit).
    public static let postgresConnections = 8

    /// Creates the database file readable and writable by its owner only (0600), like the key
    /// files, or narrows an existing one to that. SQLite gives the `-wal` and `-shm` files it
    /// creates the database file's mode.
    static func ownerOnly(_ path: String) throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: path) {
            guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        for file in [path, path + "-wal", path + "-shm"] where manager.fileExists(atPath: file) {
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
    }

    public init(name: String, directory: String?, migrator: DatabaseMigrator) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.maximumReaderCount = Self.readerCount
        configuration.prepareDatabase { db in QueryClock.install(on: db) }
        let writer: any DatabaseWriter
        if let directory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
            try Self.ownerOnly(path)
            let pool = try DatabasePool(path: path, configuration: configuration)
            // A pool runs in WAL mode, and GRDB sets its writer to synchronous=NORMAL, which can
            // roll back acknowledged writes on a power cut. FULL syncs the WAL on every commit:
            // a write is acknowledged only once it is durable.
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            // What is deleted is overwritten with zeros, not left in free space: an erased
            // account's rows are gone from the file once the WAL is checkpointed.
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA secure_delete = ON") }
            writer = pool
            self.path = path
        } else {
            writer = try DatabaseQueue(configuration: configuration)
            path = ":memory:"
        }
        try migrator.migrate(writer)
        try writer.write { db in try IdempotencyLedgerTable.create(SQLiteSession(db: db)) }
        backend = .sqlite(writer)
        migrationCount = migrator.migrations.count
    }

    /// Opens the database at `location` and brings its schema up to date. On PostgreSQL a wrong
    /// URL, password or unreachable server fails here (`unavailable`, naming the database),
    /// so the service stops at start with one clear line.
    public init(name: String, location: DatabaseLocation, schema: DatabaseSchema, logger: Logger) throws {
        switch location {
        case .sqlite(let directory):
            try self.init(name: name, directory: directory, migrator: schema.sqlite)
        case .postgres(let postgresLocation):
            let database = PostgresDatabase(name: name, location: postgresLocation, capacity: Self.postgresConnections, logger: logger)
            let all = IdempotencyLedgerTable.postgresMigrations + schema.postgres
            do {
                _ = try database.migrate(all)
            } catch {
                database.close()
                throw error
            }
            self.init(backend: .postgres(database), path: "\(postgresLocation)", migrationCount: all.count)
        }
    }

    private init(backend: Backend, path: String, migrationCount: Int) {
        self.backend = backend
        self.path = path
        self.migrationCount = migrationCount
    }

    public var engine: SQLEngine {
        switch backend {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    /// Where the data is when it is in PostgreSQL.
    public var postgresLocation: PostgresLocation? {
        if case .postgres(let database) = backend { database.location } else { nil }
    }

    /// GRDB's writer when the data is in SQLite (tests and tools that look below the stores).
    public var sqliteWriter: (any DatabaseWriter)? {
        if case .sqlite(let writer) = backend { writer } else { nil }
    }

    /// An in-memory copy of this SQLite database (SQLite's backup API), e.g. a test fixture
    /// copied from a template that was seeded once.
    public func inMemoryCopy() throws -> SousDatabase {
        guard case .sqlite(let writer) = backend else { throw ServiceError.internal("only a SQLite database can be copied into memory") }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in QueryClock.install(on: db) }
        let copy = try DatabaseQueue(configuration: configuration)
        try writer.backup(to: copy)
        return SousDatabase(backend: .sqlite(copy), path: ":memory:", migrationCount: migrationCount)
    }

    /// Closes PostgreSQL's connections (SQLite's close with the last reference).
    public func close() {
        if case .postgres(let database) = backend { database.close() }
    }

    // MARK: Reads and writes

    /// Runs `body` in a read transaction (one snapshot), each statement within ``queryTimeLimit``:
    /// on SQLite one of the pool's readers.
    public func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        switch backend {
        case .sqlite(let writer):
            return try writer.read { db in try QueryClock.timed(db) { try body(SQLiteSession(db: db)) } }
        case .postgres(let database): return try database.read { try body($0) }
        }
    }

    /// Runs `body` in one transaction begun with `begin`, with `begin` and `COMMIT` kept prepared
    /// (GRDB prepares both anew for every transaction), neither of them ever interrupted: a
    /// transaction left open on a connection stops the process (GRDB's precondition).
    private static func transaction<T>(_ db: Database, _ begin: String, _ body: () throws -> T) throws -> T {
        let value: T
        do {
            try QueryClock.unlimited(db) { try db.cachedStatement(sql: begin).execute() }
            value = try body()
            try QueryClock.unlimited(db) { try db.cachedStatement(sql: "COMMIT TRANSACTION").execute() }
        } catch {
            QueryClock.unlimited(db) {
                // An interrupted statement may have ended the transaction already.
                guard sqlite3_get_autocommit(db.sqliteConnection) == 0 else { return }
                try? db.rollback()
                if sqlite3_get_autocommit(db.sqliteConnection) == 0 { _ = sqlite3_exec(db.sqliteConnection, "ROLLBACK", nil, nil, nil) }
            }
            throw error
        }
        return value
    }

    /// Runs `body` in a write transaction, each statement within ``queryTimeLimit``. For a
    /// request with an idempotency key it also marks the key applied, in the same transaction,
    /// unless the request's reply is stored already (``write(idempotent:_:)``). On PostgreSQL
    /// `body` may run more than once (a transaction another replica's write conflicted with is
    /// run again): it only touches the database.
    @discardableResult
    public func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try write(keyedBy: IdempotencyScope.current, storing: nil, body)
    }

    /// ``write(_:)`` for the write whose value is the reply of a keyed request (`scope`, the
    /// request context's ``RequestContext/idempotency``; nil for a request without a key): the
    /// reply is stored with the key in the same transaction, so a retry after a crash between
    /// the commit and the reply is answered this reply. `Reply` must be the method's reply type.
    @discardableResult
    public func write<Reply: Encodable>(idempotent scope: IdempotencyScope?, _ body: (any SQLSession) throws -> Reply) throws -> Reply {
        guard let scope else { return try write(body) }
        guard Reply.self == scope.replyType else {
            throw ServiceError.internal("\(scope.method) answers \(scope.replyType), but its keyed write returned \(Reply.self)")
        }
        return try write(keyedBy: scope, storing: { try MessagePackEncoder().encode($0) }, body)
    }

    private func write<T>(
        keyedBy scope: IdempotencyScope?, storing encodeReply: ((T) throws -> [UInt8])?, _ body: (any SQLSession) throws -> T
    )
        throws -> T
    {
        var storedReply: [UInt8]?
        var storedMark = false
        func run(_ session: any SQLSession) throws -> T {
            let value = try body(session)
            storedReply = nil
            storedMark = false
            guard let scope else { return value }
            let keyTaken = scope.isMarkedApplied || scope.storedReply != nil
            if let encodeReply {
                let record = scope.record(reply: try encodeReply(value))
                if keyTaken {
                    // An earlier transaction of this request took the key: the reply replaces its record.
                    try IdempotencyLedgerTable.save(record, session)
                } else {
                    // Insert, never replace: a key stored meanwhile by another attempt rolls this
                    // one back (the guard then answers with that attempt's reply).
                    guard try IdempotencyLedgerTable.insert(record, session) else { throw IdempotencyScope.takenConcurrently }
                }
                storedReply = record.reply
            } else if !keyTaken {
                // The reply is built after this write: the key is marked applied in the same
                // transaction, so a retry after a crash before the reply is stored is refused
                // instead of applied twice.
                guard try IdempotencyLedgerTable.insert(scope.record(reply: []), session) else { throw IdempotencyScope.takenConcurrently }
                storedMark = true
            }
            return value
        }
        let value: T
        switch backend {
        case .sqlite(let writer):
            value = try writer.writeWithoutTransaction { db in
                try QueryClock.timed(db) { try Self.transaction(db, "BEGIN IMMEDIATE TRANSACTION") { try run(SQLiteSession(db: db)) } }
            }
        case .postgres(let database):
            // One user's writes in this process go one at a time (a phone flushing its queue,
            // ten requests at once): at SERIALIZABLE they would all clash on the user's rows and
            // retry each other into the ground. Replicas still clash, rarely, and retry.
            if let scope {
                value = try database.userWrites.withLock(for: scope.user) { try database.write(run) }
            } else {
                value = try database.write(run)
            }
        }
        if let scope {
            if let storedReply { scope.recorded(storedReply) }
            if storedMark { scope.markedApplied() }
            if let hook = TestHooks.exitAfterCommit, hook == scope.method {
                // Test hook (SOUS_TEST_EXIT_AFTER_COMMIT): die between the commit and the reply.
                exit(86)
            }
        }
        return value
    }

    /// Runs `body` in a write transaction that takes rows off a queue the replicas share
    /// (`SELECT … FOR UPDATE SKIP LOCKED`): at READ COMMITTED on PostgreSQL, since the rows
    /// it locks are its own and SERIALIZABLE would make replicas claiming at once clash; on
    /// SQLite, one process and one writer, a write like any other.
    public func claiming<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        switch backend {
        case .sqlite(let writer): try writer.write { db in try QueryClock.timed(db) { try body(SQLiteSession(db: db)) } }
        case .postgres(let database): try database.write(isolation: "READ COMMITTED") { try body($0) }
        }
    }

    /// The columns that say whose a row is: every table's `user` or `owner` column.
    public static let ownerColumns: Set<String> = ["user", "owner"]
    /// The column that says which household shares a row.
    public static let householdColumn = "household"

    /// Deletes every row of `user` in every table, in one transaction: rows whose `user` or
    /// `owner` column names them, and through `ON DELETE CASCADE` the rows that hang off those.
    /// A table added later is covered as soon as it has such a column. Returns the rows deleted
    /// per table.
    public func eraseUser(_ user: String) throws -> [String: Int] {
        try write { session in try Self.eraseUser(user, in: session) }
    }

    /// Deletes every row a household shared, in every table with a `household` column.
    public func eraseHousehold(_ household: String) throws -> [String: Int] {
        try write { session in try Self.erase(owner: household, columns: [Self.householdColumn], in: session) }
    }

    /// Moves everything the WAL holds into the database file and empties the WAL, so the older
    /// versions of rows just erased are not left in it. Returns false when a reader kept the
    /// checkpoint from finishing (the WAL is then emptied by the next one). PostgreSQL keeps
    /// deleted rows until its autovacuum runs (docs/PROTOCOL.md, "What an erasure leaves behind").
    @discardableResult
    public func checkpointAfterErasure() throws -> Bool {
        guard case .sqlite(let writer) = backend, writer is DatabasePool else { return true }
        let busy = try writer.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") ?? 0
        }
        return busy == 0
    }

    /// ``eraseUser(_:)`` inside a transaction the caller already holds.
    public static func eraseUser(_ user: String, in db: Database) throws -> [String: Int] {
        try eraseUser(user, in: SQLiteSession(db: db))
    }

    /// ``eraseUser(_:)`` inside a transaction the caller already holds.
    public static func eraseUser(_ user: String, in session: any SQLSession) throws -> [String: Int] {
        try erase(owner: user, columns: ownerColumns, in: session)
    }

    /// Deletes the rows whose column of `columns` names `owner`.
    public static func erase(owner: String, columns: Set<String>, in session: any SQLSession) throws -> [String: Int] {
        var deleted: [String: Int] = [:]
        for (table, column) in try ownedTables(session, columns: columns) {
            let count = try session.execute("DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) = ?", [owner])
            if count > 0 { deleted[table, default: 0] += count }
        }
        return deleted
    }

    /// Every (table, column) pair of the schema whose column is one of `columns`.
    static func ownedTables(_ session: any SQLSession, columns: Set<String> = ownerColumns) throws -> [(String, String)] {
        let owners = columns.sorted()
        switch session.engine {
        case .sqlite:
            let tables = try session.values(
                String.self,
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name")
            return try tables.flatMap { table in
                try session.values(String.self, "SELECT name FROM pragma_table_info(?)", [table]).filter(columns.contains).map { (table, $0) }
            }
        case .postgres:
            return try session.rows(
                """
                SELECT table_name, column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND column_name IN (\(SQLEngine.postgres.jsonArrayValues))
                ORDER BY table_name, column_name
                """, [owners.sqlJSONArray]
            ).map { ($0["table_name"], $0["column_name"]) }
        }
    }

    /// A cheap check for `health`: the database answers a query. (Migrations all ran when it was
    /// opened, or opening failed.)
    public func health() -> DatabaseHealth {
        do {
            _ = try read { try $0.value(Int.self, "SELECT 1") }
            return DatabaseHealth(status: "ok", path: path, detail: "\(migrationCount) migrations applied")
        } catch {
            return DatabaseHealth(status: "error", path: path, detail: "\(error)")
        }
    }
}

extension ServiceError {
    /// Runs a store's `work`: a ``ServiceError`` it throws passes through, any other (the
    /// engine's) becomes `internal`, prefixed with `what` ("planner storage failed").
    public static func storage<T>(_ what: String, _ work: () throws -> T) throws(ServiceError) -> T {
        do {
            return try work()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .internal("\(what): \(error)")
        }
    }
}
