import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Reads of the `quick` lane (``MethodLane/quick``): answered on the I/O thread when the
/// database is SQLite, on the standard lane past the budget, when the handler asks to, and
/// whenever the database is elsewhere. Each handler reports the thread it ran on.
@Suite(.closesItsSockets)
struct QuickReadTests {
    struct Answer: Codable, Sendable, Equatable {
        var count: Int
        var thread: String
    }

    struct Ask: Codable, Sendable {
        /// Rows the handler's query counts (a recursive CTE: millions take far past the budget).
        var rows: Int
        var yield: Bool = false
        var fail: Bool = false
    }

    static let read = Method<Notes, Ask, Answer>.read("notes.quick", .user, lane: .quick, activity: false)

    /// The name of the thread running now, as the server named it.
    static var threadName: String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    /// A heavy read with a kept answer: kept unless the request says `yield`.
    static let search = Method<Notes, Ask, Answer>.read("notes.search", .user, lane: .heavy, activity: false)

    static func register(on host: ServiceHost, count: @escaping @Sendable (Int) throws -> Int) {
        host.server.register(read) { ask, _ in
            if ask.fail { throw ServiceError.notFound("no such note", field: "rows") }
            if ask.yield { try QuickReadBudget.yieldToLane() }
            return Answer(count: try count(ask.rows), thread: threadName)
        }
        host.server.register(
            search,
            keptAnswer: { ask, _, _ in
                if ask.fail { throw ServiceError.notFound("no such note", field: "rows") }
                return ask.yield ? nil : Answer(count: try count(ask.rows), thread: threadName)
            },
            use: { ask, _, _ in Answer(count: try count(ask.rows), thread: threadName) })
    }

    static func countingQuery(_ database: SousDatabase) -> @Sendable (Int) throws -> Int {
        { rows in
            try database.reading { session in
                try session.value(
                    Int.self, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT COUNT(*) FROM c", [rows]) ?? 0
            }
        }
    }

    /// - Parameters:
    ///   - budget: the quick reads' budget (the default unless given).
    ///   - directory: where the database file is (in memory unless given).
    func notesHost(budget: Duration? = nil, directory: String? = nil) throws -> (ServiceHost, SousDatabase) {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note (text TEXT NOT NULL)") }
        let database = try SousDatabase(name: "notes", directory: directory, migrator: migrator)
        var configuration = ServiceConfiguration.inProcess(.catalog)
        if let budget { configuration.serverOptions.quickReadBudget = budget }
        let host = try ServiceHost(configuration: configuration, logger: quietLogger("notes"), database: database)
        Self.register(on: host, count: Self.countingQuery(database))
        return (host, database)
    }

    @Test func aQuickReadOnSQLiteIsAnsweredOnTheIOThread() async throws {
        let (host, _) = try notesHost()
        try await withRunningService(host) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(30))
            let answer = try await client.call(Self.read, Ask(rows: 10), user: "ada")
            #expect(answer == Answer(count: 10, thread: "sous-catalog-io"))
            // Errors are replies as on any lane, typed and naming the field.
            let error = await #expect(throws: ServiceError.self) { try await client.call(Self.read, Ask(rows: 1, fail: true), user: "ada") }
            #expect(error?.code == .notFound)
            #expect(error?.field == "rows")
            // The gate still runs first.
            let anonymous = await #expect(throws: ServiceError.self) { try await client.call(Self.read, Ask(rows: 1)) }
            #expect(anonymous?.code == .unauthorized)
        }
    }

    /// A SQLite file is read on the I/O thread through a connection of its own, not the pool's:
    /// each quick read sees every write committed before it (here made through the pool's
    /// writer, as a lane's write is), and a statement that writes is refused.
    @Test func aQuickReadOnAFileSeesEveryWriteCommittedBeforeIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (host, database) = try notesHost(directory: directory)
        let notes = Method<Notes, Ask, Answer>.read("notes.count", .user, lane: .quick, activity: false)
        host.server.register(notes) { ask, _ in
            let count = try database.reading { session in
                if ask.fail { try session.execute("INSERT INTO note (text) VALUES ('from a read')") }
                return try session.value(Int.self, "SELECT COUNT(*) FROM note") ?? -1
            }
            return Answer(count: count, thread: Self.threadName)
        }
        try await withRunningService(host) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(30))
            for written in 1...20 {
                try database.writing { try $0.execute("INSERT INTO note (text) VALUES (?)", ["note \(written)"]) }
                #expect(try await client.call(notes, Ask(rows: 0), user: "ada") == Answer(count: written, thread: "sous-catalog-io"))
            }
            // A read that tries to write fails on the I/O thread's connection and again on the
            // lane's: nothing is written.
            await #expect(throws: ServiceError.self) { try await client.call(notes, Ask(rows: 0, fail: true), user: "ada") }
            #expect(try database.reading { try $0.value(Int.self, "SELECT COUNT(*) FROM note") } == 20)
        }
    }

    /// A quick read whose budget has run out when its transaction begins, or after its
    /// statements when it ends: neither is interrupted half done (BEGIN and COMMIT are prepared
    /// once on the I/O thread's connection, and SQLite counts their steps towards the progress
    /// handler across uses), so no transaction is ever left open on it, which GRDB stops the
    /// process for (seen once in fifty clients' load).
    @Test(arguments: [false, true])
    func aBudgetRunningOutAroundTheTransactionLeavesNoneOpen(beforeItBegins: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SousDatabase(name: "budget", directory: directory, migrator: DatabaseMigrator())
        // A spin, not a wait for another thread: the point is only that the clock passes the budget.
        func passBudget() {
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .microseconds(60) {}
        }
        var answered = 0
        for _ in 0..<3_000 {
            let value = try? QuickReadBudget.running(within: .microseconds(50)) {
                if beforeItBegins { passBudget() }
                return try database.reading { session in
                    let value = try session.value(Int.self, "SELECT 1")
                    if !beforeItBegins { passBudget() }
                    return value
                }
            }
            if value == 1 { answered += 1 }
        }
        #expect(answered > 0)
        #expect(try QuickReadBudget.running(within: .seconds(10)) { try database.reading { try $0.value(Int.self, "SELECT 2") } } == 2)
    }

    /// With a budget of a nanosecond, a statement of many rows is always past it (SQLite looks
    /// at the clock every 1000 steps), on any machine: it is interrupted on the I/O thread, and
    /// the same request is answered whole by the lane, within the usual 2 s limit. The same on
    /// a file, read on the I/O thread through its own connection.
    @Test(arguments: [false, true])
    func aQuickReadPastItsBudgetIsAnsweredWholeOnTheStandardLane(onAFile: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (host, _) = try notesHost(budget: .nanoseconds(1), directory: onAFile ? directory : nil)
        try await withRunningService(host) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(60))
            let answer = try await client.call(Self.read, Ask(rows: 100_000), user: "ada")
            #expect(answer == Answer(count: 100_000, thread: "sous-catalog-st"))
            // The I/O thread is not marked by it: the next quick read is answered there again.
            #expect(try await client.call(Self.read, Ask(rows: 2), user: "ada") == Answer(count: 2, thread: "sous-catalog-io"))
        }
    }

    @Test func aQuickReadThatYieldsIsAnsweredOnTheStandardLane() async throws {
        let (host, _) = try notesHost()
        try await withRunningService(host) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(30))
            #expect(try await client.call(Self.read, Ask(rows: 7, yield: true), user: "ada") == Answer(count: 7, thread: "sous-catalog-st"))
        }
    }

    /// A read with a kept answer: given on the I/O thread when kept (errors too, as replies),
    /// on its own lane (heavy, not standard) when not kept or past the budget.
    @Test func aKeptAnswerIsGivenOnTheIOThreadAndAnythingElseOnTheMethodsLane() async throws {
        let (host, _) = try notesHost()
        try await withRunningService(host) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(30))
            #expect(try await client.call(Self.search, Ask(rows: 4), user: "ada") == Answer(count: 4, thread: "sous-catalog-io"))
            #expect(try await client.call(Self.search, Ask(rows: 5, yield: true), user: "ada") == Answer(count: 5, thread: "sous-catalog-he"))
            let error = await #expect(throws: ServiceError.self) { try await client.call(Self.search, Ask(rows: 1, fail: true), user: "ada") }
            #expect(error?.code == .notFound && error?.field == "rows")
            let anonymous = await #expect(throws: ServiceError.self) { try await client.call(Self.search, Ask(rows: 1)) }
            #expect(anonymous?.code == .unauthorized)
        }
        let (slow, _) = try notesHost(budget: .nanoseconds(1))
        try await withRunningService(slow) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(60))
            #expect(try await client.call(Self.search, Ask(rows: 100_000), user: "ada") == Answer(count: 100_000, thread: "sous-catalog-he"))
        }
    }

    /// Replies kept encoded (``EncodedReply``) are sent as they are, on the I/O thread and on
    /// the lanes alike, and read as the method's reply type.
    @Test func encodedRepliesAreAnsweredAsTheirValues() async throws {
        let (host, _) = try notesHost()
        let read = Method<Notes, Ask, Answer>.read("notes.encoded", .user, lane: .quick, activity: false)
        let search = Method<Notes, Ask, Answer>.read("notes.encodedSearch", .user, lane: .heavy, activity: false)
        host.server.register(read) { (ask: Ask, _: String, _: RequestContext) throws -> EncodedReply<Answer> in
            if ask.yield { try QuickReadBudget.yieldToLane() }
            return try EncodedReply(Answer(count: ask.rows, thread: Self.threadName))
        }
        host.server.register(
            search,
            keptEncoded: { ask, _, _ in ask.yield ? nil : try EncodedReply(Answer(count: ask.rows, thread: Self.threadName)) },
            useEncoded: { ask, _, _ in try EncodedReply(Answer(count: ask.rows, thread: Self.threadName)) })
        #expect(try EncodedReply(Answer(count: 3, thread: "x")).decoded() == Answer(count: 3, thread: "x"))
        try await withRunningService(host) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(30))
            #expect(try await client.call(read, Ask(rows: 1), user: "ada") == Answer(count: 1, thread: "sous-catalog-io"))
            #expect(try await client.call(read, Ask(rows: 2, yield: true), user: "ada") == Answer(count: 2, thread: "sous-catalog-st"))
            #expect(try await client.call(search, Ask(rows: 3), user: "ada") == Answer(count: 3, thread: "sous-catalog-io"))
            #expect(try await client.call(search, Ask(rows: 4, yield: true), user: "ada") == Answer(count: 4, thread: "sous-catalog-he"))
            let anonymous = await #expect(throws: ServiceError.self) { try await client.call(read, Ask(rows: 1)) }
            #expect(anonymous?.code == .unauthorized)
        }
    }

    /// A host whose database is not on this machine (here: none) never reads on its I/O thread.
    @Test func withoutALocalDatabaseQuickReadsRunOnTheStandardLane() async throws {
        let host = try ServiceHost(
            configuration: .inProcess(.catalog), logger: quietLogger("notes"), databaseHealth: { DatabaseHealth(status: "none") })
        Self.register(on: host) { rows in rows }
        try await withRunningService(host) { host in
            let client = try host.testClient(as: Notes.self, timeout: .seconds(30))
            #expect(try await client.call(Self.read, Ask(rows: 3), user: "ada") == Answer(count: 3, thread: "sous-catalog-st"))
            #expect(try await client.call(Self.search, Ask(rows: 3), user: "ada") == Answer(count: 3, thread: "sous-catalog-he"))
        }
    }
}
