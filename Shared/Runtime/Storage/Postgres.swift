import Foundation
import GRDB
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import SousWire
import Synchronization

/// Where a service's PostgreSQL database is, read from a URL:
///
///     postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME&sslmode=MODE&…]
///     postgres://USER@/DATABASE?host=/run/postgresql&port=5499   (a Unix socket's folder)
///
/// The libpq parameters people use are read as libpq reads them: `host` (a name, or a socket's
/// folder), `port`, `sslmode` (disable, allow, prefer, require, verify-ca, verify-full),
/// `connect_timeout` (seconds) and `application_name`; `schema` is Sous's own.
///
/// Each service keeps its tables in a schema of its own (default: the service's name), so all
/// five can share one database.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// The folder of the server's Unix socket, instead of host and port.
    public var socketDirectory: String?
    public var user: String
    public var password: String?
    public var database: String
    public var schema: String
    public var tls: TLSMode
    /// How long opening a connection may take (`connect_timeout`, whole seconds as in libpq).
    public var connectTimeout: Duration
    /// The name the server shows for the connections (`application_name`): `sous-<service>`
    /// unless the URL names another.
    public var applicationName: String?

    /// `sslmode`, as libpq reads it.
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS if the server offers it, without checking its certificate (libpq's `allow` is read as this).
        case prefer
        /// TLS, without checking the server's certificate.
        case require
        /// TLS, with a certificate signed by a trusted authority, for any host name.
        case verifyCA = "verify-ca"
        /// TLS, with a trusted certificate for the host named in the URL.
        case verifyFull = "verify-full"
    }

    /// The URL parameters read (libpq's names); any other is refused.
    static let parameters = ["host", "port", "sslmode", "connect_timeout", "application_name", "schema"]

    /// Parses `url`; `defaultSchema` applies when the URL names none. The error says what is
    /// wrong without repeating the password.
    public init(url: String, defaultSchema: String) throws(PostgresLocationError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw PostgresLocationError("must look like postgres://user:password@host:5432/database")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        for name in query.keys.sorted() where !Self.parameters.contains(name) {
            throw PostgresLocationError("unknown parameter \"\(name)\" (known: \(Self.parameters.joined(separator: ", ")))")
        }
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        host =
            query["host"].flatMap { $0.isEmpty || $0.hasPrefix("/") ? nil : $0 } ?? components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        if let text = query["port"] {
            guard let port = Int(text), (1...65_535).contains(port) else { throw PostgresLocationError("port \"\(text)\" is not 1 to 65535") }
            self.port = port
        } else {
            port = components.port ?? 5432
        }
        if let text = query["connect_timeout"] {
            // libpq: whole seconds, 0 (or none) for no limit; below 2 counts as 2.
            guard let seconds = Int(text), (0...3600).contains(seconds) else {
                throw PostgresLocationError("connect_timeout \"\(text)\" is not a number of seconds, 0 to 3600")
            }
            connectTimeout = .seconds(seconds == 0 ? 3600 : max(seconds, 2))
        } else {
            connectTimeout = .seconds(5)
        }
        if let name = query["application_name"] {
            guard name.utf8.count <= 63, name.allSatisfy({ $0.isASCII && !$0.isNewline }) else {
                throw PostgresLocationError("application_name must be at most 63 ASCII characters")
            }
            applicationName = name
        }
        guard let user = components.user, !user.isEmpty else { throw PostgresLocationError("names no user (postgres://USER@host/database)") }
        self.user = user
        password = components.password
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw PostgresLocationError("names no database (postgres://user@host/DATABASE)") }
        self.database = database
        schema = query["schema"] ?? defaultSchema
        guard Self.isPlainName(schema) else {
            throw PostgresLocationError("schema \"\(schema)\" must be lower-case letters, digits and _ (at most 63)")
        }
        let mode = query["sslmode"] ?? "disable"
        guard let tls = TLSMode(rawValue: mode == "allow" ? "prefer" : mode) else {
            throw PostgresLocationError(
                "sslmode \"\(mode)\" is not one of disable, allow, prefer, \(TLSMode.allCases.dropFirst(2).map(\.rawValue).joined(separator: ", "))")
        }
        self.tls = tls
    }

    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first), name.utf8.count <= 63 else { return false }
        return name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }

    /// The location without its password, for logs and errors.
    public var description: String {
        let server = socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } ?? "\(host):\(port)"
        return "postgres://\(user)@\(server)/\(database) (schema \(schema))"
    }
}

public struct PostgresLocationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A schema change on PostgreSQL: an id that is never reused and the statements to run, in one
/// transaction with the others still to apply.
public struct PostgresMigration: Sendable {
    public let id: String
    public let statements: [String]

    public init(_ id: String, _ statements: [String]) {
        self.id = id
        self.statements = statements
    }
}

/// A service's PostgreSQL database: a few connections that the request threads take turns
/// on, each running one transaction at a time.
///
/// Stores are synchronous (they run on the service's own request threads, see
/// ``ThreadPoolExecutor``), so a transaction here blocks its thread while postgres-nio's event
/// loop does the I/O, as a SQLite transaction blocks it on the disk.
///
/// - Writes run at SERIALIZABLE, so replicas writing at once behave as if one wrote after the
///   other (as SQLite's single writer did); a transaction the server refuses for that reason is
///   run again, up to ``serializationAttempts`` times.
/// - Reads run at REPEATABLE READ, READ ONLY: one snapshot for all their statements.
/// - Every statement has the same time limit as on SQLite (`statement_timeout`).
/// - A lost connection is dropped and a new one opened on the next request: requests answer
///   `unavailable` while the server is down, and the service recovers by itself when it returns.
public final class PostgresDatabase: @unchecked Sendable {
    public let location: PostgresLocation
    public let name: String
    private let capacity: Int
    private let logger: Logger
    private let condition = ThreadCondition()
    // Guarded by `condition`.
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var closed = false
    private let nextID = Atomic<Int>(0)
    /// Keyed writes of one user through this handle go one at a time (``SousDatabase/write(_:)``).
    let userWrites = UserWriteLocks()
    /// A write refused for a clash with another transaction runs again this many times at most,
    /// after a random pause of up to 1, 2, 4 … and at most 64 ms (about a second and a half in
    /// all): ten writers clashing on one row all got through in 20 attempts only this way.
    static let serializationAttempts = 30
    /// How long a request waits for a connection while all are busy (opening one is bounded by
    /// the URL's `connect_timeout`).
    static let connectionWait = Duration.seconds(5)

    init(name: String, location: PostgresLocation, capacity: Int, logger: Logger) {
        self.name = name
        self.location = location
        self.capacity = capacity
        self.logger = logger
    }

    // MARK: Transactions

    func read<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try withConnection { connection in
            try transaction(on: connection, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
        }
    }

    func write<T>(isolation: String = "SERIALIZABLE", _ body: (PostgresSession) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try withConnection { connection in try transaction(on: connection, begin: "BEGIN ISOLATION LEVEL \(isolation)", body) }
            } catch let error as PostgresStatementError where error.mustRetry && attempt < Self.serializationAttempts {
                // Spread the retries of clashing writers so they stop clashing.
                usleep(UInt32.random(in: 100...(1_000 << min(attempt - 1, 6))))
                attempt += 1
            }
        }
    }

    private func transaction<T>(on connection: PostgresConnection, begin: String, _ body: (PostgresSession) throws -> T) throws -> T {
        let session = PostgresSession(connection: connection, logger: logger)
        try session.execute(begin)
        do {
            let value = try body(session)
            try session.execute("COMMIT")
            return value
        } catch {
            // A broken connection is dropped by the caller; on a live one the transaction ends here.
            if !connection.isClosed { _ = try? session.execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Connections

    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        do {
            let value = try body(connection)
            checkIn(connection)
            return value
        } catch {
            checkIn(connection)
            throw serviceError(error)
        }
    }

    private func checkOut() throws -> PostgresConnection {
        let deadline = ContinuousClock.now + Self.connectionWait
        condition.lock()
        while true {
            guard !closed else {
                condition.unlock()
                throw ServiceError.unavailable("the \(name) database is closed (the service is stopping)")
            }
            if let connection = idle.popLast() {
                condition.unlock()
                if connection.isClosed {
                    dropped()
                    condition.lock()
                    continue
                }
                return connection
            }
            if open < capacity {
                open += 1
                condition.unlock()
                do {
                    return try connect()
                } catch {
                    dropped()
                    // Refused at sign-in too (a wrong password, no such database): not a statement's fault.
                    throw unavailable(error)
                }
            }
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw ServiceError.unavailable("the \(name) database at \(location) had no free connection within 5 s")
            }
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        if connection.isClosed {
            dropped()
            return
        }
        condition.lock()
        if closed {
            condition.unlock()
            Self.closeInBackground(connection)
            return
        }
        idle.append(connection)
        condition.unlock(waking: .one)
    }

    private func dropped() {
        condition.lock()
        open -= 1
        condition.unlock(waking: .one)
    }

    /// postgres-nio's TLS setting for `mode`, checking the server's certificate as libpq does.
    static func tls(_ mode: PostgresLocation.TLSMode) throws -> PostgresConnection.Configuration.TLS {
        var client = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable: return .disable
        case .prefer, .require: client.certificateVerification = .none
        case .verifyCA: client.certificateVerification = .noHostnameVerification
        case .verifyFull: client.certificateVerification = .fullVerification
        }
        let context = try NIOSSLContext(configuration: client)
        return mode == .prefer ? .prefer(context) : .require(context)
    }

    /// Opens one connection (the first request after the server came back opens a new one).
    func connect() throws -> PostgresConnection {
        var configuration: PostgresConnection.Configuration
        if let directory = location.socketDirectory {
            configuration = .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(location.port)", username: location.user, password: location.password,
                database: location.database)
        } else {
            configuration = .init(
                host: location.host, port: location.port, username: location.user, password: location.password, database: location.database,
                tls: try Self.tls(location.tls))
        }
        configuration.options.connectTimeout = .seconds(location.connectTimeout.components.seconds)
        configuration.options.additionalStartupParameters = [
            ("search_path", location.schema),
            ("statement_timeout", "\(SousDatabase.queryTimeLimit.components.seconds * 1000)"),
            ("application_name", location.applicationName ?? "sous-\(name)"),
            // The ledger's and the schema's own notices are not worth a log line each.
            ("client_min_messages", "warning"),
        ]
        return try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: nextID.add(1, ordering: .relaxed).newValue,
            logger: logger
        ).wait()
    }

    /// Closes every connection; requests made afterwards answer `unavailable`.
    public func close() {
        condition.lock()
        closed = true
        let connections = idle
        idle = []
        condition.unlock(waking: .all)
        connections.forEach(Self.closeInBackground)
    }

    deinit {
        // A database dropped without close() (a test's service that never ran) still says goodbye.
        idle.forEach(Self.closeInBackground)
    }

    /// Closes without waiting; the connection stays referenced until it has closed.
    private static func closeInBackground(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    // MARK: Migrations

    /// Creates the schema and applies the migrations not applied yet, in one transaction under
    /// an advisory lock: a second replica starting at the same moment waits, then finds them
    /// applied.
    func migrate(_ migrations: [PostgresMigration]) throws -> Int {
        let lock = "sous-migrations:\(location.schema)"
        return try withConnection { connection in
            // One lock per schema (replicas of one service wait for each other, other services
            // don't), taken before the transaction: its snapshot must start after the lock, or a
            // replica that waited would not see the migrations the first one applied.
            let session = PostgresSession(connection: connection, logger: logger)
            try session.execute("SELECT pg_advisory_lock(hashtext(?))", [lock])
            defer { _ = try? session.execute("SELECT pg_advisory_unlock(hashtext(?))", [lock]) }
            return try transaction(on: connection, begin: "BEGIN ISOLATION LEVEL SERIALIZABLE") { session in
                try session.execute("CREATE SCHEMA IF NOT EXISTS \(location.schema.quotedDatabaseIdentifier)")
                try session.execute("CREATE TABLE IF NOT EXISTS sous_migration (id TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
                let applied = Set(try session.values(String.self, "SELECT id FROM sous_migration"))
                for migration in migrations where !applied.contains(migration.id) {
                    for statement in migration.statements { try session.execute(statement) }
                    try session.execute("INSERT INTO sous_migration (id, applied_at) VALUES (?, ?)", [migration.id, Date().timeIntervalSince1970])
                }
                return migrations.count
            }
        }
    }

    // MARK: Errors

    /// What a request answers for a failure of the database: a statement the server refused
    /// stays that; anything else means the database could not be reached.
    private func serviceError(_ error: any Error) -> any Error {
        switch error {
        case is ServiceError, is PostgresStatementError: error
        case let error as PSQLError where error.code == .server: PostgresStatementError(error)
        default: unavailable(error)
        }
    }

    private func unavailable(_ error: any Error) -> ServiceError {
        .unavailable("the \(name) database at \(location) is unavailable: \(Self.describe(error))")
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
