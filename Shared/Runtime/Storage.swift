import Foundation
public import GRDB
import GRDBSQLite
public import Logging
import SousCrypto
public import SousWire
import Synchronization

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
/// Stores read and write through ``reading(_:)`` and ``writing(_:)`` (SQL written once for both
/// engines, see ``SQLSession``), or on SQLite through ``read(_:)`` and ``write(_:)``, never
/// the engine directly:
/// - every statement of a request has a time limit (``queryTimeLimit``): a query that runs past
///   it is interrupted and the request answered `timeout`, so no reader is held for long;
/// - a write made for a request that carries an idempotency key stores the key, a digest of
///   the request and the reply in the same transaction (see ``IdempotencyScope``), so a retry
///   after any crash, on any replica, replays that reply instead of writing twice.
public struct SousDatabase: Sendable {
    enum Backend: Sendable {
        case sqlite(any DatabaseWriter)
        case postgres(PostgresDatabase)
    }

    let backend: Backend
    /// The I/O thread's own reader of a SQLite file (see ``reading(_:)``).
    private let ioThreadReader: DatabaseQueue?
    /// The lanes' readers of a SQLite file (see ``reading(_:)``).
    private let laneReaders: SQLiteReaders?
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
        var ioThreadReader: DatabaseQueue?
        var laneReaders: SQLiteReaders?
        if let directory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
            try Self.ownerOnly(path)
            let pool = try DatabasePool(path: path, configuration: configuration)
            // A pool runs in WAL mode, and GRDB sets its writer to synchronous=NORMAL, which can
            // roll back acknowledged writes on a power cut. FULL syncs the WAL on every commit:
            // a write is acknowledged only once it is durable (docs/BENCHMARKS.md: the cost).
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
        if writer is DatabasePool {
            // Opened after the migrations: a queue keeps the schema it first reads.
            let readers = SQLiteReaders(path: self.path, configuration: configuration, limit: Self.readerCount)
            ioThreadReader = try readers.open()
            laneReaders = readers
        }
        self.ioThreadReader = ioThreadReader
        self.laneReaders = laneReaders
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
        ioThreadReader = nil
        laneReaders = nil
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

    /// Runs `body` in a read transaction (one snapshot), each statement within ``queryTimeLimit``.
    ///
    /// A quick read on the server's I/O thread (one with a ``QuickReadBudget``) reads a SQLite
    /// file through a connection of its own: a pool read first takes a reader (a semaphore, a
    /// barrier queue, a scan of the readers) and checks the schema, which cost a cached read
    /// more than its statement (docs/BENCHMARKS.md); the I/O thread is one thread,
    /// so one connection serves it without waiting, and its page cache stays warm. Any other
    /// read takes one of the lanes' readers (``SQLiteReaders``), which keep `BEGIN` and `COMMIT`
    /// prepared the same way; GRDB's pool only when all of them are busy.
    public func reading<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        switch backend {
        case .sqlite(let writer):
            func read(_ session: SQLiteSession) throws -> T {
                try QueryClock.timed(session.db) { try Self.transaction(session.db, "BEGIN DEFERRED TRANSACTION") { try body(session) } }
            }
            if let ioThreadReader, QuickReadBudget.current != nil {
                return try ioThreadReader.unsafeRead { db in try read(SQLiteSession(db: db, givesStamps: true)) }
            }
            if let laneReaders, let value = try laneReaders.withReader({ try $0.unsafeRead { db in try read(SQLiteSession(db: db)) } }) {
                return value
            }
            return try writer.read { db in try QueryClock.timed(db) { try body(SQLiteSession(db: db)) } }
        case .postgres(let database): return try database.read { try body($0) }
        }
    }

    /// The I/O thread reader's ``DataStamp`` now, for a quick read on the I/O thread that may
    /// answer from what it keeps without a transaction; nil anywhere else, for a database in
    /// memory or on PostgreSQL, and if SQLite cannot say (the caller then reads as usual). Not
    /// within ``reading(_:)``: a transaction's own stamp is its session's
    /// (``SQLSession/dataStamp``).
    public var currentStamp: DataStamp? {
        guard let ioThreadReader, QuickReadBudget.current != nil else { return nil }
        // Outside `timed` no deadline is set: the statement runs unlimited.
        return try? ioThreadReader.unsafeRead { db in try DataStamp.read(db) }
    }

    /// Runs `body` in one transaction begun with `begin` (a read's snapshot on a reader of our
    /// own, the I/O thread's or a lane's; or a write on the writer), with `begin` and `COMMIT`
    /// kept prepared: GRDB's `read` and `write` prepare both anew for every transaction (for a
    /// kept week's read that cost more than its one query).
    ///
    /// Beginning and ending it run with no time limit: both statements are prepared once, and
    /// SQLite counts their steps towards the progress handler across uses, so a budget already
    /// past could interrupt one after it changed the connection's state (a BEGIN done, then
    /// reported interrupted). A transaction left open on this connection stops the process
    /// (GRDB's precondition), as it once did under fifty clients' load.
    private static func transaction<T>(_ db: Database, _ begin: String, _ body: () throws -> T) throws -> T {
        let value: T
        do {
            try QueryClock.unlimited(db) { try db.cachedStatement(sql: begin).execute() }
            value = try body()
            try QueryClock.unlimited(db) { try db.cachedStatement(sql: "COMMIT TRANSACTION").execute() }
        } catch {
            rollBackIfOpen(db)
            throw error
        }
        return value
    }

    /// Ends whatever transaction an error left open (an interrupted statement may have ended it
    /// already), never interrupted itself.
    private static func rollBackIfOpen(_ db: Database) {
        QueryClock.unlimited(db) {
            guard sqlite3_get_autocommit(db.sqliteConnection) == 0 else { return }
            try? db.rollback()
            if sqlite3_get_autocommit(db.sqliteConnection) == 0 { _ = sqlite3_exec(db.sqliteConnection, "ROLLBACK", nil, nil, nil) }
        }
    }

    /// Runs `body` in a write transaction, each statement within ``queryTimeLimit``. Under a
    /// keyed write (``IdempotencyScope/current``) a result that is the method's reply is stored
    /// with its key in the same transaction. On PostgreSQL `body` may run more than once (a
    /// transaction another replica's write conflicted with is run again): it only touches the
    /// database.
    @discardableResult
    public func writing<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        let scope = IdempotencyScope.current
        var storedReply: [UInt8]?
        var storedMark = false
        func run(_ session: any SQLSession) throws -> T {
            let value = try body(session)
            storedReply = nil
            storedMark = false
            guard let scope else { return value }
            if let reply = scope.encodeReply(value) {
                if scope.isMarkedApplied {
                    // An earlier transaction of this write left the mark: the reply replaces it.
                    try IdempotencyLedgerTable.save(scope.record(reply: reply), session)
                } else {
                    // Insert, never replace: a key stored meanwhile by another replica's attempt
                    // rolls this one back (the guard then answers with that attempt's reply).
                    guard try IdempotencyLedgerTable.insert(scope.record(reply: reply), session) else {
                        throw IdempotencyScope.takenConcurrently
                    }
                }
                storedReply = reply
            } else if !scope.isMarkedApplied {
                // The value is not the reply (the handler builds it afterwards): the key is marked
                // applied in this same transaction, so a retry after a crash before the reply is
                // stored is refused instead of applied twice.
                guard try IdempotencyLedgerTable.insert(scope.record(reply: []), session) else { throw IdempotencyScope.takenConcurrently }
                storedMark = true
            }
            return value
        }
        let value: T
        switch backend {
        case .sqlite(let writer):
            // IMMEDIATE: the write lock is taken at BEGIN, so a transaction that read first is
            // never refused it later (SQLITE_BUSY, which no busy timeout avoids).
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
        }
        if let scope, let hook = TestHooks.exitAfterCommit, hook == scope.method {
            // Test hook (SOUS_TEST_EXIT_AFTER_COMMIT): die between the commit and the reply.
            exit(86)
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

    /// Runs `body` in a read transaction on SQLite through GRDB: for tests and tools that look
    /// below the stores at SQLite itself (every store is written for both engines).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try reading { session in
            guard let session = session as? SQLiteSession else { throw Self.sqliteOnly }
            return try body(session.db)
        }
    }

    /// Runs `body` in a write transaction on SQLite through GRDB; see ``writing(_:)``.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writing { session in
            guard let session = session as? SQLiteSession else { throw Self.sqliteOnly }
            return try body(session.db)
        }
    }

    private static var sqliteOnly: ServiceError { .internal("this store reads SQLite only") }

    /// The columns that say whose a row is: every table's `user` or `owner` column.
    public static let ownerColumns: Set<String> = ["user", "owner"]

    /// Deletes every row of `user` in every table, in one transaction: rows whose `user` or
    /// `owner` column names them, and through `ON DELETE CASCADE` the rows that hang off those.
    /// A table added later is covered as soon as it has such a column. Returns the rows deleted
    /// per table.
    public func eraseUser(_ user: String) throws -> [String: Int] {
        try writing { session in try Self.eraseUser(user, in: session) }
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
        var deleted: [String: Int] = [:]
        for (table, column) in try ownedTables(session) {
            let count = try session.execute("DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) = ?", [user])
            if count > 0 { deleted[table, default: 0] += count }
        }
        return deleted
    }

    /// Every (table, owner column) pair of the schema.
    static func ownedTables(_ session: any SQLSession) throws -> [(String, String)] {
        let owners = ownerColumns.sorted()
        switch session.engine {
        case .sqlite:
            let tables = try session.values(
                String.self,
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name")
            return try tables.flatMap { table in
                try session.values(String.self, "SELECT name FROM pragma_table_info(?)", [table]).filter(ownerColumns.contains).map { (table, $0) }
            }
        case .postgres:
            return try session.rows(
                """
                SELECT table_name, column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND column_name IN (?, ?) ORDER BY table_name, column_name
                """, owners
            ).map { ($0["table_name"], $0["column_name"]) }
        }
    }

    /// A cheap check for `health`: the database answers a query. (Migrations all ran when it was
    /// opened, or opening failed.)
    public func health() -> DatabaseHealth {
        do {
            _ = try reading { try $0.value(Int.self, "SELECT 1") }
            return DatabaseHealth(status: "ok", path: path, detail: "\(migrationCount) migrations applied")
        } catch {
            return DatabaseHealth(status: "error", path: path, detail: "\(error)")
        }
    }
}

extension SousDatabase: IdempotencyLedger {
    public func record(user: String, key: String) throws -> IdempotencyRecord? {
        try reading { session in try IdempotencyLedgerTable.fetch(user: user, key: key, session) }
    }

    /// Called by the guard after the write, outside its scope (so `writing` stores nothing else).
    public func save(_ record: IdempotencyRecord) throws {
        try writing { session in try IdempotencyLedgerTable.save(record, session) }
    }

    /// Prunes the ledger as its writes do every ``IdempotencyLedgerTable/pruneEvery`` saves, as
    /// of `now` (seconds since 1970).
    package func pruneLedger(now: Double) throws {
        try writing { session in try IdempotencyLedgerTable.prune(session, now: Date(timeIntervalSince1970: now)) }
    }

    public func forgetMark(user: String, key: String) throws {
        try writing { session in
            try session.execute(
                "DELETE FROM sous_idempotency WHERE \"user\" = ? AND key = ? AND \(engine == .postgres ? "octet_length" : "length")(reply) = 0",
                [user, key])
        }
    }
}

/// Striped locks by user: the writes of one user through one database handle run one at a time.
final class UserWriteLocks: Sendable {
    private let stripes = (0..<64).map { _ in NSLock() }

    func withLock<T>(for user: String, _ body: () throws -> T) throws -> T {
        var hasher = Hasher()
        hasher.combine(user)
        return try stripes[Int(UInt(bitPattern: hasher.finalize()) % UInt(stripes.count))].withLock { try body() }
    }
}

/// The runtime's own table in every service's database: one row per keyed write, kept for
/// ``retention`` and within ``maxReplyBytes`` in all (oldest dropped first).
enum IdempotencyLedgerTable {
    static let retention: TimeInterval = 24 * 3600
    static let maxReplyBytes = 64 << 20
    /// Pruning runs on every this many saves, inside the saving transaction.
    static let pruneEvery = 256
    private static let saves = Atomic<Int>(0)

    /// Creates the table on SQLite, or brings an earlier layout up to date.
    ///
    /// The first layout was keyed by (user, key) WITHOUT ROWID, so each reply lay in the key's
    /// own B-tree, and SQLite reads a cell's whole payload, overflow pages included, to compare
    /// a key with a cell that overflows: finding or placing a key read every reply it passed,
    /// 80 KB for a whole grocery list (the check before a keyed write and its insert were a
    /// third of `groceries.addRecipe`'s thread). Rows now have a rowid and the key an index of
    /// its own, which holds the keys alone.
    ///
    /// The second layout also indexed `created_at` for pruning by age: one more page to write
    /// and sync in every keyed write. Rowids follow the order rows were stored in, the order of
    /// age, so pruning walks them instead (``prune(_:now:)``) and that index is dropped.
    static func create(_ session: any SQLSession) throws {
        let firstLayout =
            try session.value(String.self, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sous_idempotency'")?
            .uppercased().contains("WITHOUT ROWID") == true
        if firstLayout {
            try session.execute("DROP INDEX IF EXISTS sous_idempotency_age")
            try session.execute("ALTER TABLE sous_idempotency RENAME TO sous_idempotency_first")
        }
        try session.execute(
            """
            CREATE TABLE IF NOT EXISTS sous_idempotency (
                id INTEGER PRIMARY KEY, "user" TEXT NOT NULL, key TEXT NOT NULL, method TEXT NOT NULL, digest BLOB NOT NULL,
                reply BLOB NOT NULL, created_at REAL NOT NULL
            )
            """)
        try session.execute(#"CREATE UNIQUE INDEX IF NOT EXISTS sous_idempotency_key ON sous_idempotency ("user", key)"#)
        try session.execute("DROP INDEX IF EXISTS sous_idempotency_age")
        if firstLayout {
            try session.execute(
                """
                INSERT INTO sous_idempotency ("user", key, method, digest, reply, created_at)
                SELECT "user", key, method, digest, reply, created_at FROM sous_idempotency_first
                """)
            try session.execute("DROP TABLE sous_idempotency_first")
        }
    }

    /// The same table on PostgreSQL, in each service's schema.
    static let postgresMigrations = [
        PostgresMigration(
            "sous v1: idempotency ledger",
            [
                """
                CREATE TABLE sous_idempotency (
                    "user" TEXT NOT NULL, key TEXT NOT NULL, method TEXT NOT NULL, digest BYTEA NOT NULL,
                    reply BYTEA NOT NULL, created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY ("user", key)
                )
                """,
                "CREATE INDEX sous_idempotency_age ON sous_idempotency (created_at)",
            ])
    ]

    static func fetch(user: String, key: String, _ session: any SQLSession) throws -> IdempotencyRecord? {
        // Nearly every key is new: that answer is one value read without building rows (a
        // third of the lookup's cost), and the record is read only when there is one.
        guard try session.value(Int.self, "SELECT 1 FROM sous_idempotency WHERE \"user\" = ? AND key = ?", [user, key]) != nil else {
            return nil
        }
        guard
            let row = try session.rows("SELECT method, digest, reply, created_at FROM sous_idempotency WHERE \"user\" = ? AND key = ?", [user, key])
                .first
        else {
            return nil
        }
        let digest: Data = row["digest"]
        let reply: Data = row["reply"]
        return IdempotencyRecord(
            user: user, key: key, method: row["method"], digest: [UInt8](digest), reply: [UInt8](reply),
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    /// Stores `record` unless its key is already stored; false then.
    static func insert(_ record: IdempotencyRecord, _ session: any SQLSession) throws -> Bool {
        let inserted = try session.execute(
            """
            INSERT INTO sous_idempotency ("user", key, method, digest, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT ("user", key) DO NOTHING
            """,
            [record.user, record.key, record.method, Data(record.digest), Data(record.reply), record.createdAt.timeIntervalSince1970])
        if saves.add(1, ordering: .relaxed).newValue % pruneEvery == 0 { try prune(session) }
        return inserted == 1
    }

    static func save(_ record: IdempotencyRecord, _ session: any SQLSession) throws {
        try session.execute(
            """
            INSERT INTO sous_idempotency ("user", key, method, digest, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT ("user", key) DO UPDATE SET method = excluded.method, digest = excluded.digest, reply = excluded.reply,
            created_at = excluded.created_at
            """,
            [record.user, record.key, record.method, Data(record.digest), Data(record.reply), record.createdAt.timeIntervalSince1970])
        if saves.add(1, ordering: .relaxed).newValue % pruneEvery == 0 { try prune(session) }
    }

    /// Drops the records older than ``retention``, then the oldest until the replies fit in
    /// ``maxReplyBytes``.
    ///
    /// On SQLite, which keeps no index of ages, the records before the first one young enough
    /// to keep, in rowid order (the order they were stored in), go: a walk over rows that are
    /// going anyway. A record stored again later (``save(_:_:)``) keeps its rowid with a newer
    /// age and holds back the ones after it until it is old itself; no record younger than the
    /// retention is ever dropped by age.
    static func prune(_ session: any SQLSession, now: Date = Date()) throws {
        let oldestKept = now.timeIntervalSince1970 - retention
        switch session.engine {
        case .sqlite:
            try session.execute(
                """
                DELETE FROM sous_idempotency WHERE id < COALESCE(
                    (SELECT id FROM sous_idempotency WHERE created_at >= ? ORDER BY id LIMIT 1), (SELECT MAX(id) + 1 FROM sous_idempotency))
                """, [oldestKept])
        case .postgres:
            try session.execute("DELETE FROM sous_idempotency WHERE created_at < ?", [oldestKept])
        }
        let size = session.engine == .postgres ? "octet_length(reply)" : "length(reply)"
        let storedOrder = session.engine == .postgres ? "created_at" : "id"
        var total = try session.value(Int.self, "SELECT COALESCE(SUM(\(size)), 0) FROM sous_idempotency") ?? 0
        while total > maxReplyBytes {
            let oldest = try session.rows("SELECT \"user\", key, \(size) AS size FROM sous_idempotency ORDER BY \(storedOrder) LIMIT 100")
            guard !oldest.isEmpty else { break }
            for row in oldest {
                try session.execute("DELETE FROM sous_idempotency WHERE \"user\" = ? AND key = ?", [row["user"] as String, row["key"] as String])
                total -= row["size"] as Int
            }
        }
    }
}

/// Settings read once from the environment that exist only for tests.
enum TestHooks {
    /// `SOUS_TEST_EXIT_AFTER_COMMIT=<method>`: the process exits (code 86) right after that
    /// method's write commits, before its reply is sent, to test retries across a crash.
    static let exitAfterCommit: String? = ProcessInfo.processInfo.environment["SOUS_TEST_EXIT_AFTER_COMMIT"]
    /// `SOUS_RECORD_CORPUS=<folder>`: every request body a server receives is written there as
    /// `<method>--<digest>.msgpack`, the seeds of the fuzz test (Tests/FuzzTests/Corpus).
    static let recordCorpus: String? = ProcessInfo.processInfo.environment["SOUS_RECORD_CORPUS"]

    static func record(method: String, body: [UInt8]) {
        guard let folder = recordCorpus, method.allSatisfy({ $0.isLetter || $0 == "." }) else { return }
        let name = "\(method)--\(Sodium.digest([body]).prefix(6).map { String(format: "%02x", $0) }.joined()).msgpack"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(body))
    }
}

/// Gives every statement a time limit through SQLite's progress handler, which interrupts a
/// statement once its deadline has passed. The deadline is set as each statement starts (a
/// statement trace), so a transaction of many quick statements (loading a seed) is not cut
/// short, and only statements run through ``SousDatabase/read(_:)`` and ``SousDatabase/write(_:)``
/// are limited (migrations are not).
enum QueryClock {
    /// Per connection: whether statements are limited now, and the running one's deadline in
    /// nanoseconds of the monotonic clock (0: none). Alive as long as the process.
    final class Box: Sendable {
        let armed = Atomic<Bool>(false)
        let deadline = Atomic<UInt64>(0)
        /// A deadline for every statement of the transaction (a quick read's budget), or 0.
        let fixedDeadline = Atomic<UInt64>(0)
    }

    private static let boxes = Mutex<[ObjectIdentifier: Box]>([:])
    static let limitNanoseconds = UInt64(SousDatabase.queryTimeLimit.components.seconds) * 1_000_000_000

    static func install(on db: Database) {
        let box = Box()
        boxes.withLock { $0[ObjectIdentifier(db)] = box }
        db.trace(options: .statement) { _ in
            if box.armed.load(ordering: .relaxed) {
                let fixed = box.fixedDeadline.load(ordering: .relaxed)
                box.deadline.store(fixed != 0 ? fixed : DispatchTime.now().uptimeNanoseconds + limitNanoseconds, ordering: .relaxed)
            }
        }
        let context = Unmanaged.passRetained(box).toOpaque()
        // Every 1000 virtual-machine steps: cheap, and fine-grained enough for a 2 s limit.
        sqlite3_progress_handler(
            db.sqliteConnection, 1000,
            { context in
                guard let context else { return 0 }
                let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                let deadline = box.deadline.load(ordering: .relaxed)
                return deadline != 0 && DispatchTime.now().uptimeNanoseconds > deadline ? 1 : 0
            }, context)
    }

    /// Runs `body` with no time limit on its statements (what ends a transaction must not be
    /// interrupted half done); the limit applies again to the statements after it.
    static func unlimited<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        guard let box = boxes.withLock({ $0[ObjectIdentifier(db)] }) else { return try body() }
        let armed = box.armed.exchange(false, ordering: .relaxed)
        box.deadline.store(0, ordering: .relaxed)
        defer { box.armed.store(armed, ordering: .relaxed) }
        return try body()
    }

    /// Runs `body` with its statements limited; an interrupted statement becomes `timeout`, or
    /// ``QuickReadBudget/Exceeded`` when the limit was the budget of a quick read.
    static func timed<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        guard let box = boxes.withLock({ $0[ObjectIdentifier(db)] }) else { return try body() }
        let outer = box.armed.exchange(true, ordering: .relaxed)
        let budget = outer ? nil : QuickReadBudget.current
        if let budget { box.fixedDeadline.store(budget.deadline, ordering: .relaxed) }
        defer {
            if !outer {
                box.armed.store(false, ordering: .relaxed)
                box.deadline.store(0, ordering: .relaxed)
                box.fixedDeadline.store(0, ordering: .relaxed)
            }
        }
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            if let budget {
                budget.markExceeded()
                throw QuickReadBudget.Exceeded()
            }
            throw ServiceError(
                .timeout, "a query ran longer than \(SousDatabase.queryTimeLimit.components.seconds) s and was stopped; narrow it down")
        }
    }
}

/// Lists and small structures kept as JSON text in one column (a recipe's steps, an
/// ingredient's synonyms, a profile's diets).
public enum JSONColumn {
    private static let decoder = JSONDecoder()
    private static let encoder = JSONEncoder()

    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        // Lists of strings (a profile has four) are most of what is stored as JSON, and
        // JSONDecoder's setup cost more than the rest of a profile read.
        if T.self == [String].self, let strings = strings(text) as? T { return strings }
        return try decoder.decode(type, from: Data(text.utf8))
    }

    /// A JSON array of strings as JSONEncoder writes it, read directly; nil for anything else
    /// (a `\u` escape, a number, damaged text), which JSONDecoder then reads or rejects.
    public static func strings(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var position = 0
            func skipSpace() {
                while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x09 || bytes[position] == 0x0D
                {
                    position += 1
                }
            }
            func take(_ byte: UInt8) -> Bool {
                skipSpace()
                guard position < bytes.count, bytes[position] == byte else { return false }
                position += 1
                return true
            }
            guard take(UInt8(ascii: "[")) else { return nil }
            var strings: [String] = []
            if take(UInt8(ascii: "]")) {
                skipSpace()
                return position == bytes.count ? strings : nil
            }
            repeat {
                guard take(UInt8(ascii: "\"")) else { return nil }
                var string: [UInt8] = []
                while true {
                    guard position < bytes.count else { return nil }
                    let byte = bytes[position]
                    position += 1
                    if byte == UInt8(ascii: "\"") { break }
                    guard byte >= 0x20 else { return nil }
                    guard byte == UInt8(ascii: "\\") else {
                        string.append(byte)
                        continue
                    }
                    guard position < bytes.count else { return nil }
                    let escaped = bytes[position]
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): string.append(escaped)
                    case UInt8(ascii: "n"): string.append(0x0A)
                    case UInt8(ascii: "t"): string.append(0x09)
                    case UInt8(ascii: "r"): string.append(0x0D)
                    case UInt8(ascii: "b"): string.append(0x08)
                    case UInt8(ascii: "f"): string.append(0x0C)
                    default: return nil
                    }
                }
                strings.append(String(decoding: string, as: UTF8.self))
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
            skipSpace()
            return position == bytes.count ? strings : nil
        }
    }

    public static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Where each column sits in the rows of one statement, found by name once: reading a row by a
/// column's name scans the row's names every time, which showed in profiles of a search page
/// (26 columns × 20 rows). Positions come from the names, never from counting.
public struct ColumnPositions: Sendable {
    @usableFromInline let positions: [String: Int]

    /// The positions in `row`'s statement (every row of a SQLite statement has the same columns
    /// in the same places; PostgreSQL's rows are found by name, so there each row needs its own).
    public init(_ row: Row) {
        var positions: [String: Int] = [:]
        for (index, name) in row.columnNames.enumerated() where positions[name] == nil { positions[name] = index }
        self.positions = positions
    }

    /// The value of `column` in `row`, which must come from the same statement (an optional `T`
    /// reads NULL as nil).
    /// Inlinable: specialised for each `T` where it is used, it reads a page's columns without
    /// the generic path (which was half of a recipe search).
    @inlinable
    public func value<T: DatabaseValueConvertible>(_ column: Column, in row: Row) -> T {
        if let index = positions[column.name] { return row[index] }
        return row[column]
    }
}

extension [Row] {
    /// The rows transformed, each with where its columns are: found once for all the rows of a
    /// SQLite statement (they share their columns' places), per row on PostgreSQL (its rows keep
    /// their columns by name only).
    public func mapPositioned<T>(_ engine: SQLEngine, _ transform: (Row, ColumnPositions) throws -> T) rethrows -> [T] {
        let shared = engine == .sqlite ? first.map(ColumnPositions.init) : nil
        return try map { row in try transform(row, shared ?? ColumnPositions(row)) }
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

extension Sequence<String> {
    /// The strings as one JSON array, bound to `IN (\(engine.jsonArrayValues))`
    /// (``SQLEngine/jsonArrayValues``): the statement's text is then the same for any count of
    /// values, so it stays prepared. Written by hand: JSONEncoder showed in the profile of a
    /// reminder pass, whose batches bind a thousand users at a time.
    public var sqlJSONArray: String {
        var json: [UInt8] = [UInt8(ascii: "[")]
        var first = true
        for string in self {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            json.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): json += [UInt8(ascii: "\\"), byte]
                case 0..<0x20:
                    json += Array("\\u00".utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
                default: json.append(byte)
                }
            }
            json.append(UInt8(ascii: "\""))
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }
}
