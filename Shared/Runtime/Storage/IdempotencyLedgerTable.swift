import Foundation
import GRDB
import Synchronization

extension SousDatabase: IdempotencyLedger {
    public func record(user: String, key: String) throws -> IdempotencyRecord? {
        try read { session in try IdempotencyLedgerTable.fetch(user: user, key: key, session) }
    }

    /// Called by the guard after the write, outside its scope (so `writing` stores nothing else).
    public func save(_ record: IdempotencyRecord) throws {
        try write { session in try IdempotencyLedgerTable.save(record, session) }
    }

    /// Prunes the ledger as its writes do every ``IdempotencyLedgerTable/pruneEvery`` saves, as
    /// of `now` (seconds since 1970).
    package func pruneLedger(now: Double) throws {
        try write { session in try IdempotencyLedgerTable.prune(session, now: Date(timeIntervalSince1970: now)) }
    }

    public func forgetMark(user: String, key: String) throws {
        try write { session in
            try session.execute(
                "DELETE FROM sous_idempotency WHERE \"user\" = ? AND key = ? AND \(engine == .postgres ? "octet_length" : "length")(reply) = 0",
                [user, key])
        }
    }
}

/// Striped locks by user: the writes of one user through one database handle run one at a time.
final class UserWriteLocks: Sendable {
    private let stripes = (0..<64).map { _ in NSLock() }

    func withLock<T>(for user: String, _ body: () throws -> T) throws -> T {
        var hasher = Hasher()
        hasher.combine(user)
        return try stripes[Int(UInt(bitPattern: hasher.finalize()) % UInt(stripes.count))].withLock { try body() }
    }
}

/// The runtime's own table in every service's database: one row per keyed write, kept for
/// ``retention`` and within ``maxReplyBytes`` in all (oldest dropped first).
enum IdempotencyLedgerTable {
    static let retention: TimeInterval = 24 * 3600
    static let maxReplyBytes = 64 << 20
    /// Pruning runs on every this many saves, inside the saving transaction.
    static let pruneEvery = 256
    private static let saves = Atomic<Int>(0)

    /// Creates the table on SQLite, or brings an earlier layout up to date.
    ///
    /// The first layout was keyed by (user, key) WITHOUT ROWID, so each reply lay in the key's
    /// own B-tree, and SQLite reads a cell's whole payload, overflow pages included, to compare
    /// a key with a cell that overflows: finding or placing a key read every reply it passed,
    /// 80 KB for a whole grocery list (the check before a keyed write and its insert were a
    /// third of `groceries.addRecipe`'s thread). Rows now have a rowid and the key an index of
    /// its own, which holds the keys alone.
    ///
    /// The second layout also indexed `created_at` for pruning by age: one more page to write
    /// and sync in every keyed write. Rowids follow the order rows were stored in, the order of
    /// age, so pruning walks them instead (``prune(_:now:)``) and that index is dropped.
    static func create(_ session: any SQLSession) throws {
        let firstLayout =
            try session.value(String.self, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sous_idempotency'")?
            .uppercased().contains("WITHOUT ROWID") == true
        if firstLayout {
            try session.execute("DROP INDEX IF EXISTS sous_idempotency_age")
            try session.execute("ALTER TABLE sous_idempotency RENAME TO sous_idempotency_first")
        }
        try session.execute(
            """
            CREATE TABLE IF NOT EXISTS sous_idempotency (
                id INTEGER PRIMARY KEY, "user" TEXT NOT NULL, key TEXT NOT NULL, method TEXT NOT NULL, digest BLOB NOT NULL,
                reply BLOB NOT NULL, created_at REAL NOT NULL
            )
            """)
        try session.execute(#"CREATE UNIQUE INDEX IF NOT EXISTS sous_idempotency_key ON sous_idempotency ("user", key)"#)
        try session.execute("DROP INDEX IF EXISTS sous_idempotency_age")
        if firstLayout {
            try session.execute(
                """
                INSERT INTO sous_idempotency ("user", key, method, digest, reply, created_at)
                SELECT "user", key, method, digest, reply, created_at FROM sous_idempotency_first
                """)
            try session.execute("DROP TABLE sous_idempotency_first")
        }
    }

    /// The same table on PostgreSQL, in each service's schema.
    static let postgresMigrations = [
        PostgresMigration(
            "sous v1: idempotency ledger",
            [
                """
                CREATE TABLE sous_idempotency (
                    "user" TEXT NOT NULL, key TEXT NOT NULL, method TEXT NOT NULL, digest BYTEA NOT NULL,
                    reply BYTEA NOT NULL, created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY ("user", key)
                )
                """,
                "CREATE INDEX sous_idempotency_age ON sous_idempotency (created_at)",
            ])
    ]

    static func fetch(user: String, key: String, _ session: any SQLSession) throws -> IdempotencyRecord? {
        // Nearly every key is new: that answer is one value read without building rows (a
        // third of the lookup's cost), and the record is read only when there is one.
        guard try session.value(Int.self, "SELECT 1 FROM sous_idempotency WHERE \"user\" = ? AND key = ?", [user, key]) != nil else {
            return nil
        }
        guard
            let row = try session.rows("SELECT method, digest, reply, created_at FROM sous_idempotency WHERE \"user\" = ? AND key = ?", [user, key])
                .first
        else {
            return nil
        }
        let digest: Data = row["digest"]
        let reply: Data = row["reply"]
        return IdempotencyRecord(
            user: user, key: key, method: row["method"], digest: [UInt8](digest), reply: [UInt8](reply),
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    /// Stores `record` unless its key is already stored; false then.
    static func insert(_ record: IdempotencyRecord, _ session: any SQLSession) throws -> Bool {
        let inserted = try session.execute(
            """
            INSERT INTO sous_idempotency ("user", key, method, digest, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT ("user", key) DO NOTHING
            """,
            [record.user, record.key, record.method, Data(record.digest), Data(record.reply), record.createdAt.timeIntervalSince1970])
        if saves.add(1, ordering: .relaxed).newValue % pruneEvery == 0 { try prune(session) }
        return inserted == 1
    }

    static func save(_ record: IdempotencyRecord, _ session: any SQLSession) throws {
        try session.execute(
            """
            INSERT INTO sous_idempotency ("user", key, method, digest, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT ("user", key) DO UPDATE SET method = excluded.method, digest = excluded.digest, reply = excluded.reply,
            created_at = excluded.created_at
            """,
            [record.user, record.key, record.method, Data(record.digest), Data(record.reply), record.createdAt.timeIntervalSince1970])
        if saves.add(1, ordering: .relaxed).newValue % pruneEvery == 0 { try prune(session) }
    }

    /// Drops the records older than ``retention``, then the oldest until the replies fit in
    /// ``maxReplyBytes``.
    ///
    /// On SQLite, which keeps no index of ages, the records before the first one young enough
    /// to keep, in rowid order (the order they were stored in), go: a walk over rows that are
    /// going anyway. A record stored again later (``save(_:_:)``) keeps its rowid with a newer
    /// age and holds back the ones after it until it is old itself; no record younger than the
    /// retention is ever dropped by age.
    static func prune(_ session: any SQLSession, now: Date = Date()) throws {
        let oldestKept = now.timeIntervalSince1970 - retention
        switch session.engine {
        case .sqlite:
            try session.execute(
                """
                DELETE FROM sous_idempotency WHERE id < COALESCE(
                    (SELECT id FROM sous_idempotency WHERE created_at >= ? ORDER BY id LIMIT 1), (SELECT MAX(id) + 1 FROM sous_idempotency))
                """, [oldestKept])
        case .postgres:
            try session.execute("DELETE FROM sous_idempotency WHERE created_at < ?", [oldestKept])
        }
        let size = session.engine == .postgres ? "octet_length(reply)" : "length(reply)"
        let storedOrder = session.engine == .postgres ? "created_at" : "id"
        var total = try session.value(Int.self, "SELECT COALESCE(SUM(\(size)), 0) FROM sous_idempotency") ?? 0
        while total > maxReplyBytes {
            let oldest = try session.rows("SELECT \"user\", key, \(size) AS size FROM sous_idempotency ORDER BY \(storedOrder) LIMIT 100")
            guard !oldest.isEmpty else { break }
            for row in oldest {
                try session.execute("DELETE FROM sous_idempotency WHERE \"user\" = ? AND key = ?", [row["user"] as String, row["key"] as String])
                total -= row["size"] as Int
            }
        }
    }
}
