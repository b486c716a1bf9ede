import Foundation
import GRDB
import SousRuntime
import Testing

/// What the I/O thread's reader says about commits (``DataStamp``), and what a kept value may
/// be served at: a stamp moves with every commit by anyone, and only a value confirmed at the
/// current stamp is served without reading its version.
struct DataStampTests {
    /// A notes database in a file of its own (stamps exist only there).
    static func withNotes(_ body: (SousDatabase, String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-stamp-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") }
        let database = try SousDatabase(name: "notes", directory: directory, migrator: migrator)
        try body(database, database.path)
    }

    /// The stamp now, as a quick read on the I/O thread sees it.
    static func stamp(_ database: SousDatabase) throws -> DataStamp? {
        try QuickReadBudget.running(within: .seconds(30)) { database.currentStamp }
    }

    static func addNote(_ database: SousDatabase) throws {
        try database.writing { session in try session.execute("INSERT INTO note (text) VALUES ('x')") }
    }

    @Test func everyCommitByAnyConnectionMovesTheStampAndNothingElseDoes() throws {
        try Self.withNotes { database, path in
            let first = try #require(try Self.stamp(database))
            _ = try database.reading { session in try session.rows("SELECT * FROM note") }
            #expect(try Self.stamp(database) == first, "reads change nothing")

            try Self.addNote(database)
            let afterWrite = try #require(try Self.stamp(database))
            #expect(afterWrite != first)

            // Another connection to the file, as another process would write it.
            let outside = try DatabaseQueue(path: path)
            try outside.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('y')") }
            let afterOutside = try #require(try Self.stamp(database))
            #expect(afterOutside != afterWrite)

            // A read transaction's own stamp is that of its snapshot.
            let inside = try QuickReadBudget.running(within: .seconds(30)) { try database.reading { session in try session.dataStamp } }
            #expect(inside == afterOutside)
        }
    }

    @Test func noStampsOffTheIOThreadInMemoryOrWithoutAFile() throws {
        try Self.withNotes { database, _ in
            #expect(database.currentStamp == nil, "not a quick read on the I/O thread")
            let laneStamp = try database.reading { session in try session.dataStamp }
            #expect(laneStamp == nil, "a lane's reader")
        }
        let memory = try SousDatabase(name: "notes", directory: nil, migrator: DatabaseMigrator())
        #expect(try Self.stamp(memory) == nil)
    }

    @Test func aKeptValueIsServedUnreadOnlyAtTheStampItWasConfirmedAt() throws {
        try Self.withNotes { database, _ in
            let cache = VersionedCache<String, Int, String>(capacity: 8)
            let first = try #require(try Self.stamp(database))

            cache.store("built by a lane", for: "ada", at: 1)
            #expect(cache.value(for: "ada", confirmedAt: first) == nil, "stored without a stamp: never confirmed")
            #expect(cache.value(for: "ada", at: 1, confirmedAt: first) == "built by a lane")
            #expect(cache.value(for: "ada", confirmedAt: first) == "built by a lane", "its version read at this stamp")
            #expect(cache.value(for: "ada", confirmedAt: first, where: { $0 == 2 }) == nil, "a part of its version elsewhere has moved")

            try Self.addNote(database)
            let second = try #require(try Self.stamp(database))
            #expect(cache.value(for: "ada", confirmedAt: second) == nil, "something was committed since")
            #expect(cache.value(for: "ada", at: 2, confirmedAt: second) == nil, "and its version moved")

            cache.store("built again", for: "ada", at: 2, confirmedAt: second)
            #expect(cache.value(for: "ada", confirmedAt: second) == "built again")
            // What a store asks on the I/O thread: the same, at the database's stamp now.
            #expect(try QuickReadBudget.running(within: .seconds(30)) { cache.currentValue(for: "ada", in: database) } == "built again")
            #expect(cache.currentValue(for: "ada", in: database) == nil, "off the I/O thread: read the version")
            cache.store("replaced without a stamp", for: "ada", at: 3)
            #expect(cache.value(for: "ada", confirmedAt: second) == nil, "a replaced value is not confirmed")
        }
    }
}
