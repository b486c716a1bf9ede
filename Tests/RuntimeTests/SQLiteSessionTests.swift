import Foundation
import GRDB
import SousRuntime
import Testing

/// A SQLite session binds and steps row statements itself (``SQLSession/execute(_:_:)``): every
/// kind of value goes in as it would through GRDB, SQLite's errors come out as GRDB's, and a
/// schema change still goes through GRDB.
struct SQLiteSessionTests {
    static func withTable(_ body: (SousDatabase) throws -> Void) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE value (id INTEGER PRIMARY KEY, number INTEGER, real REAL, text TEXT UNIQUE, bytes BLOB, flag INTEGER)")
        }
        try body(try SousDatabase(name: "values", directory: nil, migrator: migrator))
    }

    @Test func everyKindOfValueIsStoredAsGiven() throws {
        try Self.withTable { database in
            let text = "crème brûlée 🍮"
            let bytes = Data([0, 1, 2, 255])
            let changed = try database.write { session in
                try session.execute(
                    "INSERT INTO value (id, number, real, text, bytes, flag) VALUES (?, ?, ?, ?, ?, ?)",
                    [1, Int64.max, -0.5, text, bytes, true])
                    + session.execute(
                        "INSERT INTO value (id, number, real, text, bytes, flag) VALUES (?, ?, ?, ?, ?, ?)", [2, nil, nil, nil, nil, nil])
            }
            #expect(changed == 2)
            let rows = try database.read { session in try session.rows("SELECT * FROM value ORDER BY id") }
            #expect(rows[0]["number"] as Int64 == Int64.max && rows[0]["real"] as Double == -0.5 && rows[0]["flag"] as Bool == true)
            #expect(rows[0]["text"] as String == text)
            #expect(rows[0]["bytes"] as Data == bytes)
            #expect(rows[1].databaseValues.dropFirst().allSatisfy { $0.isNull })
            // Run again with other values: nothing of the first binding is left over.
            let updated = try database.write { session in try session.execute("UPDATE value SET text = ? WHERE id = ?", ["other", 2]) }
            #expect(updated == 1)
            #expect(try database.read { session in try session.value(String.self, "SELECT text FROM value WHERE id = 1") } == text)
            // A text is bound as GRDB binds it, so a read bound by GRDB finds what was written.
            let withNul = "before\u{0}after"
            try database.write { session in try session.execute("UPDATE value SET text = ? WHERE id = ?", [withNul, 2]) }
            let found = try database.read { session in try session.value(Int.self, "SELECT id FROM value WHERE text = ?", [withNul]) }
            #expect(found == 2)
        }
    }

    @Test func sqliteErrorsComeOutAsGRDBsAndLeaveNothingWritten() throws {
        try Self.withTable { database in
            try database.write { session in try session.execute("INSERT INTO value (id, text) VALUES (?, ?)", [1, "same"]) }
            let clash = #expect(throws: DatabaseError.self) {
                try database.write { session in
                    try session.execute("INSERT INTO value (id, text) VALUES (?, ?)", [2, "first"])
                    try session.execute("INSERT INTO value (id, text) VALUES (?, ?)", [3, "same"])
                }
            }
            #expect(clash?.resultCode == .SQLITE_CONSTRAINT && clash?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
            #expect(clash?.message?.contains("value.text") == true)
            #expect(try database.read { session in try session.value(Int.self, "SELECT COUNT(*) FROM value") } == 1)
            let wrongCount = #expect(throws: DatabaseError.self) {
                try database.write { session in try session.execute("INSERT INTO value (id, text) VALUES (?, ?)", [4]) }
            }
            #expect(wrongCount?.message?.contains("arguments") == true, "\(String(describing: wrongCount))")
        }
    }

    @Test func aSchemaChangeThroughTheSessionIsSeenByTheNextStatements() throws {
        try Self.withTable { database in
            try database.write { session in
                try session.execute("ALTER TABLE value ADD COLUMN note TEXT")
                try session.execute("INSERT INTO value (id, note) VALUES (?, ?)", [1, "added"])
            }
            #expect(try database.read { session in try session.values(String.self, "SELECT name FROM pragma_table_info('value')") }.contains("note"))
            #expect(try database.read { session in try session.value(String.self, "SELECT note FROM value") } == "added")
        }
    }

    /// A single value read without building rows, as the rows would give it.
    @Test func aSingleValueIsReadAsTheRowsWouldGiveIt() throws {
        try Self.withTable { database in
            try database.write { session in
                try session.execute("INSERT INTO value (id, number, real, text, flag) VALUES (1, 7, 2.5, 'seven', 1), (2, NULL, NULL, NULL, 0)")
            }
            try database.read { (session: any SQLSession) throws -> Void in
                #expect(try session.value(Int.self, "SELECT number FROM value WHERE id = ?", [1]) == 7)
                #expect(try session.value(Double.self, "SELECT real FROM value WHERE id = ?", [1]) == 2.5)
                #expect(try session.value(String.self, "SELECT text FROM value WHERE id = ?", [1]) == "seven")
                #expect(try session.value(Bool.self, "SELECT flag FROM value WHERE id = ?", [2]) == false)
                #expect(try session.value(Int.self, "SELECT number FROM value WHERE id = ?", [2]) == nil, "NULL")
                #expect(try session.value(Int.self, "SELECT number FROM value WHERE id = ?", [3]) == nil, "no row")
                #expect(try session.value(Int.self, "SELECT id FROM value ORDER BY id DESC") == 2, "the first of several rows")
                #expect(try session.value(Int.self, "SELECT id, number FROM value WHERE id = 1") == nil, "not a single column")
                #expect(throws: DatabaseError.self) { try session.value(Int.self, "SELECT text FROM value WHERE id = 1") }
                #expect(throws: DatabaseError.self) { try session.value(Int.self, "SELECT number FROM value WHERE id = ?", []) }
            }
            // A change that answers with RETURNING is made, every row of it.
            let returned = try database.write { session in try session.value(Int.self, "UPDATE value SET number = 40 + id RETURNING number") }
            #expect(returned == 41 || returned == 42)
            #expect(try database.read { session in try session.values(Int.self, "SELECT number FROM value ORDER BY id") } == [41, 42])
        }
    }

    struct Note: SQLRecord {
        static let tableName = "value"
        static let columnNames = ["id", "text"]
        static let primaryKey = ["id"]
        var id: Int
        var text: String
        var values: SQLArguments { [id, text] }

        init(id: Int, text: String) {
            self.id = id
            self.text = text
        }

        init(row: Row) throws {
            id = row["id"]
            text = row["text"]
        }
    }

    /// Many records go in a few statements of at most `rowsPerInsert` rows, each conflict rule
    /// as for one record at a time.
    @Test func manyRecordsAreInsertedInAFewStatementsUnderEachConflictRule() throws {
        try Self.withTable { database in
            let notes = (1...70).map { Note(id: $0, text: "note \($0)") }
            #expect(try database.write { session in try session.insert(all: notes) } == 70)
            let stored = try database.read { session in try session.fetchAll(Note.self, "SELECT id, text FROM value ORDER BY id") }
            #expect(stored.map(\.id) == Array(1...70) && stored.map(\.text) == notes.map(\.text))

            let again = [Note(id: 3, text: "changed"), Note(id: 71, text: "new")]
            #expect(try database.write { session in try session.insert(all: again, onConflict: .ignore) } == 1)
            #expect(try database.read { session in try session.value(String.self, "SELECT text FROM value WHERE id = 3") } == "note 3")
            #expect(try database.write { session in try session.insert(all: again, onConflict: .replace) } == 2)
            #expect(try database.read { session in try session.value(String.self, "SELECT text FROM value WHERE id = 3") } == "changed")
            #expect(throws: DatabaseError.self) {
                try database.write { session in try session.insert(all: [Note(id: 72, text: "x"), Note(id: 1, text: "y")]) }
            }
            #expect(
                try database.read { session in try session.value(Int.self, "SELECT COUNT(*) FROM value") } == 71, "nothing of the failed insert")
            #expect(try database.write { session in try session.insert(all: [Note]()) } == 0)
        }
    }
}
