import Foundation
public import GRDB
import GRDBSQLite
import SousWire
import Synchronization

/// Which engine holds a service's data.
public enum SQLEngine: String, Sendable {
    case sqlite
    case postgres

    /// A subquery of the strings of one JSON array bound to its `?` (``Swift/Array/sqlJSONArray``),
    /// for `x IN (…)` with a fixed statement text however long the list.
    public var jsonArrayValues: String {
        switch self {
        case .sqlite: "SELECT value FROM json_each(?)"
        case .postgres: "SELECT jsonb_array_elements_text(CAST(? AS jsonb))"
        }
    }
}

/// Values bound to a statement's `?` placeholders, in order.
public typealias SQLArguments = [(any DatabaseValueConvertible)?]

/// One transaction on a service's database, on either engine. A store writes its SQL once:
///
/// - `?` placeholders (numbered `$1, $2, …` for PostgreSQL by the session);
/// - identifiers that are keywords double-quoted (`"user"`);
/// - only what both engines read alike: `INSERT … ON CONFLICT … DO UPDATE SET c = excluded.c`,
///   `RETURNING`, `COALESCE`, `LIMIT`. Where they differ (full text, JSON, text comparison
///   without case) the store asks ``engine``.
///
/// The text of each statement should be fixed (lists are bound as one JSON array): both engines
/// keep a statement prepared per text.
///
/// Rows come back as GRDB rows, so a record reads itself (`init(row:)`) whatever the engine.
/// On PostgreSQL a row's columns are found by name only.
public protocol SQLSession {
    var engine: SQLEngine { get }
    /// Runs one statement and returns how many rows it inserted, changed or deleted.
    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int
    /// Runs one query and returns its rows.
    func rows(_ sql: String, _ arguments: SQLArguments) throws -> [Row]
    /// Runs one statement and returns the first row's value when the statement has a single
    /// column (nil for no row or more columns): what ``value(_:_:_:)`` reads.
    func firstValue(_ sql: String, _ arguments: SQLArguments) throws -> DatabaseValue?
    /// Runs `body`'s statements without the time limit (``SousDatabase/queryTimeLimit``): for
    /// loading a whole table into memory at start (the catalog's 8 800 foods), whose size, not a
    /// caller, sets how long it takes; a busy PostgreSQL server took more than 2 s to hand them
    /// over. Never for what a request reads.
    func withoutTimeLimit<T>(_ body: () throws -> T) throws -> T
}

extension SQLSession {
    @discardableResult
    public func execute(_ sql: String) throws -> Int { try execute(sql, []) }

    public func rows(_ sql: String) throws -> [Row] { try rows(sql, []) }

    public func fetchAll<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: SQLArguments = []) throws -> [Record] {
        try rows(sql, arguments).map { try Record(row: $0) }
    }

    public func fetchOne<Record: FetchableRecord>(_ type: Record.Type, _ sql: String, _ arguments: SQLArguments = []) throws -> Record? {
        try rows(sql, arguments).first.map { try Record(row: $0) }
    }

    /// The single column of the first row (nil for no row or NULL).
    public func value<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: SQLArguments = []) throws -> Value? {
        guard let stored = try firstValue(sql, arguments), !stored.isNull else { return nil }
        guard let value = Value.fromDatabaseValue(stored) else {
            throw DatabaseError(message: "\(stored) is not a \(Value.self) (\(sql))")
        }
        return value
    }

    /// The single column of every row (NULLs left out).
    public func values<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String, _ arguments: SQLArguments = []) throws -> [Value] {
        try rows(sql, arguments).compactMap { $0.count == 1 ? ($0[0] as Value?) : nil }
    }

    /// Throws conflict (an archive is imported into an account with nothing in this service)
    /// when any of `tables` holds a row whose `column` is `user`; `what` names what the user has.
    public func requireNoRows(of user: String, in tables: [String], column: String = "user", what: String) throws {
        for table in tables where try value(Int.self, "SELECT 1 FROM \(table) WHERE \"\(column)\" = ? LIMIT 1", [user]) != nil {
            throw ServiceError.conflict("your account already has \(what): import into an empty account")
        }
    }

    /// Inserts `record`; on a clash of its primary key, `conflict` says what happens.
    @discardableResult
    public func insert<Record: SQLRecord>(_ record: Record, onConflict conflict: SQLConflict = .fail) throws -> Int {
        try execute(Record.insertSQL(conflict), record.values)
    }

    /// Inserts `records` in as few statements as they fit (up to ``SQLRecordStatements/rowsPerInsert``
    /// rows each): a statement costs more than its rows. Returns the rows inserted or changed.
    /// With `.replace`, their keys must differ (PostgreSQL refuses to change a row twice in one
    /// statement).
    @discardableResult
    public func insert<Record: SQLRecord>(all records: [Record], onConflict conflict: SQLConflict = .fail) throws -> Int {
        var changed = 0
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + SQLRecordStatements.rowsPerInsert, records.endIndex)
            var values: SQLArguments = []
            values.reserveCapacity((end - start) * Record.columnNames.count)
            for record in records[start..<end] { values += record.values }
            changed += try execute(Record.insertSQL(conflict, rows: end - start), values)
            start = end
        }
        return changed
    }
}

/// What an insert does when its primary key is taken.
public enum SQLConflict: Sendable, Hashable {
    /// The statement fails (a constraint error).
    case fail
    /// The row already there stays; nothing is written (0 rows changed).
    case ignore
    /// The row already there takes every column of the new one.
    case replace
}

/// A record whose columns are listed once, in order, with its values in that order: it writes
/// itself with one fixed statement per table and conflict rule (``SQLSession/insert(_:onConflict:)``),
/// the same text on both engines.
public protocol SQLRecord: FetchableRecord {
    static var tableName: String { get }
    /// Every column, in the order of ``values``.
    static var columnNames: [String] { get }
    /// The primary key's columns (what an upsert matches on).
    static var primaryKey: [String] { get }
    var values: SQLArguments { get }
}

extension SQLRecord {
    static func insertSQL(_ conflict: SQLConflict, rows: Int = 1) -> String {
        SQLRecordStatements.insert(Self.self, into: tableName, columns: columnNames, key: primaryKey, conflict: conflict, rows: rows)
    }
}

/// The insert statements of every record type, built once per type and conflict rule (two
/// services' records may name tables alike: each service has its own database).
enum SQLRecordStatements {
    private struct Key: Hashable {
        var record: ObjectIdentifier
        var conflict: SQLConflict
        var rows: Int
    }

    private static let built = Mutex<[Key: String]>([:])
    /// The most rows one insert writes: a fixed set of statement texts per record type, and far
    /// below either engine's limit on placeholders for any record here.
    static let rowsPerInsert = 32

    static func insert(_ record: Any.Type, into table: String, columns: [String], key: [String], conflict: SQLConflict, rows: Int = 1) -> String {
        let cacheKey = Key(record: ObjectIdentifier(record), conflict: conflict, rows: rows)
        if let sql = built.withLock({ $0[cacheKey] }) { return sql }
        let quoted = columns.map(\.quotedDatabaseIdentifier)
        let row = "(\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        var sql =
            "INSERT INTO \(table.quotedDatabaseIdentifier) (\(quoted.joined(separator: ", "))) VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))"
        switch conflict {
        case .fail: break
        case .ignore: sql += " ON CONFLICT DO NOTHING"
        case .replace:
            let others = columns.filter { !key.contains($0) }.map(\.quotedDatabaseIdentifier)
            let target = key.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            sql +=
                others.isEmpty
                ? " ON CONFLICT (\(target)) DO NOTHING"
                : " ON CONFLICT (\(target)) DO UPDATE SET \(others.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))"
        }
        built.withLock { $0[cacheKey] = sql }
        return sql
    }
}

/// A transaction on the SQLite database, through GRDB. Every statement stays prepared on its
/// connection (GRDB's statement cache, keyed by the SQL text).
struct SQLiteSession: SQLSession {
    let db: Database
    var engine: SQLEngine { .sqlite }

    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
        return db.changesCount
    }

    func firstValue(_ sql: String, _ arguments: SQLArguments) throws -> DatabaseValue? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)), row.count == 1 else { return nil }
        return row.databaseValues.first
    }

    func rows(_ sql: String, _ arguments: SQLArguments) throws -> [Row] {
        try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }

    func withoutTimeLimit<T>(_ body: () throws -> T) throws -> T {
        try QueryClock.unlimited(db, body)
    }
}
