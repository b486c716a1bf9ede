import Foundation
import GRDB
import Logging
import SousRuntime
import SousTestSupport
import SousWire
import Synchronization
import Testing

@Suite(.closesItsSockets)
struct PostgresLocationTests {
    @Test func hostAndSocketURLsAreRead() throws {
        let tcp = try PostgresLocation(url: "postgres://sous:s%40cret@db.example:6543/kitchen?schema=tracker_a", defaultSchema: "tracker")
        #expect(tcp.host == "db.example" && tcp.port == 6543 && tcp.user == "sous" && tcp.password == "s@cret")
        #expect(tcp.database == "kitchen" && tcp.schema == "tracker_a" && tcp.socketDirectory == nil && tcp.tls == .disable)
        #expect(!tcp.description.contains("cret"), "the password stays out of logs")
        let socket = try PostgresLocation(url: "postgresql://sous@/sous?host=/run/postgresql&sslmode=disable", defaultSchema: "planner")
        #expect(socket.socketDirectory == "/run/postgresql" && socket.schema == "planner" && socket.port == 5432)
    }

    /// The libpq parameters people put in a URL: a socket's port, TLS modes, a connect timeout
    /// and the name the server shows.
    @Test func libpqParametersAreRead() throws {
        let socket = try PostgresLocation(url: "postgres://u@/db?host=/run/postgresql&port=5499", defaultSchema: "planner")
        #expect(socket.socketDirectory == "/run/postgresql" && socket.port == 5499)
        #expect(socket.description == "postgres://u@/run/postgresql/.s.PGSQL.5499/db (schema planner)")
        let tuned = try PostgresLocation(
            url: "postgresql://u@db.example/db?sslmode=verify-full&connect_timeout=10&application_name=sous-test", defaultSchema: "catalog")
        #expect(tuned.tls == .verifyFull && tuned.connectTimeout == .seconds(10) && tuned.applicationName == "sous-test")
        #expect(try PostgresLocation(url: "postgres://u@h/db?sslmode=allow", defaultSchema: "x").tls == .prefer)
        #expect(try PostgresLocation(url: "postgres://u@h/db?sslmode=require", defaultSchema: "x").tls == .require)
        #expect(try PostgresLocation(url: "postgres://u@h/db?connect_timeout=1", defaultSchema: "x").connectTimeout == .seconds(2))
        let plain = try PostgresLocation(url: "postgres://u@h:6000/db", defaultSchema: "x")
        #expect(plain.tls == .disable && plain.port == 6000 && plain.connectTimeout == .seconds(5) && plain.applicationName == nil)
    }

    @Test(arguments: [
        ("mysql://sous@db/sous", "postgres://"),
        ("postgres://db/sous", "no user"),
        ("postgres://sous@db/", "no database"),
        ("postgres://sous@db/sous?schema=Bad-Name", "schema"),
        ("postgres://sous@db/sous?sslmode=strict", "sslmode"),
        ("postgres://sous@db/sous?port=70000", "port"),
        ("postgres://sous@db/sous?connect_timeout=soon", "connect_timeout"),
        ("postgres://sous@db/sous?pool=9", "unknown parameter \"pool\""),
    ])
    func badURLsSayWhatIsWrong(url: String, complaint: String) {
        let error = #expect(throws: PostgresLocationError.self) { try PostgresLocation(url: url, defaultSchema: "catalog") }
        #expect(error?.description.contains(complaint) == true, "\(error?.description ?? "")")
    }

    @Test func aServiceVariableOverridesTheSharedOne() throws {
        let shared = "postgres://sous@db/sous"
        let tracker = try ServiceConfiguration.fromEnvironment(
            .tracker, environment: ["SOUS_DATABASE_URL": shared, "SOUS_TRACKER_DATABASE_URL": "postgres://sous@other/diaries"])
        #expect(tracker.postgres?.host == "other" && tracker.postgres?.schema == "tracker")
        let planner = try ServiceConfiguration.fromEnvironment(.planner, environment: ["SOUS_DATABASE_URL": shared])
        #expect(planner.database == .postgres(try PostgresLocation(url: shared, defaultSchema: "planner")))
        #expect(try ServiceConfiguration.fromEnvironment(.planner, environment: [:]).database == .sqlite(directory: "./data"))
        let error = #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.fromEnvironment(.catalog, environment: ["SOUS_CATALOG_DATABASE_URL": "postgres://db/sous"])
        }
        #expect(error?.variable == "SOUS_CATALOG_DATABASE_URL")
    }
}

/// The storage layer on the test server (deploy/test.sh starts it and sets SOUS_TEST_DATABASE_URL).
@Suite(.closesItsSockets, .enabled(if: TestDatabase.url != nil, "needs the test PostgreSQL (SOUS_TEST_DATABASE_URL)"))
struct PostgresStorageTests {
    /// Threads of their own for work that blocks on the database (as a service's request
    /// threads are): blocking Swift's two cooperative threads would stall every other test.
    static let blockingWork = ThreadPoolExecutor(name: "sous-test-postgres", threads: 4)

    static let schema = DatabaseSchema(
        sqlite: DatabaseMigrator(),
        postgres: [
            PostgresMigration("v1: counters", ["CREATE TABLE counter (name TEXT PRIMARY KEY, value BIGINT NOT NULL)"]),
            PostgresMigration("v2: notes", [#"CREATE TABLE note ("user" TEXT NOT NULL, text TEXT NOT NULL CHECK (text <> ''))"#]),
        ])

    func open(_ location: PostgresLocation) throws -> SousDatabase {
        try SousDatabase(name: "kitchen", location: .postgres(location), schema: Self.schema, logger: quietLogger("postgres"))
    }

    @Test func replicasMigratingAtOnceApplyEachMigrationOnce() async throws {
        let location = try #require(TestDatabase.freshLocation("migrate"))
        let databases = try await withThrowingTaskGroup(of: SousDatabase.self) { group in
            for _ in 0..<4 { group.addTask(executorPreference: Self.blockingWork) { try open(location) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { for database in databases { database.close() } }
        let applied = try databases[0].read { try $0.values(String.self, "SELECT id FROM sous_migration ORDER BY id") }
        #expect(applied == ["sous v1: idempotency ledger", "v1: counters", "v2: notes"])
        #expect(databases.allSatisfy { $0.health().status == "ok" })
    }

    @Test func aFailedTransactionLeavesNothingBehind() throws {
        let database = try open(try #require(TestDatabase.freshLocation("rollback")))
        defer { database.close() }
        let error = #expect(throws: PostgresStatementError.self) {
            try database.write { session in
                try session.execute(#"INSERT INTO note ("user", text) VALUES (?, ?)"#, ["ada", "first"])
                try session.execute(#"INSERT INTO note ("user", text) VALUES (?, ?)"#, ["ada", ""])
            }
        }
        #expect(error?.isConstraintViolation == true)
        #expect(try database.read { try $0.value(Int.self, "SELECT COUNT(*) FROM note") } == 0)
    }

    /// A single value (`value`, read through `firstValue`) as on SQLite: the first row's only
    /// column, nil for NULL, for no row and for more than one column.
    @Test func aSingleValueIsReadAsOnSQLite() throws {
        let database = try open(try #require(TestDatabase.freshLocation("onevalue")))
        defer { database.close() }
        try database.write { session in
            try session.execute(#"INSERT INTO counter (name, value) VALUES (?, ?), (?, ?)"#, ["eggs", 6, "milk", 1])
        }
        try database.read { (session: any SQLSession) throws -> Void in
            #expect(try session.value(Int.self, "SELECT value FROM counter WHERE name = ?", ["eggs"]) == 6)
            #expect(try session.value(Int.self, "SELECT NULL::BIGINT") == nil, "NULL")
            #expect(try session.value(Int.self, "SELECT value FROM counter WHERE name = ?", ["flour"]) == nil, "no row")
            #expect(try session.value(String.self, "SELECT name FROM counter ORDER BY name DESC") == "milk", "the first of several rows")
            #expect(try session.value(Int.self, "SELECT 1, 1") == nil, "not a single column, even under one name")
            #expect(throws: (any Error).self) { try session.value(Int.self, "SELECT name FROM counter WHERE name = 'eggs'") }
        }
    }

    @Test func aQueryPastTheTimeLimitAnswersTimeout() throws {
        let database = try open(try #require(TestDatabase.freshLocation("slow")))
        defer { database.close() }
        let error = #expect(throws: ServiceError.self) { try database.read { try $0.execute("SELECT pg_sleep(30)") } }
        #expect(error?.code == .timeout)
        #expect(try database.read { try $0.value(Int.self, "SELECT 1") } == 1, "the connection is usable again")
    }

    /// Read-modify-write from two threads at once: SERIALIZABLE refuses one of each clashing
    /// pair and the layer runs it again, so no increment is lost.
    @Test func concurrentReadModifyWritesAllLand() async throws {
        let database = try open(try #require(TestDatabase.freshLocation("counter")))
        defer { database.close() }
        try database.write { try $0.execute("INSERT INTO counter (name, value) VALUES ('meals', 0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask(executorPreference: Self.blockingWork) {
                    for _ in 0..<20 {
                        try database.write { session in
                            let value = try session.value(Int.self, "SELECT value FROM counter WHERE name = 'meals'") ?? 0
                            try session.execute("UPDATE counter SET value = ? WHERE name = 'meals'", [value + 1])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try database.read { try $0.value(Int.self, "SELECT value FROM counter WHERE name = 'meals'") } == 40)
    }

    @Test func keyedRepliesAndErasureLiveInTheSharedStore() throws {
        let location = try #require(TestDatabase.freshLocation("ledger"))
        let database = try open(location)
        defer { database.close() }
        let record = IdempotencyRecord(
            user: "ada", key: "k-1", method: "notes.add", digest: [1, 2, 3], reply: [0x81, 0xA1, 0x61, 0x01], createdAt: Date())
        try database.save(record)
        // Another replica (another pool on the same schema) replays the same reply.
        let replica = try open(location)
        defer { replica.close() }
        let replayed = try #require(try replica.record(user: "ada", key: "k-1"))
        #expect(replayed.reply == record.reply && replayed.digest == record.digest && replayed.method == "notes.add")
        try database.write { try $0.execute(#"INSERT INTO note ("user", text) VALUES ('ada', 'a'), ('ada', 'b'), ('bob', 'c')"#) }
        #expect(try replica.eraseUser("ada") == ["note": 2, "sous_idempotency": 1])
        #expect(try database.read { try $0.values(String.self, #"SELECT "user" FROM note"#) } == ["bob"])
    }
}

/// Two replicas of one service on one database get the same keyed write at the same moment:
/// it is applied once and both answer the same reply.
@Suite(.closesItsSockets, .enabled(if: TestDatabase.url != nil, "needs the test PostgreSQL (SOUS_TEST_DATABASE_URL)"))
struct PostgresReplicaIdempotencyTests {
    /// Lets each of two threads through only once both have arrived (first attempts only).
    final class Meeting: Sendable {
        let arrivals = DispatchSemaphore(value: 0)
        let leaving = DispatchSemaphore(value: 0)
        let first = Mutex<Set<Int>>([])

        func meet(_ replica: Int) {
            guard first.withLock({ $0.insert(replica).inserted }) else { return }
            arrivals.signal()
            if replica == 0 {
                _ = arrivals.wait(timeout: .now() + 30)
                _ = arrivals.wait(timeout: .now() + 30)
                leaving.signal()
                leaving.signal()
            }
            _ = leaving.wait(timeout: .now() + 30)
        }
    }

    @Test func aKeyedWriteSentToTwoReplicasAtOnceIsAppliedOnce() async throws {
        let location = try #require(TestDatabase.freshLocation("replicas"))
        let replicas = try (0..<2).map { _ in
            try SousDatabase(name: "kitchen", location: .postgres(location), schema: PostgresStorageTests.schema, logger: quietLogger("postgres"))
        }
        defer { for replica in replicas { replica.close() } }
        let meeting = Meeting()
        let body = Array("add soup".utf8)
        let outcomes = await withTaskGroup(of: IdempotencyGuard.Outcome.self) { group in
            for (index, replica) in replicas.enumerated() {
                group.addTask(executorPreference: PostgresStorageTests.blockingWork) {
                    await IdempotencyGuard(ledger: replica).perform(
                        user: "ada", key: "k-7", method: "notes.add", body: body, reply: Int.self
                    ) { scope in
                        do {
                            let id = try replica.write(idempotent: scope) { session -> Int in
                                try session.execute(#"INSERT INTO note ("user", text) VALUES ('ada', ?)"#, ["soup from replica \(index)"])
                                // Both transactions are open before either stores its key.
                                meeting.meet(index)
                                return index + 1
                            }
                            return .success([UInt8(id)])
                        } catch let error as ServiceError {
                            return .failure(error)
                        } catch {
                            return .failure(.internal("\(error)"))
                        }
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let replies = try outcomes.map { try $0.get() }
        #expect(replies.count == 2 && replies[0] == replies[1], "both replicas answer the reply that was stored")
        #expect(try replicas[0].read { try $0.value(Int.self, "SELECT COUNT(*) FROM note") } == 1, "the note was written once")
    }
}

/// A server of the test's own, stopped and started again.
@Suite(.closesItsSockets, .enabled(if: TestDatabase.url != nil && PrivatePostgres.isInstalled, "needs PostgreSQL's server"))
struct PostgresOutageTests {
    @Test func whileTheServerIsDownRequestsAnswerUnavailableNamingItAndThenRecover() throws {
        let server = try PrivatePostgres()
        defer { server.stop() }
        let database = try SousDatabase(
            name: "kitchen", location: .postgres(try server.location(schema: "kitchen")), schema: PostgresStorageTests.schema,
            logger: quietLogger("postgres"))
        defer { database.close() }
        try database.write { try $0.execute("INSERT INTO counter (name, value) VALUES ('meals', 1)") }
        try server.halt()
        let error = #expect(throws: ServiceError.self) {
            try database.write { try $0.execute("UPDATE counter SET value = 2 WHERE name = 'meals'") }
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("kitchen database at postgres://sous@") == true, "\(error?.message ?? "")")
        #expect(database.health().status == "error")
        try server.resume()
        // The first request after the server returns opens a new connection.
        try database.write { try $0.execute("UPDATE counter SET value = 3 WHERE name = 'meals'") }
        #expect(try database.read { try $0.value(Int.self, "SELECT value FROM counter") } == 3)
    }

    @Test func aDatabaseThatDoesNotExistStopsTheServiceAtStartWithOneLine() throws {
        let url = try #require(TestDatabase.url)
        var location = try PostgresLocation(url: url, defaultSchema: "kitchen")
        location.database = "no_such_kitchen"
        let error = #expect(throws: ServiceError.self) {
            try SousDatabase(name: "kitchen", location: .postgres(location), schema: PostgresStorageTests.schema, logger: quietLogger("postgres"))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("database \"no_such_kitchen\" does not exist") == true, "\(error?.message ?? "")")
    }
}
