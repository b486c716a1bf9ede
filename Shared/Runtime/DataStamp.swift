import GRDB
import GRDBSQLite

/// What SQLite's `PRAGMA data_version` says on the I/O thread's reader of a service's file: a
/// number that changes whenever any other connection commits to it (this process's writer, or
/// another process on the same file), and never otherwise.
///
/// So two equal stamps mean nothing was committed between them: a value whose version was
/// confirmed at the first stamp is still current at the second, without reading its version
/// again (``VersionedCache/value(for:confirmedAt:where:)``). A kept answer served on the I/O
/// thread then costs one statement that touches no table instead of a transaction, a query and
/// its rows. Only that one connection gives stamps, since each connection counts for itself:
/// the same number from another would mean nothing.
public struct DataStamp: Equatable, Sendable {
    let version: Int64

    /// The stamp of `db` now: outside a transaction the latest, inside one its snapshot's.
    /// Stepped by hand: GRDB's generic `fetchOne` (a cursor, witness tables, metadata) cost four
    /// times the statement on the I/O thread.
    static func read(_ db: Database) throws -> DataStamp {
        let statement = try db.cachedStatement(sql: "PRAGMA data_version").sqliteStatement
        defer { sqlite3_reset(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_ROW else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "PRAGMA data_version gave no row", sql: "PRAGMA data_version")
        }
        return DataStamp(version: sqlite3_column_int64(statement, 0))
    }
}
