import Foundation
import GRDB
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import SousWire
import Synchronization

/// A statement the server refused: its SQLSTATE and message. A time limit becomes `timeout`
/// when it reaches the handler, like SQLite's.
public struct PostgresStatementError: Error, CustomStringConvertible {
    public let sqlState: String
    public let message: String

    init(_ error: PSQLError) {
        sqlState = error.serverInfo?[.sqlState] ?? "XX000"
        message = error.serverInfo?[.message] ?? "\(error.code)"
    }

    /// A serialization failure or deadlock: the transaction can run again.
    var mustRetry: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// `unique_violation`, `foreign_key_violation`, `check_violation`, `not_null_violation`.
    public var isConstraintViolation: Bool { sqlState.hasPrefix("23") }
    public var description: String { "PostgreSQL \(sqlState): \(message)" }
}

/// A transaction on a PostgreSQL connection.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    var engine: SQLEngine { .postgres }

    @discardableResult
    func execute(_ sql: String, _ arguments: SQLArguments) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func rows(_ sql: String, _ arguments: SQLArguments) throws -> [Row] {
        try run(sql, arguments).rows.map(Self.row)
    }

    /// The limit is the connection's `statement_timeout`, lifted for the rest of this
    /// transaction's statements inside `body` and set back after it.
    func withoutTimeLimit<T>(_ body: () throws -> T) throws -> T {
        try execute("SET LOCAL statement_timeout = 0")
        let value = try body()
        try execute("SET LOCAL statement_timeout = \(SousDatabase.queryTimeLimit.components.seconds * 1000)")
        return value
    }

    /// The first row's only column.
    func firstValue(_ sql: String, _ arguments: SQLArguments) throws -> DatabaseValue? {
        guard let row = try run(sql, arguments).rows.first, row.count == 1 else { return nil }
        return try row.map(Self.value).first
    }

    private func run(_ sql: String, _ arguments: SQLArguments) throws -> PostgresQueryResult {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch (argument?.databaseValue ?? .null).storage {
            case .null: binds.appendNull()
            case .int64(let value): binds.append(value)
            case .double(let value): binds.append(value)
            case .string(let value): binds.append(value)
            case .blob(let value): try binds.append(value)
            }
        }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: PlaceholderNumbering.numbered(sql), binds: binds), logger: logger).wait()
        } catch let error as PSQLError where error.code == .server {
            let refused = PostgresStatementError(error)
            if refused.sqlState == "57014" {
                throw ServiceError(
                    .timeout, "a query ran longer than \(SousDatabase.queryTimeLimit.components.seconds) s and was stopped; narrow it down")
            }
            throw refused
        }
    }

    /// A row as GRDB's, its columns by name. Numbers come back as the engine-neutral integers
    /// and doubles, booleans as 0 and 1, text as text.
    static func row(_ row: PostgresRow) throws -> Row {
        var values: [String: (any DatabaseValueConvertible)?] = [:]
        for cell in row where values[cell.columnName] == nil {
            values[cell.columnName] = try value(cell)
        }
        return Row(values)
    }

    private static func value(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return try cell.decode(Int64.self).databaseValue
        case .float4, .float8: return try cell.decode(Double.self).databaseValue
        case .numeric: return Double(try cell.decode(Decimal.self).description)?.databaseValue ?? .null
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0).databaseValue
        case .bytea: return try cell.decode(Data.self).databaseValue
        default: return try cell.decode(String.self).databaseValue
        }
    }
}

/// `?` placeholders as PostgreSQL's `$1, $2, …`, skipping quoted text, quoted names and
/// comments; each text converted once.
enum PlaceholderNumbering {
    private static let converted = Mutex<[String: String]>([:])

    static func numbered(_ sql: String) -> String {
        if let done = converted.withLock({ $0[sql] }) { return done }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quote: Character?
        var lineComment = false
        var previous: Character = " "
        for character in sql {
            defer { previous = character }
            if lineComment {
                if character == "\n" { lineComment = false }
            } else if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "-" && previous == "-" {
                lineComment = true
            } else if character == "?" {
                number += 1
                result += "$\(number)"
                continue
            }
            result.append(character)
        }
        converted.withLock { $0[sql] = result }
        return result
    }
}
