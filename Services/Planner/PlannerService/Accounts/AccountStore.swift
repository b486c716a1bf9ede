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

    /// An account as stored: its info and password hash.
    typealias StoredAccount = AccountRecord

    /// A session as stored: its id, user, device, start and expiry.
    typealias StoredSession = SessionRecord

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
                if try AccountRecord.exists(db, key: [AccountRecord.Columns.email.name: email]) {
                    throw ServiceError.conflict("an account with this email exists; sign in instead", field: "email")
                }
                if try AccountRecord.exists(db, key: info.user) {
                    throw ServiceError.conflict("user \(info.user) already has an account", field: "user")
                }
                try AccountRecord(info: info, passwordHash: hash).insert(db)
            }
        }
        return info
    }

    func account(email: String) throws(ServiceError) -> StoredAccount? {
        try storage { try database.read { db in try AccountRecord.fetchOne(db, key: [AccountRecord.Columns.email.name: email]) } }
    }

    func account(user: String) throws(ServiceError) -> StoredAccount? {
        try storage { try database.read { db in try AccountRecord.fetchOne(db, key: user) } }
    }

    /// Replaces the password hash and ends every session of the user but `keeping`.
    func changePassword(user: String, to password: String, keeping session: String, now: Date) throws(ServiceError) -> [RevokedSession] {
        guard let hash = Sodium.hashPassword(password, cost: passwordCost) else { throw .internal("the password could not be hashed") }
        return try storage {
            try database.write { db in
                try AccountRecord.filter(AccountRecord.Columns.user == user).updateAll(db, AccountRecord.Columns.passwordHash.set(to: hash))
                return try Self.endSessions(db, SessionRecord.filter(SessionRecord.Columns.user == user && SessionRecord.Columns.id != session))
            }
        }
    }

    /// Deletes the account and every planner row of the user, ends their sessions, and queues
    /// the erasure of their rows in `services`: one transaction.
    func deleteAccount(user: String, erasingIn services: [SousService], now: Date) throws(ServiceError) -> [RevokedSession] {
        try storage {
            try database.write { db in
                let ended = try Self.endSessions(db, SessionRecord.filter(SessionRecord.Columns.user == user))
                _ = try SousDatabase.eraseUser(user, in: db)
                for service in services {
                    try ErasureRecord(deletedUser: user, service: service, requestedAt: now).insert(db, onConflict: .ignore)
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
                try SessionRecord.filter(SessionRecord.Columns.user == user && SessionRecord.Columns.expiresAt <= now.timeIntervalSince1970)
                    .deleteAll(db)
                try session.insert(db)
            }
        }
        return session
    }

    func sessions(user: String, now: Date) throws(ServiceError) -> [StoredSession] {
        try storage {
            try database.read { db in
                try SessionRecord.filter(SessionRecord.Columns.user == user && SessionRecord.Columns.expiresAt > now.timeIntervalSince1970)
                    .order(SessionRecord.Columns.createdAt, SessionRecord.Columns.id).fetchAll(db)
            }
        }
    }

    /// Ends one session of `user`; nil if they have no such session.
    func endSession(_ id: String, user: String) throws(ServiceError) -> [RevokedSession]? {
        try storage {
            try database.write { db in
                let ended = try Self.endSessions(db, SessionRecord.filter(SessionRecord.Columns.id == id && SessionRecord.Columns.user == user))
                return ended.isEmpty ? nil : ended
            }
        }
    }

    /// Moves the selected sessions to the revocation list.
    private static func endSessions(_ db: Database, _ sessions: QueryInterfaceRequest<SessionRecord>) throws -> [RevokedSession] {
        var ended: [RevokedSession] = []
        for session in try sessions.fetchAll(db) {
            try session.delete(db)
            let revoked = RevokedSession(session: session.id, expires: Int64(session.expiresAt.timeIntervalSince1970.rounded(.up)))
            try RevocationRecord(revoked).insert(db)
            ended.append(revoked)
        }
        return ended
    }

    // MARK: Revocations

    /// Revocations after `sequence` whose tokens have not expired, and the newest sequence.
    public func revocations(since sequence: Int64, now: Date) throws(ServiceError) -> Revocations {
        try storage {
            try database.write { db in
                let cutoff = Int64(now.timeIntervalSince1970)
                // Expired ones go, but never the newest: its sequence is the one returned.
                try db.execute(
                    sql: "DELETE FROM revocation WHERE expires_at <= ? AND sequence < (SELECT MAX(sequence) FROM revocation)", arguments: [cutoff])
                let live = try RevocationRecord.filter(RevocationRecord.Columns.sequence > sequence && RevocationRecord.Columns.expiresAt > cutoff)
                    .order(RevocationRecord.Columns.sequence).fetchAll(db)
                let newest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(sequence) FROM revocation")) ?? 0
                return Revocations(revoked: live.map(\.revoked), sequence: max(newest, 0))
            }
        }
    }

    // MARK: Erasures

    func pendingErasures() throws(ServiceError) -> [(user: String, service: SousService)] {
        try storage {
            try database.read { db in
                try ErasureRecord.order(ErasureRecord.Columns.requestedAt).fetchAll(db).compactMap { erasure in
                    SousService(rawValue: erasure.service).map { (user: erasure.deletedUser, service: $0) }
                }
            }
        }
    }

    func erasureDone(user: String, service: SousService) throws(ServiceError) {
        try storage {
            try database.write { db in
                _ = try ErasureRecord.filter(ErasureRecord.Columns.deletedUser == user && ErasureRecord.Columns.service == service.rawValue)
                    .deleteAll(db)
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
