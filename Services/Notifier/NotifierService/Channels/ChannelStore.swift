import Crypto
import Foundation
import GRDB
import SousCrypto
import SousRuntime
public import SousSchema
import SousWire

/// A channel as the notifier keeps it: with what delivering needs and a list does not show.
public struct StoredChannel: Sendable, Equatable {
    public var channel: ReminderChannel
    public var user: String
    /// The push subscription's keys (push only).
    public var p256dh: String?
    public var auth: String?
    /// The webhook's signing secret.
    public var secret: String?
}

/// The channels users deliver reminders to, their quiet hours, and the notifier's VAPID key.
/// Each function runs in the caller's transaction, so a reminder's decision and its
/// deliveries are written together (``NotifierStore/record(_:at:)``).
enum ChannelStore {
    static let maximumPerUser = 10

    static func channels(of user: String, _ session: any SQLSession) throws -> [StoredChannel] {
        try session.rows(#"SELECT * FROM channel WHERE "user" = ? ORDER BY created_at, id"#, [user]).map(stored)
    }

    static func channel(_ id: String, _ session: any SQLSession) throws -> StoredChannel? {
        try session.rows("SELECT * FROM channel WHERE id = ?", [id]).first.map(stored)
    }

    /// The enabled channels of `users`, by user.
    static func enabledChannels(of users: [String], _ session: any SQLSession) throws -> [String: [StoredChannel]] {
        var byUser: [String: [StoredChannel]] = [:]
        var start = 0
        while start < users.count {
            let chunk = Array(users[start..<min(start + 500, users.count)])
            start += chunk.count
            let rows = try session.rows(
                #"SELECT * FROM channel WHERE disabled_at IS NULL AND "user" IN ("#
                    + Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    + ") ORDER BY created_at, id", chunk.map { $0 } as SQLArguments)
            for row in rows {
                let channel = stored(row)
                byUser[channel.user, default: []].append(channel)
            }
        }
        return byUser
    }

    /// Adds the channel, or, when the user has one of that kind and address, updates its keys
    /// and label and switches it back on (a browser that subscribed again).
    static func add(
        _ channel: StoredChannel, now: Date, _ session: any SQLSession
    ) throws -> StoredChannel {
        if let existing = try session.rows(
            #"SELECT * FROM channel WHERE "user" = ? AND kind = ? AND address = ?"#,
            [channel.user, channel.channel.kind.rawValue, channel.channel.address]
        ).first.map(stored) {
            try session.execute(
                "UPDATE channel SET label = ?, push_p256dh = ?, push_auth = ?, disabled_at = NULL, disabled_reason = NULL WHERE id = ?",
                [channel.channel.label ?? existing.channel.label, channel.p256dh, channel.auth, existing.channel.id])
            return try self.channel(existing.channel.id, session) ?? existing
        }
        let count = try session.value(Int64.self, #"SELECT COUNT(*) FROM channel WHERE "user" = ?"#, [channel.user]) ?? 0
        guard count < maximumPerUser else {
            throw ServiceError.conflict("you have \(maximumPerUser) channels already; remove one first", field: "kind")
        }
        try session.execute(
            """
            INSERT INTO channel (id, "user", kind, address, label, push_p256dh, push_auth, secret, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                channel.channel.id, channel.user, channel.channel.kind.rawValue, channel.channel.address, channel.channel.label, channel.p256dh,
                channel.auth, channel.secret, now.timeIntervalSince1970,
            ])
        return channel
    }

    /// Removes one of `user`'s channels and what is still waiting to go to it.
    static func remove(_ id: String, of user: String, _ session: any SQLSession) throws -> Bool {
        let removed = try session.execute(#"DELETE FROM channel WHERE id = ? AND "user" = ?"#, [id, user]) > 0
        if removed {
            try session.execute(
                "UPDATE sous_outbox SET state = 'failed', last_error = 'the channel was removed', payload = '' WHERE recipient = ? AND state = 'pending'",
                [id])
        }
        return removed
    }

    /// Switches a channel off; returns false when it was off (or gone) already.
    static func disable(_ id: String, reason: String, now: Date, _ session: any SQLSession) throws -> Bool {
        try session.execute(
            "UPDATE channel SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL",
            [now.timeIntervalSince1970, String(reason.prefix(300)), id]) > 0
    }

    static func enable(_ id: String, _ session: any SQLSession) throws {
        try session.execute("UPDATE channel SET disabled_at = NULL, disabled_reason = NULL WHERE id = ?", [id])
    }

    // MARK: Quiet hours

    static func quietHours(of user: String, _ session: any SQLSession) throws -> QuietHours? {
        try session.rows(#"SELECT from_hour, to_hour FROM quiet_hours WHERE "user" = ?"#, [user]).first.map {
            QuietHours(from: Int($0["from_hour"] as Int64), to: Int($0["to_hour"] as Int64))
        }
    }

    static func quietHours(of users: [String], _ session: any SQLSession) throws -> [String: QuietHours] {
        var hours: [String: QuietHours] = [:]
        var start = 0
        while start < users.count {
            let chunk = Array(users[start..<min(start + 500, users.count)])
            start += chunk.count
            for row in try session.rows(
                #"SELECT "user", from_hour, to_hour FROM quiet_hours WHERE "user" IN ("#
                    + Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    + ")", chunk.map { $0 } as SQLArguments)
            {
                hours[row["user"]] = QuietHours(from: Int(row["from_hour"] as Int64), to: Int(row["to_hour"] as Int64))
            }
        }
        return hours
    }

    static func setQuietHours(_ hours: QuietHours?, of user: String, _ session: any SQLSession) throws {
        try session.execute(#"DELETE FROM quiet_hours WHERE "user" = ?"#, [user])
        if let hours {
            try session.execute(#"INSERT INTO quiet_hours ("user", from_hour, to_hour) VALUES (?, ?, ?)"#, [user, hours.from, hours.to])
        }
    }

    // MARK: The VAPID key

    /// The notifier's VAPID key, made and stored by the first process to ask (replicas share it).
    static func vapidKey(_ database: SousDatabase, now: Date) throws -> P256.Signing.PrivateKey {
        try database.write { session in
            try session.execute(
                "INSERT INTO vapid_key (id, private_key, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING",
                [Base64URL.encode([UInt8](P256.Signing.PrivateKey().rawRepresentation)), now.timeIntervalSince1970])
            guard let text = try session.value(String.self, "SELECT private_key FROM vapid_key WHERE id = 1"), let bytes = Base64URL.decode(text)
            else { throw ServiceError.internal("the VAPID key is missing") }
            return try P256.Signing.PrivateKey(rawRepresentation: bytes)
        }
    }

    // MARK: Rows

    private static func stored(_ row: Row) -> StoredChannel {
        let kind = ReminderChannelKind(rawValue: row["kind"]) ?? .webhook
        return StoredChannel(
            channel: ReminderChannel(
                id: row["id"], kind: kind, address: row["address"], label: row["label"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
                enabled: (row["disabled_at"] as Double?) == nil, disabledReason: row["disabled_reason"]),
            user: row["user"], p256dh: row["push_p256dh"], auth: row["push_auth"], secret: row["secret"])
    }
}
