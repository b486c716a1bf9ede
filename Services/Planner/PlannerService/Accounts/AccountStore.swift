public import Foundation
import GRDB
public import SousCrypto
public import SousRuntime
public import SousSchema
public import SousWire

/// Accounts, sessions, revocations and pending erasures, in the planner's database.
public final class AccountStore: Sendable {
    public let database: SousDatabase
    /// The Argon2id cost new hashes are made with (``Sodium/PasswordCost/standard`` in service).
    let passwordCost: Sodium.PasswordCost

    public init(database: SousDatabase, passwordCost: Sodium.PasswordCost = .standard) {
        self.database = database
        self.passwordCost = passwordCost
    }

    struct StoredAccount {
        let info: AccountInfo
        let passwordHash: String
    }

    struct StoredSession {
        let id: String
        let user: String
        let device: String
        let createdAt: Date
        let expiresAt: Date
    }

    // MARK: Accounts

    /// Creates an account; `user` is a new random id unless given (claiming an id from before
    /// accounts existed). The password must already have passed ``AccountRules``.
    @discardableResult
    public func createAccount(
        user: String? = nil, email: String, password: String, name: String, role: AccountRole, now: Date
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
        let info = AccountInfo(user: user ?? Self.newID(prefix: "u-"), email: email, name: name, role: role, createdAt: now)
        try storage {
            try database.write { db in
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM account WHERE email = ?", arguments: [email]) == true {
                    throw ServiceError.conflict("an account with this email exists; sign in instead", field: "email")
                }
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM account WHERE user = ?", arguments: [info.user]) == true {
                    throw ServiceError.conflict("user \(info.user) already has an account", field: "user")
                }
                try db.execute(
                    sql: "INSERT INTO account (user, email, name, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [info.user, email, name, hash, role.rawValue, now.timeIntervalSince1970]
                )
            }
        }
        return info
    }

    func account(email: String) throws(ServiceError) -> StoredAccount? {
        try storage { try database.read { db in try Self.account(db, where: "email = ?", email) } }
    }

    func account(user: String) throws(ServiceError) -> StoredAccount? {
        try storage { try database.read { db in try Self.account(db, where: "user = ?", user) } }
    }

    private static func account(_ db: Database, where condition: String, _ value: String) throws -> StoredAccount? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM account WHERE \(condition)", arguments: [value]) else { return nil }
        let info = AccountInfo(
            user: row["user"], email: row["email"], name: row["name"], role: AccountRole(rawValue: row["role"]) ?? .user,
            createdAt: Date(timeIntervalSince1970: row["created_at"])
        )
        return StoredAccount(info: info, passwordHash: row["password_hash"])
    }

    /// Replaces the password hash and ends every session of the user but `keeping`.
    func changePassword(user: String, to password: String, keeping session: String, now: Date) throws(ServiceError) -> [RevokedSession] {
        guard let hash = Sodium.hashPassword(password, cost: passwordCost) else { throw .internal("the password could not be hashed") }
        return try storage {
            try database.write { db in
                try db.execute(sql: "UPDATE account SET password_hash = ? WHERE user = ?", arguments: [hash, user])
                return try Self.endSessions(db, sql: "SELECT * FROM session WHERE user = ? AND id != ?", arguments: [user, session])
            }
        }
    }

    /// Deletes the account and every planner row of the user, ends their sessions, and queues
    /// the erasure of their rows in `services`: one transaction.
    func deleteAccount(user: String, erasingIn services: [SousService], now: Date) throws(ServiceError) -> [RevokedSession] {
        try storage {
            try database.write { db in
                let ended = try Self.endSessions(db, sql: "SELECT * FROM session WHERE user = ?", arguments: [user])
                _ = try SousDatabase.eraseUser(user, in: db)
                for service in services {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO erasure (deleted_user, service, requested_at) VALUES (?, ?, ?)",
                        arguments: [user, service.rawValue, now.timeIntervalSince1970]
                    )
                }
                return ended
            }
        }
    }

    // MARK: Sessions

    func createSession(user: String, device: String, now: Date) throws(ServiceError) -> StoredSession {
        let session = StoredSession(
            id: Self.newID(prefix: "s-"), user: user, device: device, createdAt: now, expiresAt: now.addingTimeInterval(AccountRules.sessionLifetime)
        )
        try storage {
            try database.write { db in
                // Expired sessions are dropped as new ones start: nothing else reads them.
                try db.execute(sql: "DELETE FROM session WHERE user = ? AND expires_at <= ?", arguments: [user, now.timeIntervalSince1970])
                try db.execute(
                    sql: "INSERT INTO session (id, user, device, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [session.id, user, device, now.timeIntervalSince1970, session.expiresAt.timeIntervalSince1970]
                )
            }
        }
        return session
    }

    func sessions(user: String, now: Date) throws(ServiceError) -> [StoredSession] {
        try storage {
            try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT * FROM session WHERE user = ? AND expires_at > ? ORDER BY created_at, id",
                    arguments: [user, now.timeIntervalSince1970]
                )
                .map(Self.session)
            }
        }
    }

    /// Ends one session of `user`; nil if they have no such session.
    func endSession(_ id: String, user: String) throws(ServiceError) -> [RevokedSession]? {
        try storage {
            try database.write { db in
                let ended = try Self.endSessions(db, sql: "SELECT * FROM session WHERE id = ? AND user = ?", arguments: [id, user])
                return ended.isEmpty ? nil : ended
            }
        }
    }

    /// Moves the selected sessions to the revocation list.
    private static func endSessions(_ db: Database, sql: String, arguments: StatementArguments) throws -> [RevokedSession] {
        let sessions = try Row.fetchAll(db, sql: sql, arguments: arguments).map(session)
        var ended: [RevokedSession] = []
        for session in sessions {
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [session.id])
            let expires = Int64(session.expiresAt.timeIntervalSince1970.rounded(.up))
            try db.execute(sql: "INSERT INTO revocation (session, expires_at) VALUES (?, ?)", arguments: [session.id, expires])
            ended.append(RevokedSession(session: session.id, expires: expires))
        }
        return ended
    }

    private static func session(_ row: Row) -> StoredSession {
        StoredSession(
            id: row["id"], user: row["user"], device: row["device"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
            expiresAt: Date(timeIntervalSince1970: row["expires_at"])
        )
    }

    // MARK: Revocations

    /// Revocations after `sequence` whose tokens have not expired, and the newest sequence.
    public func revocations(since sequence: Int64, now: Date) throws(ServiceError) -> Revocations {
        try storage {
            try database.write { db in
                let cutoff = Int64(now.timeIntervalSince1970)
                try db.execute(
                    sql: "DELETE FROM revocation WHERE expires_at <= ? AND sequence < (SELECT MAX(sequence) FROM revocation)", arguments: [cutoff])
                let rows = try Row.fetchAll(
                    db, sql: "SELECT * FROM revocation WHERE sequence > ? AND expires_at > ? ORDER BY sequence", arguments: [sequence, cutoff])
                let newest = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM revocation") ?? 0
                return Revocations(revoked: rows.map { RevokedSession(session: $0["session"], expires: $0["expires_at"]) }, sequence: max(newest, 0))
            }
        }
    }

    // MARK: Erasures

    func pendingErasures() throws(ServiceError) -> [(user: String, service: SousService)] {
        try storage {
            try database.read { db in
                try Row.fetchAll(db, sql: "SELECT deleted_user, service FROM erasure ORDER BY requested_at").compactMap { row in
                    SousService(rawValue: row["service"]).map { (user: row["deleted_user"] as String, service: $0) }
                }
            }
        }
    }

    func erasureDone(user: String, service: SousService) throws(ServiceError) {
        try storage {
            try database.write { db in
                try db.execute(sql: "DELETE FROM erasure WHERE deleted_user = ? AND service = ?", arguments: [user, service.rawValue])
            }
        }
    }

    // MARK: Helpers

    /// A random id: the prefix and 24 hex digits (96 bits).
    static func newID(prefix: String) -> String {
        prefix + Hex.encode(Sodium.randomBytes(12))
    }

    private func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        do {
            return try work()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .internal("account storage failed: \(error)")
        }
    }
}
