import Foundation
import GRDB
import SousCrypto
import SousRuntime
import SousSchema
import SousWire

/// Friend requests, friendships and what each person shares, in the planner's database. The
/// same statements run on SQLite and PostgreSQL.
///
/// A request keeps the email it was sent to, never the account that has it: sending one is the
/// same write, answered the same, whether or not anyone has that email. The person with that
/// email sees it among their received requests.
struct FriendStore: Sendable {
    let database: SousDatabase

    static let requestLifetime: TimeInterval = 30 * 86_400
    static let maxPendingSent = 50
    static let maxFriends = 500

    // MARK: Requests

    func request(email: String, user: String, now: Date) throws(ServiceError) -> (request: SentFriendRequest, recipient: String?) {
        let email = try AccountRules.normalizedEmail(email)
        return try storage {
            try database.write { session in
                let own = try Self.email(session, of: user)
                guard email != own else { throw ServiceError.badRequest("that is your own email: ask someone else", field: "email") }
                let cutoff = now.timeIntervalSince1970 - Self.requestLifetime
                try session.execute(#"DELETE FROM friend_request WHERE "user" = ? AND sent_at <= ?"#, [user, cutoff])
                let pending =
                    try session.value(
                        Int.self, #"SELECT COUNT(*) FROM friend_request WHERE "user" = ? AND to_email <> ?"#, [user, email]) ?? 0
                guard pending < Self.maxPendingSent else {
                    throw ServiceError.conflict(
                        "you have \(Self.maxPendingSent) requests waiting for an answer: withdraw one first (friends.withdraw)", field: "email")
                }
                try session.execute(
                    """
                    INSERT INTO friend_request (id, "user", to_email, sent_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT ("user", to_email) DO UPDATE SET sent_at = excluded.sent_at
                    """, ["f-" + Hex.encode(Sodium.randomBytes(8)), user, email, now.timeIntervalSince1970])
                let id = try session.value(String.self, #"SELECT id FROM friend_request WHERE "user" = ? AND to_email = ?"#, [user, email]) ?? ""
                // Who to tell, for the event only: the answer never says.
                let recipient = try session.value(String.self, #"SELECT "user" FROM account WHERE email = ?"#, [email])
                return (SentFriendRequest(id: id, email: email, sentAt: now), recipient)
            }
        }
    }

    func requests(user: String, now: Date) throws(ServiceError) -> FriendRequests {
        try storage { try database.read { session in try Self.requests(session, user: user, now: now) } }
    }

    static func requests(_ session: any SQLSession, user: String, now: Date) throws -> FriendRequests {
        let cutoff = now.timeIntervalSince1970 - requestLifetime
        let received = try session.rows(
            """
            SELECT r.id, r."user", a.name, a.email, r.sent_at FROM friend_request r JOIN account a ON a."user" = r."user"
            WHERE r.to_email = ? AND r.sent_at > ?
              AND NOT EXISTS (SELECT 1 FROM friend f WHERE f."user" = ? AND f.friend = r."user")
            ORDER BY r.sent_at DESC, r.id
            """, [try email(session, of: user), cutoff, user]
        ).map { row in
            ReceivedFriendRequest(
                id: row["id"], user: row["user"], name: row["name"], email: row["email"], sentAt: Date(timeIntervalSince1970: row["sent_at"]))
        }
        let sent = try session.rows(
            #"SELECT id, to_email, sent_at FROM friend_request WHERE "user" = ? AND sent_at > ? ORDER BY sent_at DESC, id"#, [user, cutoff]
        ).map { row in SentFriendRequest(id: row["id"], email: row["to_email"], sentAt: Date(timeIntervalSince1970: row["sent_at"])) }
        return FriendRequests(received: received, sent: sent)
    }

    /// Accepts or declines a received request; returns the caller's friends and the sender.
    func answer(_ answer: FriendAnswer, user: String, now: Date) throws(ServiceError) -> (list: FriendList, sender: String) {
        try storage {
            try database.write { session in
                let own = try Self.email(session, of: user)
                guard
                    let row = try session.rows(
                        #"SELECT "user" FROM friend_request WHERE id = ? AND to_email = ? AND sent_at > ?"#,
                        [answer.id, own, now.timeIntervalSince1970 - Self.requestLifetime]
                    ).first
                else { throw ServiceError.notFound("you have no friend request \(answer.id): it may have expired or been withdrawn", field: "id") }
                let sender: String = row["user"]
                try session.execute("DELETE FROM friend_request WHERE id = ?", [answer.id])
                if answer.accept {
                    // A request the caller had sent the other way is answered by this one too.
                    try session.execute(
                        #"DELETE FROM friend_request WHERE "user" = ? AND to_email = ?"#, [user, try Self.email(session, of: sender)])
                    let known = try session.value(Int.self, #"SELECT 1 FROM friend WHERE "user" = ? AND friend = ?"#, [user, sender]) != nil
                    if !known {
                        for person in [user, sender] {
                            let count = try session.value(Int.self, #"SELECT COUNT(*) FROM friend WHERE "user" = ?"#, [person]) ?? 0
                            guard count < Self.maxFriends else {
                                throw ServiceError.conflict(
                                    person == user
                                        ? "you have \(Self.maxFriends) friends, the most there can be: end a friendship first"
                                        : "they have \(Self.maxFriends) friends, the most there can be", field: "id")
                            }
                        }
                        for (one, other) in [(user, sender), (sender, user)] {
                            try session.execute(
                                #"INSERT INTO friend ("user", friend, since, shares) VALUES (?, ?, ?, NULL)"#,
                                [one, other, now.timeIntervalSince1970])
                        }
                    }
                }
                return (try Self.list(session, user: user), sender)
            }
        }
    }

    func withdraw(_ id: String, user: String, now: Date) throws(ServiceError) -> FriendRequests {
        try storage {
            try database.write { session in
                guard try session.execute(#"DELETE FROM friend_request WHERE id = ? AND "user" = ?"#, [id, user]) > 0 else {
                    throw ServiceError.notFound("you sent no friend request \(id)", field: "id")
                }
                return try Self.requests(session, user: user, now: now)
            }
        }
    }

    // MARK: Friends

    func list(user: String) throws(ServiceError) -> FriendList {
        try storage { try database.read { session in try Self.list(session, user: user) } }
    }

    /// What the user's friends share with them, for the other services (`friends.of`).
    func of(user: String) throws(ServiceError) -> FriendsOf {
        let list = try list(user: user)
        return FriendsOf(
            competes: list.competes,
            friends: list.friends.map { FriendShare(user: $0.user, name: $0.name, sharesSummary: $0.sharesWithYou, competes: $0.competes) })
    }

    static func list(_ session: any SQLSession, user: String) throws -> FriendList {
        let own = try settings(session, user: user)
        let friends = try session.rows(
            """
            SELECT f.friend, a.name, f.since, f.shares AS mine, b.shares AS theirs,
                   COALESCE(s.share_with_all, 0) AS their_all, COALESCE(s.competes, 0) AS their_competes
            FROM friend f
            JOIN friend b ON b."user" = f.friend AND b.friend = f."user"
            JOIN account a ON a."user" = f.friend
            LEFT JOIN friend_setting s ON s."user" = f.friend
            WHERE f."user" = ?
            ORDER BY a.name, f.friend
            """, [user]
        ).map { row -> Friend in
            let mine = (row["mine"] as Int64?).map { $0 != 0 }
            let theirs = (row["theirs"] as Int64?).map { $0 != 0 }
            return Friend(
                user: row["friend"], name: row["name"], since: Date(timeIntervalSince1970: row["since"]), sharing: mine ?? own.shareWithAll,
                shareOverride: mine, sharesWithYou: theirs ?? ((row["their_all"] as Int64) != 0), competes: (row["their_competes"] as Int64) != 0)
        }
        return FriendList(shareWithAll: own.shareWithAll, competes: own.competes, friends: friends)
    }

    /// Ends a friendship for both; returns the caller's friends.
    func end(_ friend: String, user: String) throws(ServiceError) -> FriendList {
        try storage {
            try database.write { session in
                let removed = try session.execute(
                    #"DELETE FROM friend WHERE ("user" = ? AND friend = ?) OR ("user" = ? AND friend = ?)"#, [user, friend, friend, user])
                guard removed > 0 else { throw ServiceError.notFound("\(friend) is not your friend", field: "user") }
                return try Self.list(session, user: user)
            }
        }
    }

    func share(_ sharing: FriendSharing, user: String) throws(ServiceError) -> FriendList {
        try storage {
            try database.write { session in
                if let friend = sharing.user {
                    let changed = try session.execute(
                        #"UPDATE friend SET shares = ? WHERE "user" = ? AND friend = ?"#, [sharing.share ? 1 : 0, user, friend])
                    guard changed > 0 else { throw ServiceError.notFound("\(friend) is not your friend", field: "user") }
                } else {
                    var own = try Self.settings(session, user: user)
                    own.shareWithAll = sharing.share
                    try Self.save(own, session, user: user)
                    try session.execute(#"UPDATE friend SET shares = NULL WHERE "user" = ?"#, [user])
                }
                return try Self.list(session, user: user)
            }
        }
    }

    func compete(_ on: Bool, user: String) throws(ServiceError) -> FriendList {
        try storage {
            try database.write { session in
                var own = try Self.settings(session, user: user)
                own.competes = on
                try Self.save(own, session, user: user)
                return try Self.list(session, user: user)
            }
        }
    }

    /// Everyone the user is friends with (to tell of a change).
    func friendIDs(of user: String) throws(ServiceError) -> [String] {
        try storage { try database.read { session in try session.values(String.self, #"SELECT friend FROM friend WHERE "user" = ?"#, [user]) } }
    }

    /// What the account's deletion takes besides the rows in the user's name (which go with
    /// every table's `user` column): the other half of each friendship, and the requests sent to
    /// the user's email.
    static func removeForDeletion(_ session: any SQLSession, user: String) throws {
        try session.execute("DELETE FROM friend WHERE friend = ?", [user])
        if let email = try session.value(String.self, #"SELECT email FROM account WHERE "user" = ?"#, [user]) {
            try session.execute("DELETE FROM friend_request WHERE to_email = ?", [email])
        }
    }

    // MARK: Helpers

    struct Settings {
        var shareWithAll: Bool
        var competes: Bool
    }

    private static func settings(_ session: any SQLSession, user: String) throws -> Settings {
        guard let row = try session.rows(#"SELECT share_with_all, competes FROM friend_setting WHERE "user" = ?"#, [user]).first else {
            return Settings(shareWithAll: false, competes: false)
        }
        return Settings(shareWithAll: (row["share_with_all"] as Int64) != 0, competes: (row["competes"] as Int64) != 0)
    }

    static func save(_ settings: Settings, _ session: any SQLSession, user: String) throws {
        try session.execute(
            """
            INSERT INTO friend_setting ("user", share_with_all, competes) VALUES (?, ?, ?)
            ON CONFLICT ("user") DO UPDATE SET share_with_all = excluded.share_with_all, competes = excluded.competes
            """, [user, settings.shareWithAll ? 1 : 0, settings.competes ? 1 : 0])
    }

    private static func email(_ session: any SQLSession, of user: String) throws -> String {
        guard let email = try session.value(String.self, #"SELECT email FROM account WHERE "user" = ?"#, [user]) else {
            throw ServiceError.notFound("friends are for accounts: \(user) has none", field: "user")
        }
        return email
    }

    private func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        try ServiceError.storage("friend storage failed", work)
    }
}
