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
    /// Runs one query and returns its first row's values in column order (nil for no row):
    /// for a one-row query on a hot path, read by position (``Swift/Array/decoded(_:at:)``),
    /// where building a `Row` and finding its columns by name cost more than the query.
    func firstRow(_ sql: String, _ arguments: SQLArguments) throws -> [DatabaseValue]?
    /// This snapshot's ``DataStamp``, when the transaction runs on the one connection that gives
    /// them (the I/O thread's reader of a SQLite file); nil on any other.
    var dataStamp: DataStamp? { get throws }
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

extension [DatabaseValue] {
    /// Column `index` of a ``SQLSession/firstRow(_:_:)`` as `Value`, nil for NULL; a value of
    /// another type throws, naming the column.
    public func decoded<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int) throws -> Value? {
        let stored = self[index]
        guard !stored.isNull else { return nil }
        guard let value = Value.fromDatabaseValue(stored) else {
            throw DatabaseError(message: "column \(index) holds \(stored), not a \(Value.self)")
        }
        return value
    }
}

/// A transaction on the SQLite database, through GRDB. Every statement stays prepared on its
/// connection (GRDB's statement cache, keyed by the SQL text).
struct SQLiteSession: SQLSession {
    let db: Database
    /// Whether `db` is the I/O thread's reader (``SousDatabase/currentStamp``).
    var givesStamps = false
    var engine: SQLEngine { .sqlite }

    var dataStamp: DataStamp? {
        get throws { givesStamps ? try DataStamp.read(db) : nil }
    }

    /// Bound value by value and stepped by hand (like ``DataStamp/read(_:)``): GRDB's
    /// `StatementArguments` are built by generic code it cannot specialize for us, which took a
    /// fifth of a small write. The statement is still GRDB's cached one, each value is bound by
    /// GRDB's own binding, and SQLite's hooks (the query time limit's trace and progress
    /// handler) still see it.
    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        if try !stepping(statement, sql, arguments, row: { _ in }) {
            try statement.execute(arguments: StatementArguments(arguments))
        }
        return db.changesCount
    }

    /// Stepped by hand like ``execute(_:_:)``, without building rows.
    func firstValue(_ sql: String, _ arguments: SQLArguments) throws -> DatabaseValue? {
        let statement = try db.cachedStatement(sql: sql)
        var first: DatabaseValue?
        var columns: Int32 = 1
        let stepped = try stepping(statement, sql, arguments) { handle in
            columns = sqlite3_column_count(handle)
            if first == nil, columns == 1 { first = DatabaseValue(sqliteStatement: handle, index: 0) }
        }
        guard stepped else {
            guard let row = try Row.fetchOne(statement, arguments: StatementArguments(arguments)), row.count == 1 else { return nil }
            return row.databaseValues.first
        }
        return columns == 1 ? first : nil
    }

    /// Stepped by hand like ``firstValue(_:_:)``: the first row's values copied out, no `Row`.
    func firstRow(_ sql: String, _ arguments: SQLArguments) throws -> [DatabaseValue]? {
        let statement = try db.cachedStatement(sql: sql)
        var first: [DatabaseValue]?
        let stepped = try stepping(statement, sql, arguments) { handle in
            guard first == nil else { return }
            first = (0..<sqlite3_column_count(handle)).map { DatabaseValue(sqliteStatement: handle, index: $0) }
        }
        guard stepped else { return try Row.fetchOne(statement, arguments: StatementArguments(arguments)).map { Array($0.databaseValues) } }
        return first
    }

    /// Binds `arguments` to `statement` (the cached statement of `sql`) and steps it to the end,
    /// calling `row` for each row; false, having run nothing, for a statement GRDB should run: a
    /// schema change (GRDB keeps its schema cache by them) or a count of arguments that does not
    /// match (its execution names the mismatch).
    private func stepping(_ statement: Statement, _ sql: String, _ arguments: SQLArguments, row: (SQLiteStatement) -> Void) throws -> Bool {
        let handle = statement.sqliteStatement
        guard Self.isRowStatement(sql), Int(sqlite3_bind_parameter_count(handle)) == arguments.count else { return false }
        sqlite3_reset(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        for (offset, argument) in arguments.enumerated() {
            // GRDB's own binding of each value: what its reads bind compares equal.
            let code = (argument?.databaseValue ?? .null).bind(to: handle, at: Int32(offset + 1))
            guard code == SQLITE_OK else { throw Self.error(code, db, sql) }
        }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return true }
            guard code == SQLITE_ROW else { throw Self.error(code, db, sql) }
            row(handle)
        }
    }

    /// Whether the statement's first word is one of the statements that read or change rows
    /// (letters packed into one integer: this runs for every statement).
    static func isRowStatement(_ sql: String) -> Bool {
        var word: UInt64 = 0
        var length = 0
        for byte in sql.utf8 {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") {
                if length == 0 { continue } else { break }
            }
            guard length < 7 else { return false }
            word = word << 8 | UInt64(byte & 0xDF)  // ASCII letters in upper case
            length += 1
        }
        return rowVerbs.contains(word)
    }

    private static let rowVerbs: Set<UInt64> = Set(
        ["INSERT", "UPDATE", "DELETE", "REPLACE", "SELECT", "WITH"].map { $0.utf8.reduce(0) { $0 << 8 | UInt64($1) } })

    private static func error(_ code: Int32, _ db: Database, _ sql: String) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
            message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
    }

    func rows(_ sql: String, _ arguments: SQLArguments) throws -> [Row] {
        try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }
}
