import ArgumentParser
import Foundation
import GRDB
import Logging
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import ZeroMQ

@Suite(.closesItsSockets)
struct StorageTests {
    func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sous-test-\(UUID().uuidString)").path
    }

    @Test func databaseFileIsInWALModeWithMigrationsApplied() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        let database = try SousDatabase(name: "kitchen", directory: directory, migrator: migrator)
        #expect(database.path == directory + "/kitchen.sqlite")
        #expect(FileManager.default.fileExists(atPath: database.path))
        let mode = try #require(database.sqliteWriter).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        // FULL (2) on the writer's connection: an acknowledged write survives a power cut.
        #expect(try database.write { try $0.value(Int.self, "PRAGMA synchronous") } == 2)
        let health = database.health()
        #expect(health.status == "ok")
        #expect(health.detail == "1 migrations applied")
        // Only the owner may read what a user stored, WAL included.
        try database.write { try $0.execute("INSERT INTO t VALUES (1)") }
        for file in [database.path, database.path + "-wal", database.path + "-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
    }

    /// An erased user's rows leave no trace in the file or its WAL: deleted cells are zeroed
    /// (secure_delete) and the WAL is emptied after the erasure.
    @Test func anErasedUsersRowsAreGoneFromTheFileAndItsWAL() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: #"CREATE TABLE person ("user" TEXT NOT NULL, email TEXT NOT NULL)"#) }
        let database = try SousDatabase(name: "people", directory: directory, migrator: migrator)
        let marker = "erase-me-7f3a9c@example.org"
        try database.write { db in
            try db.execute(#"INSERT INTO person ("user", email) VALUES ('u-erased', ?), ('u-kept', 'kept@example.org')"#, [marker])
        }
        func fileHolds(_ text: String) throws -> Bool {
            let needle = Data(text.utf8)
            for file in [database.path, database.path + "-wal"] where FileManager.default.fileExists(atPath: file) {
                if try Data(contentsOf: URL(fileURLWithPath: file)).range(of: needle) != nil { return true }
            }
            return false
        }
        #expect(try fileHolds(marker), "the row is on disk before the erasure")
        #expect(try database.eraseUser("u-erased") == ["person": 1])
        #expect(try database.checkpointAfterErasure())
        #expect(try !fileHolds(marker))
        #expect(try fileHolds("kept@example.org"))
    }

    /// In memory, and on a file (where a lane reads through a reader of its own, its
    /// transaction begun and ended by the runtime).
    @Test(arguments: [false, true])
    func aQueryPastTheTimeLimitIsStoppedAndAnswersTimeout(onAFile: Bool) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SousDatabase(name: "slow", directory: onAFile ? directory : nil, migrator: DatabaseMigrator())
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM (SELECT x FROM c LIMIT 1000000000000)"
        let error = #expect(throws: ServiceError.self) { try database.read { try $0.value(Int.self, endless) } }
        #expect(error?.code == .timeout)
        // The connection is usable again at once.
        #expect(try database.read { try $0.value(Int.self, "SELECT 1") } == 1)
    }

    /// Reads of a file each see what was committed before they began, however many run at once.
    @Test func readsOfAFileSeeEveryCommittedWriteHoweverManyRunAtOnce() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE counter (n INTEGER NOT NULL); INSERT INTO counter VALUES (0)") }
        let database = try SousDatabase(name: "readers", directory: directory, migrator: migrator)
        try database.write { _ = try $0.execute("UPDATE counter SET n = 1") }
        // A writer counting up while readers on other threads read: no read goes back in time,
        // and each ends with a read of the last value. Each runs on a thread of its own, not on
        // Swift's cooperative pool: sixteen readers reading as fast as they can there held both
        // of its threads for as long as the writer's 300 synced writes took, and every other
        // test's services waited.
        let writes = 300
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(120))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await offThePool { for n in 2...writes { try database.write { _ = try $0.execute("UPDATE counter SET n = ?", [n]) } } }
            }
            for _ in 0..<16 {
                group.addTask {
                    let wentBack = try await offThePool { () throws -> Bool in
                        var last = 0
                        while last < writes, clock.now < deadline {
                            let n = try database.read { try $0.value(Int.self, "SELECT n FROM counter") } ?? 0
                            if n < last { return true }
                            last = n
                        }
                        return false
                    }
                    #expect(!wentBack, "a read went back in time")
                }
            }
            try await group.waitForAll()
        }
        let final = try database.read { try $0.value(Int.self, "SELECT n FROM counter") }
        #expect(final == writes)
    }

    @Test func committedWritesSurviveReopening() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        do {
            let database = try SousDatabase(name: "kitchen", directory: directory, migrator: migrator)
            try database.write { try $0.execute("INSERT INTO t VALUES (42)") }
        }
        let reopened = try SousDatabase(name: "kitchen", directory: directory, migrator: migrator)
        #expect(try reopened.read { try $0.value(Int.self, "SELECT x FROM t") } == 42)
    }

    @Test func aFailedTransactionLeavesNothingBehind() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE t (x INTEGER NOT NULL)") }
        let database = try SousDatabase(name: "kitchen", directory: nil, migrator: migrator)
        #expect(throws: DatabaseError.self) {
            try database.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                try db.execute("INSERT INTO t VALUES (NULL)")
            }
        }
        #expect(try database.read { try $0.value(Int.self, "SELECT COUNT(*) FROM t") } == 0)
    }
}

@Suite(.closesItsSockets)
struct ConfigurationTests {
    @Test func defaultsAreTheLocalRun() throws {
        let configuration = try ServiceConfiguration.fromEnvironment(.planner, environment: [:])
        #expect(configuration.bind == "tcp://127.0.0.1:7201")
        #expect(configuration.eventsBind == "tcp://127.0.0.1:7202")
        #expect(configuration.dataDirectory == "./data")
        #expect(configuration.logLevel == .info)
        #expect(configuration.endpoints(of: .catalog) == ServiceEndpoints(requests: "tcp://127.0.0.1:7101", events: "tcp://127.0.0.1:7102"))
    }

    @Test func environmentOverridesDefaults() throws {
        let environment = [
            "SOUS_PLANNER_BIND": "tcp://0.0.0.0:7201",
            "SOUS_CATALOG_ENDPOINT": "tcp://catalog:7101",
            "SOUS_CATALOG_EVENTS": "tcp://catalog:7102",
            "SOUS_DATA_DIR": "/var/lib/sous",
            "SOUS_LOG_LEVEL": "DEBUG",
            "SOUS_TIMEOUT_MS": "1500",
        ]
        let configuration = try ServiceConfiguration.fromEnvironment(.planner, environment: environment)
        #expect(configuration.bind == "tcp://0.0.0.0:7201")
        #expect(configuration.endpoints(of: .catalog).requests == "tcp://catalog:7101")
        #expect(configuration.endpoints(of: .catalog).events == "tcp://catalog:7102")
        #expect(configuration.dataDirectory == "/var/lib/sous")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.callTimeout == .milliseconds(1500))
    }

    @Test func flagsOverrideTheEnvironment() throws {
        let options = try ServiceOptions.parse(["--bind", "tcp://127.0.0.1:9999", "--data-dir", "/tmp/x", "--log-level", "error"])
        let configuration = try options.configuration(
            for: .catalog, environment: ["SOUS_CATALOG_BIND": "tcp://127.0.0.1:1", "SOUS_DATA_DIR": "/nope"])
        #expect(configuration.bind == "tcp://127.0.0.1:9999")
        #expect(configuration.dataDirectory == "/tmp/x")
        #expect(configuration.logLevel == .error)
    }

    @Test func badValuesNameTheVariable() {
        let level = #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.fromEnvironment(.catalog, environment: ["SOUS_LOG_LEVEL": "loud"])
        }
        #expect(level?.variable == "SOUS_LOG_LEVEL")
        let timeout = #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.fromEnvironment(.catalog, environment: ["SOUS_TIMEOUT_MS": "-5"])
        }
        #expect(timeout?.variable == "SOUS_TIMEOUT_MS")
    }
}

/// Lists of strings stored as JSON read back as they were written, whatever they hold.
@Suite(.closesItsSockets)
struct JSONColumnTests {
    static let lists: [[String]] = [
        [], [""], ["vegan"], ["peanuts", "tree-nuts", "sesame"], ["Crème brûlée", "日本語", "🍅"],
        ["quote \" inside", "back\\slash", "a/b", "line\nbreak\ttab\r\u{8}\u{C}"], ["\u{1}\u{1F} control", "  spaced  "],
    ]

    @Test func encodedListsReadTheSameAsThroughJSONDecoder() throws {
        for list in Self.lists {
            let text = try JSONColumn.encode(list)
            #expect(try JSONColumn.decode([String].self, from: text) == list)
            #expect(try JSONColumn.decode([String].self, from: text) == JSONDecoder().decode([String].self, from: Data(text.utf8)))
        }
    }

    /// The JSON array a statement binds for `IN (…)` reads back as the same strings, through
    /// JSONDecoder and through SQLite's `json_each`, whatever they hold.
    @Test func listsBoundAsJSONReadBackTheSame() throws {
        let database = try SousDatabase(name: "json", directory: nil, migrator: DatabaseMigrator())
        let hostile = ["", "quote \" and \\ backslash", "tab\tnew\nline\u{01}\u{1f}", "/slash", "été 🍅", "\u{7f}\u{2028}"]
        for list in Self.lists + [hostile, []] {
            let json = list.sqlJSONArray
            #expect(try JSONDecoder().decode([String].self, from: Data(json.utf8)) == list, "\(json)")
            #expect(try database.read { try $0.values(String.self, "SELECT value FROM json_each(?) ORDER BY key", [json]) } == list)
        }
    }
}

/// Replicas of one service share its key files: started at once on an empty folder, they must all
/// end up with the same key, and none may read a half-written file.
@Suite(.closesItsSockets)
struct SharedKeyFileTests {
    @Test func replicasCreatingTheKeyAtOnceAllGetTheSameOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-keys-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for _ in 0..<20 {
            try? FileManager.default.removeItem(atPath: directory)
            let keys = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask(executorPreference: PostgresStorageTests.blockingWork) {
                        try Keyring.ownKeyPair(of: .catalog, dataDirectory: directory).publicKey
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(keys.count == 1)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty)
        }
    }
}

/// The web app's key, as services find it in the keys folder: not before it is published, at
/// once after, and again when a web app starts with a new key.
@Suite
struct WebAppKeyTests {
    @Test func servicesKnowTheWebAppByTheKeyItPublished() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-keys-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keyring = Keyring(own: try CurveKeyPair.generate(), directory: directory)
        let first = try Keyring.ownKeyPair(named: "web", dataDirectory: directory)
        #expect(!keyring.isWebApp(first.publicKey), "nothing published yet")
        try Keyring.publishWebAppKey(first.publicKey, in: directory)
        #expect(keyring.isWebApp(first.publicKey))
        #expect(!keyring.isWebApp(try CurveKeyPair.generate().publicKey), "a stranger's key")
        let second = try CurveKeyPair.generate()
        try Keyring.publishWebAppKey(second.publicKey, in: directory)
        #expect(keyring.isWebApp(second.publicKey), "a web app that starts with a new key is known from its next connection")
        #expect(try Keyring.ownKeyPair(named: "web", dataDirectory: directory) == first, "web.curve is kept across starts")
    }
}
