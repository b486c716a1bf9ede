public import Foundation
import GRDB
public import SousCrypto
public import SousRuntime
public import SousSchema
public import SousWire

/// Accounts, sessions, revocations and pending erasures, in the planner's database. The same
/// statements run on SQLite and PostgreSQL.
public final class AccountStore: Sendable {
    public let database: SousDatabase
    /// The Argon2id cost new hashes are made with (``Sodium/PasswordCost/standard`` in service).
    let passwordCost: Sodium.PasswordCost

    public init(database: SousDatabase, passwordCost: Sodium.PasswordCost = .standard) {
        self.database = database
        self.passwordCost = passwordCost
    }

    /// An account as stored: its info and password hash.
    typealias StoredAccount = AccountRecord

    /// A session as stored: its id, user, device, start and expiry.
    typealias StoredSession = SessionRecord

    // MARK: Accounts

    /// Creates an account; `user` is a new random id unless given (claiming an id from before
    /// accounts existed). The password must already have passed ``AccountRules``. On a server
    /// that confirms emails (`mail`), a confirmation code is queued, dated `mailedAt` (the
    /// service clock) or `now`.
    @discardableResult
    public func createAccount(
        user: String? = nil, email: String, password: String, name: String, role: AccountRole, now: Date, confirmingBy mail: AccountMail? = nil,
        mailedAt: Date? = nil
    ) throws(ServiceError) -> AccountInfo {
        let email = try AccountRules.normalizedEmail(email)
        let name = try AccountRules.checkName(name)
        try AccountRules.checkNewPassword(password, email: email)
        if let user,
            user.utf8.count > SousProtocol.maxTokenBytes || user.allSatisfy(\.isWhitespace)
                || user != user.trimmingCharacters(in: .whitespacesAndNewlines)
        {
            throw .badRequest("a user id has 1 to \(SousProtocol.maxTokenBytes) bytes, without leading or trailing spaces", field: "user")
        }
        guard let hash = Sodium.hashPassword(password, cost: passwordCost) else { throw .internal("the password could not be hashed") }
        // On a server that confirms emails, the account waits for the code mailed here.
        let confirming = mail?.verifiesEmail == true ? mail : nil
        let info = AccountInfo(
            user: user ?? Self.newID(prefix: "u-"), email: email, name: name, role: role, createdAt: now, emailVerified: confirming == nil)
        try storage {
            try database.write { transaction in
                // Emails are stored and looked up normalized (lowercased), so equality is the rule.
                if try transaction.value(Int.self, "SELECT 1 FROM account WHERE email = ?", [email]) != nil {
                    throw ServiceError.conflict("an account with this email exists; sign in instead", field: "email")
                }
                if try transaction.value(Int.self, #"SELECT 1 FROM account WHERE "user" = ?"#, [info.user]) != nil {
                    throw ServiceError.conflict("user \(info.user) already has an account", field: "user")
                }
                try transaction.insert(AccountRecord(info: info, passwordHash: hash, verifiedAt: confirming == nil ? now : nil))
                if let confirming {
                    try Self.queueCode(
                        RecoveryCode.make(), .verify, for: info, email: email, mail: confirming, delay: 0, now: mailedAt ?? now, transaction)
                }
            }
        }
        return info
    }

    func account(email: String) throws(ServiceError) -> StoredAccount? {
        try storage {
            try database.read { transaction in try transaction.fetchOne(AccountRecord.self, "SELECT * FROM account WHERE email = ?", [email]) }
        }
    }

    /// The display name of each of `users` that has an account.
    func displayNames(of users: [String]) throws(ServiceError) -> [String: String] {
        guard !users.isEmpty else { return [:] }
        return try storage {
            try database.read { transaction in
                let rows = try transaction.rows(
                    #"SELECT "user", name FROM account WHERE "user" IN (\#(transaction.engine.jsonArrayValues))"#, [users.sqlJSONArray])
                return Dictionary(rows.map { ($0["user"], $0["name"]) }, uniquingKeysWith: { first, _ in first })
            }
        }
    }

    func account(user: String) throws(ServiceError) -> StoredAccount? {
        try storage {
            try database.read { transaction in
                try transaction.fetchOne(AccountRecord.self, #"SELECT * FROM account WHERE "user" = ?"#, [user])
            }
        }
    }

    /// Replaces the password hash, ends every session of the user but `keeping`, and stops their
    /// calendar feed (its address may be known to whoever the new password keeps out).
    func changePassword(user: String, to password: String, keeping session: String, now: Date) throws(ServiceError) -> [RevokedSession] {
        guard let hash = Sodium.hashPassword(password, cost: passwordCost) else { throw .internal("the password could not be hashed") }
        return try storage {
            try database.write { transaction in
                try transaction.execute(#"UPDATE account SET password_hash = ? WHERE "user" = ?"#, [hash, user])
                try PlannerStore.stopFeed(transaction, user: user)
                return try Self.endSessions(
                    transaction, #"SELECT * FROM session WHERE "user" = ? AND id <> ? ORDER BY created_at, id"#, [user, session])
            }
        }
    }

    /// Deletes the account and every planner row of the user, ends their sessions, and queues
    /// the erasure of their rows in `services`: one transaction. Their household passes to the
    /// member who has been in it longest; one nobody is left in goes too, here and (queued) in
    /// `services`.
    func deleteAccount(
        user: String, erasingIn services: [SousService], now: Date
    ) throws(ServiceError) -> (ended: [RevokedSession], dissolved: [String]) {
        try storage {
            try database.write { transaction in
                let ended = try Self.endSessions(transaction, #"SELECT * FROM session WHERE "user" = ? ORDER BY created_at, id"#, [user])
                let dissolved = try HouseholdStore.removeForDeletion(transaction, user: user, now: now, erasingIn: services)
                try FriendStore.removeForDeletion(transaction, user: user)
                _ = try SousDatabase.eraseUser(user, in: transaction)
                for service in services {
                    try transaction.insert(ErasureRecord(deletedUser: user, service: service, requestedAt: now), onConflict: .ignore)
                }
                return (ended, dissolved)
            }
        }
    }

    // MARK: Sessions

    func createSession(user: String, device: String, now: Date) throws(ServiceError) -> StoredSession {
        let session = StoredSession(
            id: Self.newID(prefix: "s-"), user: user, device: device, createdAt: now, expiresAt: now.addingTimeInterval(AccountRules.sessionLifetime)
        )
        try storage {
            try database.write { transaction in
                // Expired sessions are dropped as new ones start: nothing else reads them.
                try transaction.execute(#"DELETE FROM session WHERE "user" = ? AND expires_at <= ?"#, [user, now.timeIntervalSince1970])
                try transaction.insert(session)
            }
        }
        return session
    }

    func sessions(user: String, now: Date) throws(ServiceError) -> [StoredSession] {
        try storage {
            try database.read { transaction in
                try transaction.fetchAll(
                    SessionRecord.self, #"SELECT * FROM session WHERE "user" = ? AND expires_at > ? ORDER BY created_at, id"#,
                    [user, now.timeIntervalSince1970])
            }
        }
    }

    /// Ends one session of `user`; nil if they have no such session.
    func endSession(_ id: String, user: String) throws(ServiceError) -> [RevokedSession]? {
        try storage {
            try database.write { transaction in
                let ended = try Self.endSessions(
                    transaction, #"SELECT * FROM session WHERE id = ? AND "user" = ? ORDER BY created_at, id"#, [id, user])
                return ended.isEmpty ? nil : ended
            }
        }
    }

    /// Moves the sessions `select` picks (a `SELECT * FROM session` with `arguments`) to the
    /// revocation list, in the order it gives.
    static func endSessions(_ transaction: any SQLSession, _ select: String, _ arguments: SQLArguments) throws -> [RevokedSession] {
        var ended: [RevokedSession] = []
        for session in try transaction.fetchAll(SessionRecord.self, select, arguments) {
            try transaction.execute("DELETE FROM session WHERE id = ?", [session.id])
            let revoked = RevokedSession(session: session.id, expires: Int64(session.expiresAt.timeIntervalSince1970.rounded(.up)))
            try RevocationRecord.insert(revoked, transaction)
            ended.append(revoked)
        }
        return ended
    }

    // MARK: Revocations

    /// Revocations after `sequence` whose tokens have not expired, and the newest sequence.
    public func revocations(since sequence: Int64, now: Date) throws(ServiceError) -> Revocations {
        try storage {
            try database.write { transaction in
                let cutoff = Int64(now.timeIntervalSince1970)
                // Expired ones go, but never the newest: its sequence is the one returned (and the
                // next one is counted from it).
                try transaction.execute(
                    "DELETE FROM revocation WHERE expires_at <= ? AND sequence < (SELECT MAX(sequence) FROM revocation)", [cutoff])
                let live = try transaction.fetchAll(
                    RevocationRecord.self, "SELECT * FROM revocation WHERE sequence > ? AND expires_at > ? ORDER BY sequence", [sequence, cutoff])
                let newest = try transaction.value(Int64.self, "SELECT MAX(sequence) FROM revocation") ?? 0
                return Revocations(revoked: live.map(\.revoked), sequence: max(newest, 0))
            }
        }
    }

    /// The same without pruning expired ones, in a read transaction: how the planner's replicas
    /// follow the list each other write (every second, see RevocationSync).
    public func liveRevocations(since sequence: Int64, now: Date) throws(ServiceError) -> Revocations {
        try storage {
            try database.read { transaction in
                let live = try transaction.fetchAll(
                    RevocationRecord.self, "SELECT * FROM revocation WHERE sequence > ? AND expires_at > ? ORDER BY sequence",
                    [sequence, Int64(now.timeIntervalSince1970)])
                let newest = try transaction.value(Int64.self, "SELECT MAX(sequence) FROM revocation") ?? 0
                return Revocations(revoked: live.map(\.revoked), sequence: max(newest, 0))
            }
        }
    }

    // MARK: Erasures

    func pendingErasures() throws(ServiceError) -> [(user: String, service: SousService)] {
        try storage {
            try database.read { transaction in
                try transaction.fetchAll(ErasureRecord.self, Self.erasuresInOrder).compactMap { erasure in
                    SousService(rawValue: erasure.service).map { (user: erasure.deletedUser, service: $0) }
                }
            }
        }
    }

    /// Oldest first; the key breaks ties, so both engines give the same order.
    private static let erasuresInOrder = "SELECT * FROM erasure ORDER BY requested_at, deleted_user, service"

    func erasureDone(user: String, service: SousService) throws(ServiceError) {
        try storage {
            try database.write { transaction in
                _ = try transaction.execute("DELETE FROM erasure WHERE deleted_user = ? AND service = ?", [user, service.rawValue])
            }
        }
    }

    // MARK: Helpers

    /// A random id: the prefix and 24 hex digits (96 bits).
    static func newID(prefix: String) -> String {
        prefix + Hex.encode(Sodium.randomBytes(12))
    }

    func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        try ServiceError.storage("account storage failed", work)
    }
}
