public import Foundation
import GRDB

/// What a service must send out of its process (mail today), written in the same transaction
/// as the change that calls for it and delivered afterwards by ``OutboxCourier``: a change that
/// rolls back sends nothing, and one that commits is sent even if the process dies a moment
/// later.
///
/// The table is the same on both engines; a service adds ``tables`` to its migrations.
public enum Outbox {
    public static let tables = [
        """
        CREATE TABLE sous_outbox (
            id TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            recipient TEXT NOT NULL,
            "user" TEXT,
            payload TEXT NOT NULL,
            dedupe TEXT UNIQUE,
            created_at DOUBLE PRECISION NOT NULL,
            due_at DOUBLE PRECISION NOT NULL,
            attempts BIGINT NOT NULL,
            state TEXT NOT NULL,
            last_error TEXT,
            done_at DOUBLE PRECISION
        )
        """,
        "CREATE INDEX sous_outbox_due ON sous_outbox (state, due_at)",
        #"CREATE INDEX sous_outbox_user ON sous_outbox ("user", created_at)"#,
    ]

    /// A message is given up, marked failed with its last reason, a day after it was queued.
    public static let giveUpAfter: TimeInterval = 24 * 3600
    /// While one attempt runs, no other process or loop takes the message (longer than any attempt's own bounds).
    static let lease: TimeInterval = 600
    /// The pause after the n-th failed attempt: 30 s, doubling, at most an hour.
    static func backoff(afterAttempt attempts: Int) -> TimeInterval {
        min(30 * pow(2, Double(max(0, min(attempts - 1, 16)))), 3600)
    }
    /// Sent and failed messages are kept this long (for what `reminders list` shows), then dropped.
    static let retention: TimeInterval = 30 * 24 * 3600

    public enum State: String, Sendable, Codable {
        case pending, sent, failed
        /// Written and never sent: the same write as a real message where the work a request
        /// does must not tell whether it sent one (``enqueue(channel:recipient:user:payload:dedupe:delay:sending:now:_:)``).
        case decoy
    }

    public struct Item: Sendable, Equatable {
        public let id: String
        public let channel: String
        public let recipient: String
        public let user: String?
        public let payload: String
        public let dedupe: String?
        public let createdAt: Date
        public let dueAt: Date
        public let attempts: Int
        public let state: State
        public let lastError: String?
        public let doneAt: Date?

        /// The payload as the type it was queued as.
        public func decoded<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONDecoder().decode(T.self, from: Data(payload.utf8))
        }
    }

    /// Queues `payload` for `channel` within the caller's write, due after `delay`. A `dedupe`
    /// key already queued queues nothing and returns false (one reminder per user, day and
    /// channel, say). With `sending` false the row is written alike but as a ``State/decoy``,
    /// never sent.
    @discardableResult
    public static func enqueue(
        channel: String, recipient: String, user: String?, payload: some Encodable, dedupe: String? = nil, delay: TimeInterval = 0,
        sending: Bool = true, now: Date, _ session: any SQLSession
    ) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(payload), as: UTF8.self)
        if let dedupe, try session.value(Int64.self, "SELECT COUNT(*) FROM sous_outbox WHERE dedupe = ?", [dedupe]) ?? 0 > 0 {
            return false
        }
        try session.execute(
            """
            INSERT INTO sous_outbox (id, channel, recipient, "user", payload, dedupe, created_at, due_at, attempts, state, done_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
            """,
            [
                UUID().uuidString.lowercased(), channel, recipient, user, text, dedupe, now.timeIntervalSince1970,
                now.timeIntervalSince1970 + delay, sending ? State.pending.rawValue : State.decoy.rawValue,
                sending ? nil : now.timeIntervalSince1970,
            ])
        return true
    }

    /// Takes up to `limit` messages due at `now`, leasing them to the caller for ``lease``. On
    /// PostgreSQL the rows are locked as they are read and other replicas skip them, so each
    /// message goes to one courier.
    package static func claimDue(now: Date, limit: Int, _ session: any SQLSession) throws -> [Item] {
        let rows = try session.rows(
            "SELECT \(columns) FROM sous_outbox WHERE state = 'pending' AND due_at <= ? ORDER BY due_at LIMIT ?"
                + (session.engine == .postgres ? " FOR UPDATE SKIP LOCKED" : ""),
            [now.timeIntervalSince1970, Int64(limit)])
        let items = rows.map(item)
        var start = 0
        while start < items.count {
            let chunk = items[start..<min(start + 500, items.count)]
            start += chunk.count
            try session.execute(
                "UPDATE sous_outbox SET attempts = attempts + 1, due_at = ? WHERE id IN ("
                    + Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    + ")",
                [now.timeIntervalSince1970 + lease] + chunk.map(\.id))
        }
        return items.map { $0.attempted(dueAt: now.addingTimeInterval(lease)) }
    }

    /// Queues many messages within the caller's write, in statements of a hundred rows; a row
    /// whose `dedupe` key is queued already is skipped. Returns how many were queued.
    @discardableResult
    public static func enqueue(_ messages: [Message], now: Date, _ session: any SQLSession) throws -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var queued = 0
        var start = 0
        while start < messages.count {
            let chunk = messages[start..<min(start + 100, messages.count)]
            start += chunk.count
            var arguments: SQLArguments = []
            arguments.reserveCapacity(chunk.count * 8)
            for message in chunk {
                arguments += [
                    message.id, message.channel, message.recipient, message.user,
                    String(decoding: try encoder.encode(message.payload), as: UTF8.self), message.dedupe, now.timeIntervalSince1970,
                    now.timeIntervalSince1970 + message.delay,
                ]
            }
            queued += try session.execute(
                """
                INSERT INTO sous_outbox (id, channel, recipient, "user", payload, dedupe, created_at, due_at, attempts, state)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, 0, 'pending')", count: chunk.count).joined(separator: ", "))
                ON CONFLICT (dedupe) DO NOTHING
                """, arguments)
        }
        return queued
    }

    /// One message to queue with ``enqueue(_:now:_:)``.
    public struct Message: Sendable {
        /// Its id in the outbox (what ``Item/id`` will be).
        public var id: String
        public var channel: String
        public var recipient: String
        public var user: String?
        public var payload: any Encodable & Sendable
        public var dedupe: String?
        public var delay: TimeInterval

        public init(
            id: String = UUID().uuidString.lowercased(), channel: String, recipient: String, user: String?, payload: any Encodable & Sendable,
            dedupe: String?, delay: TimeInterval = 0
        ) {
            self.id = id
            self.channel = channel
            self.recipient = recipient
            self.user = user
            self.payload = payload
            self.dedupe = dedupe
            self.delay = delay
        }
    }

    /// One message, by id.
    public static func item(_ id: String, _ session: any SQLSession) throws -> Item? {
        try session.rows("SELECT \(columns) FROM sous_outbox WHERE id = ?", [id]).first.map(item)
    }

    /// When the next pending message is due, if any is.
    static func nextDue(_ session: any SQLSession) throws -> Date? {
        try session.value(Double.self, "SELECT MIN(due_at) FROM sous_outbox WHERE state = 'pending'").map(Date.init(timeIntervalSince1970:))
    }

    /// A message the channel took. Its payload is emptied: what it said (a recovery code, say)
    /// stays in the database only until it has left.
    static func sent(_ id: String, now: Date, _ session: any SQLSession) throws {
        try session.execute(
            "UPDATE sous_outbox SET state = 'sent', done_at = ?, last_error = NULL, payload = '' WHERE id = ?", [now.timeIntervalSince1970, id])
    }

    /// A failed attempt: tried again after the backoff, or failed for good (returns true then).
    @discardableResult
    static func failed(_ item: Item, reason: String, permanent: Bool, now: Date, _ session: any SQLSession) throws -> Bool {
        let reason = String(reason.prefix(500))
        if permanent || now.timeIntervalSince(item.createdAt) + backoff(afterAttempt: item.attempts) >= giveUpAfter {
            try session.execute(
                "UPDATE sous_outbox SET state = 'failed', done_at = ?, last_error = ?, payload = '' WHERE id = ?",
                [now.timeIntervalSince1970, permanent ? reason : "undelivered for a day; last: \(reason)", item.id])
            return true
        } else {
            try session.execute(
                "UPDATE sous_outbox SET due_at = ?, last_error = ? WHERE id = ?",
                [now.timeIntervalSince1970 + backoff(afterAttempt: item.attempts), reason, item.id])
            return false
        }
    }

    /// Drops what was sent or failed before the retention.
    static func prune(now: Date, _ session: any SQLSession) throws {
        try session.execute("DELETE FROM sous_outbox WHERE state <> 'pending' AND done_at < ?", [now.timeIntervalSince1970 - retention])
    }

    /// Every message of `user`, newest first (what was sent, when, or why not).
    public static func items(user: String, _ session: any SQLSession) throws -> [Item] {
        try session.rows(#"SELECT \#(columns) FROM sous_outbox WHERE "user" = ? ORDER BY created_at DESC"#, [user]).map(item)
    }

    /// Erases `user`'s messages, sent or not (an erased account gets no more mail).
    public static func erase(user: String, _ session: any SQLSession) throws {
        try session.execute(#"DELETE FROM sous_outbox WHERE "user" = ?"#, [user])
    }

    private static let columns = #"id, channel, recipient, "user", payload, dedupe, created_at, due_at, attempts, state, last_error, done_at"#

    private static func item(_ row: Row) -> Item {
        Item(
            id: row["id"], channel: row["channel"], recipient: row["recipient"], user: row["user"], payload: row["payload"], dedupe: row["dedupe"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]), dueAt: Date(timeIntervalSince1970: row["due_at"]),
            attempts: Int(row["attempts"] as Int64), state: State(rawValue: row["state"]) ?? .failed, lastError: row["last_error"],
            doneAt: (row["done_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

extension Outbox.Item {
    func attempted(dueAt: Date) -> Self {
        Self(
            id: id, channel: channel, recipient: recipient, user: user, payload: payload, dedupe: dedupe, createdAt: createdAt, dueAt: dueAt,
            attempts: attempts + 1, state: state, lastError: lastError, doneAt: doneAt)
    }
}
