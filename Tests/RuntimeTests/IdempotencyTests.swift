import Foundation
import GRDB
import MessagePack
import SousCrypto
import SousRuntime
import SousTestSupport
import SousWire
import Synchronization
import Testing

@Suite(.closesItsSockets)
struct IdempotencyTests {
    struct Reply: Codable, Equatable, Sendable { var id: Int64 }

    /// A notes database on disk (or in memory), with the runtime's idempotency table.
    static func database(in directory: String?) throws -> SousDatabase {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") }
        return try SousDatabase(name: "notes", directory: directory, migrator: migrator)
    }

    /// What a write handler does: insert in one transaction whose result is the reply, stored
    /// with the key of the keyed write `scope`.
    static func addNote(_ database: SousDatabase, _ scope: IdempotencyScope?) throws -> [UInt8] {
        let reply = try database.write(idempotent: scope) { session -> Reply in
            Reply(id: try session.value(Int64.self, "INSERT INTO note (text) VALUES ('x') RETURNING id") ?? 0)
        }
        return try MessagePackEncoder().encode(reply)
    }

    static func count(_ database: SousDatabase) throws -> Int {
        try database.read { try $0.value(Int.self, "SELECT COUNT(*) FROM note") ?? 0 }
    }

    /// A write's outcome as a handler's: its own ServiceError (a key taken included) kept.
    static func outcome(_ write: () throws -> [UInt8]) -> IdempotencyGuard.Outcome {
        Result { try write() }.mapError { $0 as? ServiceError ?? .internal("write failed: \($0)") }
    }

    @Test(arguments: [KeyCheck.beforeHandler, .atCommit])
    func concurrentAttemptsWithOneKeyRunOnce(keyCheck: KeyCheck) async throws {
        let database = try Self.database(in: nil)
        let guarded = IdempotencyGuard(ledger: database)
        let outcomes = await withTaskGroup(of: IdempotencyGuard.Outcome.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await guarded.perform(
                        user: "ada", key: "k1", method: "notes.add", body: [0x80], keyCheck: keyCheck, reply: Reply.self
                    ) { scope in
                        await Task.yield()
                        return Self.outcome { try Self.addNote(database, scope) }
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(try Self.count(database) == 1)
        let first = try #require(try outcomes.first?.get())
        #expect(outcomes.allSatisfy { (try? $0.get()) == first })
    }

    /// A client's default keys (``UUID/random()``): version-4 UUIDs, never the same twice.
    @Test func defaultKeysAreRandomVersionFourUUIDs() {
        let keys = (0..<10_000).map { _ in UUID.random() }
        #expect(Set(keys).count == keys.count)
        for key in keys.prefix(100) {
            let text = key.uuidString
            #expect(Array(text)[14] == "4", "version 4: \(text)")
            #expect("89AB".contains(Array(text)[19]), "RFC 9562 variant: \(text)")
            #expect(UUID(uuidString: text) == key)
        }
    }

    @Test func keysAreScopedPerUserAndFailuresAreNotRemembered() async throws {
        let guarded = IdempotencyGuard(ledger: MemoryIdempotencyLedger())
        let a = await guarded.perform(user: "ada", key: "k", method: "m", body: [1], reply: Reply.self) { _ in .success([1]) }
        let b = await guarded.perform(user: "bob", key: "k", method: "m", body: [1], reply: Reply.self) { _ in .success([2]) }
        #expect((try? a.get()) == [1] && (try? b.get()) == [2])
        let failed = await guarded.perform(user: "ada", key: "f", method: "m", body: [1], reply: Reply.self) { scope in
            .failure(.unavailable("down"))
        }
        #expect((try? failed.get()) == nil)
        let second = await guarded.perform(user: "ada", key: "f", method: "m", body: [1], reply: Reply.self) { _ in .success([7]) }
        #expect((try? second.get()) == [7])
    }

    @Test func theSameKeyWithAnotherRequestIsAConflict() async throws {
        let guarded = IdempotencyGuard(ledger: MemoryIdempotencyLedger())
        _ = await guarded.perform(user: "ada", key: "k", method: "recipes.create", body: [1], reply: Reply.self) { _ in .success([1]) }
        for (method, body) in [("recipes.delete", [UInt8(1)]), ("recipes.create", [2])] {
            let other = await guarded.perform(user: "ada", key: "k", method: method, body: body, reply: Reply.self) { _ in .success([2]) }
            guard case .failure(let error) = other else {
                Issue.record("expected a conflict for \(method) \(body)")
                continue
            }
            #expect(error.code == .conflict && error.field == "header.idempotencyKey")
        }
        let same = await guarded.perform(user: "ada", key: "k", method: "recipes.create", body: [1], reply: Reply.self) { _ in .success([3]) }
        #expect((try? same.get()) == [1])
    }

    /// The process dies after the write commits and before the reply goes out (here: the
    /// attempt's reply is lost), then restarts on the same file: the retry replays the reply.
    @Test func aWriteWhoseReplyWasLostInACrashIsAppliedOnceAfterRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-idem-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let committed = Mutex<[UInt8]?>(nil)
        do {
            let database = try Self.database(in: directory)
            let lost = await IdempotencyGuard(ledger: database).perform(
                user: "ada", key: "k", method: "notes.add", body: [9], reply: Reply.self
            ) { scope in
                let reply = try? Self.addNote(database, scope)
                committed.withLock { $0 = reply }
                return .failure(.unavailable("the process died before replying"))
            }
            #expect((try? lost.get()) == nil)
        }
        let restarted = try Self.database(in: directory)
        let retried = await IdempotencyGuard(ledger: restarted).perform(
            user: "ada", key: "k", method: "notes.add", body: [9], reply: Reply.self
        ) { scope in
            Issue.record("the write ran a second time")
            return Result { try Self.addNote(restarted, scope) }.mapError { _ in ServiceError.internal("write failed") }
        }
        #expect(try retried.get() == committed.withLock { $0 })
        #expect(try Self.count(restarted) == 1)
    }

    /// A file written with the first layout of the ledger (keyed WITHOUT ROWID, each reply in
    /// the key's B-tree) is brought to the second on open: every remembered write still
    /// replays, new keys are remembered, and a key is found through an index of keys alone.
    @Test func aLedgerOfTheFirstLayoutKeepsEveryRecordWhenOpened() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-idem-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let digest = Sodium.digest([Array("notes.add".utf8), [9]])
        let reply = try MessagePackEncoder().encode(Reply(id: 7))
        do {
            let database = try Self.database(in: directory)
            try await #require(database.sqliteWriter).writeWithoutTransaction { db in
                try db.execute(sql: "DROP TABLE sous_idempotency")
                try db.execute(
                    sql: """
                        CREATE TABLE sous_idempotency (
                            "user" TEXT NOT NULL, key TEXT NOT NULL, method TEXT NOT NULL, digest BLOB NOT NULL,
                            reply BLOB NOT NULL, created_at REAL NOT NULL, PRIMARY KEY ("user", key)
                        ) WITHOUT ROWID
                        """)
                try db.execute(
                    sql: "INSERT INTO sous_idempotency VALUES ('ada', 'k', 'notes.add', ?, ?, ?), ('bob', 'big', 'notes.add', ?, ?, ?)",
                    arguments: [
                        Data(digest), Data(reply), Date().timeIntervalSince1970, Data(digest), Data(repeating: 1, count: 80_000),
                        Date().timeIntervalSince1970,
                    ])
            }
        }
        let reopened = try Self.database(in: directory)
        let schema = try reopened.read { db in try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'sous_idempotency'") }
        #expect(schema?.uppercased().contains("WITHOUT ROWID") == false)
        #expect(try reopened.record(user: "bob", key: "big")?.reply.count == 80_000)
        let replayed = await IdempotencyGuard(ledger: reopened).perform(
            user: "ada", key: "k", method: "notes.add", body: [9], reply: Reply.self
        ) { scope in
            Issue.record("a remembered write ran again")
            return Result { try Self.addNote(reopened, scope) }.mapError { _ in ServiceError.internal("write failed") }
        }
        #expect(try replayed.get() == reply)
        let fresh = await IdempotencyGuard(ledger: reopened).perform(
            user: "ada", key: "new", method: "notes.add", body: [9], reply: Reply.self
        ) { scope in Result { try Self.addNote(reopened, scope) }.mapError { _ in ServiceError.internal("write failed") } }
        #expect(try reopened.record(user: "ada", key: "new")?.reply == (try fresh.get()))
        let plan = try reopened.read { session in
            try session.rows(#"EXPLAIN QUERY PLAN SELECT reply FROM sous_idempotency WHERE "user" = 'ada' AND key = 'k'"#)
                .map { $0["detail"] as String }.joined()
        }
        #expect(plan.contains("sous_idempotency_key"), "\(plan)")
    }

    /// Records past the retention (a day) are forgotten and younger ones kept, with no index of
    /// ages to write on every keyed write: a ledger of the layout that had one loses it on open.
    /// A record stored again keeps its place with its new age, and holds back older ones stored
    /// after it until it is old itself.
    @Test func theLedgerForgetsRecordsPastTheRetentionAndKeepsYoungerOnes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-idem-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = Date()
        let hour: TimeInterval = 3600
        do {
            let database = try Self.database(in: directory)
            try await #require(database.sqliteWriter).writeWithoutTransaction { db in
                try db.execute(sql: "CREATE INDEX sous_idempotency_age ON sous_idempotency (created_at)")
                // In the order they were stored: "renewed" is old, then stored again an hour ago.
                for (key, hoursAgo) in [("old", 30.0), ("renewed", 1), ("older-after", 26), ("day", 23), ("new", 0.5)] {
                    try db.execute(
                        sql:
                            "INSERT INTO sous_idempotency (\"user\", key, method, digest, reply, created_at) VALUES ('ada', ?, 'notes.add', x'00', x'01', ?)",
                        arguments: [key, now.timeIntervalSince1970 - hoursAgo * hour])
                }
            }
        }
        let reopened = try Self.database(in: directory)
        let indexes = try reopened.read { db in
            try db.values(String.self, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sous_idempotency'")
        }
        #expect(indexes == ["sous_idempotency_key"])
        try reopened.pruneLedger(now: now.timeIntervalSince1970)
        func kept() throws -> [String] {
            try reopened.read { db in try db.values(String.self, "SELECT key FROM sous_idempotency ORDER BY id") }
        }
        // "older-after" waits behind the renewed record, which is young; nothing young goes.
        #expect(try kept() == ["renewed", "older-after", "day", "new"])
        try reopened.pruneLedger(now: now.timeIntervalSince1970 + 23.25 * hour)
        #expect(try kept() == ["new"])
        try reopened.pruneLedger(now: now.timeIntervalSince1970 + 48 * hour)
        #expect(try kept() == [])
    }

    /// The same when the write's transaction is not its reply (the handler builds the reply
    /// afterwards): the transaction marks the key applied, so a retry that arrives before the
    /// reply is stored (at another replica, or after the process died) is refused with
    /// `conflict`, and the write is not applied again. Here the first attempt is held between
    /// its commit and its reply while a second guard on the same database (another process)
    /// gets the retry.
    @Test func aWriteWhoseTransactionIsNotItsReplyIsNeverAppliedTwice() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-idem-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Self.database(in: directory)
        let (committed, commit) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            await IdempotencyGuard(ledger: database).perform(user: "ada", key: "k", method: "notes.add", body: [9], reply: Reply.self) { scope in
                // The transaction's value is a row count, not a Reply.
                _ = try? database.write { session in try session.execute("INSERT INTO note (text) VALUES ('x')") }
                commit.yield()
                for await _ in released { break }
                return .failure(.unavailable("the peer this write also needed was down"))
            }
        }
        for await _ in committed { break }
        let other = try Self.database(in: directory)
        let retried = await IdempotencyGuard(ledger: other).perform(
            user: "ada", key: "k", method: "notes.add", body: [9], reply: Reply.self
        ) { scope in
            Issue.record("the write ran a second time")
            return Result { try Self.addNote(other, scope) }.mapError { _ in ServiceError.internal("write failed") }
        }
        // Refused, not applied: the first attempt is still answering, so a retry is asked for.
        let refused = #expect(throws: ServiceError.self) { try retried.get() }
        #expect(refused?.code == .unavailable && refused?.field == "header.idempotencyKey")
        #expect(try Self.count(other) == 1)
        // The first attempt ends in an error: like any failed write it is not remembered.
        release.yield()
        #expect((try? await first.value.get()) == nil)
        #expect(try database.record(user: "ada", key: "k") == nil)

        // A mark left long ago is an attempt that died between its commit and its reply: the
        // write stays applied once, and the retry is told so.
        try database.save(
            IdempotencyRecord(
                user: "ada", key: "dead", method: "notes.add", digest: Sodium.digest([Array("notes.add".utf8), [9]]), reply: [],
                createdAt: Date().addingTimeInterval(-3600)))
        let afterCrash = await IdempotencyGuard(ledger: other).perform(
            user: "ada", key: "dead", method: "notes.add", body: [9], reply: Reply.self
        ) { scope in
            Issue.record("the write ran a second time")
            return .success([0])
        }
        let told = #expect(throws: ServiceError.self) { try afterCrash.get() }
        #expect(told?.code == .conflict && told?.message.contains("already applied") == true)

        // When it answers, the reply the handler built replaces the mark, and a retry replays it.
        let guarded = IdempotencyGuard(ledger: database)
        let reply = try MessagePackEncoder().encode(Reply(id: 42))
        let answered = await guarded.perform(user: "ada", key: "k2", method: "notes.add", body: [9], reply: Reply.self) { scope in
            _ = try? database.write { session in try session.execute("INSERT INTO note (text) VALUES ('y')") }
            return .success(reply)
        }
        let again = await guarded.perform(user: "ada", key: "k2", method: "notes.add", body: [9], reply: Reply.self) { scope in
            Issue.record("the write ran a second time")
            return .success([0])
        }
        #expect(try answered.get() == reply && again.get() == reply)
        #expect(try Self.count(database) == 2)
    }

    /// Checked at commit (``KeyCheck/atCommit``), nothing is read before the handler: a retry
    /// runs it again up to its write, whose transaction finds the key taken and is rolled back,
    /// and gets the first attempt's reply, also after a restart, when its handler now fails
    /// before writing, or writes nothing and answers something else. The same key with another
    /// request is still a conflict; a new key's failure is the handler's own and not remembered.
    @Test func aKeyCheckedAtCommitIsAppliedOnceAndRepliesAsTheFirstAttempt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-idem-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first: [UInt8]
        do {
            let database = try Self.database(in: directory)
            first = try await IdempotencyGuard(ledger: database).perform(
                user: "ada", key: "k", method: "notes.add", body: [9], keyCheck: .atCommit, reply: Reply.self
            ) { scope in Self.outcome { try Self.addNote(database, scope) } }.get()
        }
        let database = try Self.database(in: directory)
        let guarded = IdempotencyGuard(ledger: database)
        let ran = Mutex(0)
        func attempt(
            _ key: String, body: [UInt8] = [9], _ operation: (IdempotencyScope) -> IdempotencyGuard.Outcome
        ) async -> IdempotencyGuard.Outcome {
            await guarded.perform(user: "ada", key: key, method: "notes.add", body: body, keyCheck: .atCommit, reply: Reply.self) { scope in
                ran.withLock { $0 += 1 }
                return operation(scope)
            }
        }
        let write = { (scope: IdempotencyScope) in Self.outcome { try Self.addNote(database, scope) } }

        #expect(try await attempt("k", write).get() == first)
        #expect(try await attempt("k") { _ in .failure(.notFound("no note 7", field: "id")) }.get() == first)
        #expect(try await attempt("k") { _ in .success([0x81, 0xa1, 0x78, 0x01]) }.get() == first)
        #expect(ran.withLock { $0 } == 3, "checked at commit, a retry runs its handler")
        #expect(try Self.count(database) == 1)
        #expect(try database.record(user: "ada", key: "k")?.reply == first)

        for operation in [write, { _ in .failure(.notFound("no note 7", field: "id")) }] {
            let other = await attempt("k", body: [8], operation)
            let refused = #expect(throws: ServiceError.self) { try other.get() }
            #expect(refused?.code == .conflict && refused?.field == "header.idempotencyKey")
        }
        #expect(try Self.count(database) == 1)

        let failed = await attempt("new") { _ in .failure(.badRequest("text is empty", field: "text")) }
        #expect(throws: ServiceError.badRequest("text is empty", field: "text")) { try failed.get() }
        #expect(try database.record(user: "ada", key: "new") == nil)
        let second = try await attempt("new", write).get()
        #expect(second != first)
        #expect(try Self.count(database) == 2)
    }
}
