import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

// The account tables as records: each names its columns once and reads and writes itself,
// with the same statements on SQLite and PostgreSQL (``SQLRecord``).

/// A user's account (`account`): what it shows and the password hash it is signed in with.
struct AccountRecord: Sendable, SQLRecord {
    static let tableName = "account"
    static let primaryKey = ["user"]

    enum Columns {
        static let user = Column("user")
        static let email = Column("email")
        static let name = Column("name")
        static let passwordHash = Column("password_hash")
        static let role = Column("role")
        static let createdAt = Column("created_at")
        static let verifiedAt = Column("verified_at")
    }

    var info: AccountInfo
    var passwordHash: String
    /// When the email was confirmed; nil while a code mailed at registration waits.
    var verifiedAt: Date?

    init(info: AccountInfo, passwordHash: String, verifiedAt: Date?) {
        self.info = info
        self.passwordHash = passwordHash
        self.verifiedAt = verifiedAt
        self.info.emailVerified = verifiedAt != nil
    }

    init(row: Row) {
        verifiedAt = (row[Columns.verifiedAt] as Double?).map(Date.init(timeIntervalSince1970:))
        info = AccountInfo(
            user: row[Columns.user], email: row[Columns.email], name: row[Columns.name], role: AccountRole(rawValue: row[Columns.role]) ?? .user,
            createdAt: Date(timeIntervalSince1970: row[Columns.createdAt]), emailVerified: verifiedAt != nil
        )
        passwordHash = row[Columns.passwordHash]
    }

    static let columnNames = [Columns.user, Columns.email, Columns.name, Columns.passwordHash, Columns.role, Columns.createdAt, Columns.verifiedAt]
        .map(\.name)

    var values: SQLArguments {
        [info.user, info.email, info.name, passwordHash, info.role.rawValue, info.createdAt.timeIntervalSince1970, verifiedAt?.timeIntervalSince1970]
    }
}

/// A signed-in device of a user (`session`), until it ends or expires.
struct SessionRecord: Sendable, SQLRecord {
    static let tableName = "session"
    static let primaryKey = ["id"]

    enum Columns {
        static let id = Column("id")
        static let user = Column("user")
        static let device = Column("device")
        static let createdAt = Column("created_at")
        static let expiresAt = Column("expires_at")
    }

    var id: String
    var user: String
    var device: String
    var createdAt: Date
    var expiresAt: Date

    init(id: String, user: String, device: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.user = user
        self.device = device
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    init(row: Row) {
        id = row[Columns.id]
        user = row[Columns.user]
        device = row[Columns.device]
        createdAt = Date(timeIntervalSince1970: row[Columns.createdAt])
        expiresAt = Date(timeIntervalSince1970: row[Columns.expiresAt])
    }

    static let columnNames = [Columns.id, Columns.user, Columns.device, Columns.createdAt, Columns.expiresAt].map(\.name)

    var values: SQLArguments {
        [id, user, device, createdAt.timeIntervalSince1970, expiresAt.timeIntervalSince1970]
    }
}

/// An ended session whose token has not expired (`revocation`), numbered in the order ended.
struct RevocationRecord: Sendable, FetchableRecord {
    enum Columns {
        static let sequence = Column("sequence")
        static let session = Column("session")
        static let expiresAt = Column("expires_at")
    }

    var revoked: RevokedSession

    init(row: Row) {
        revoked = RevokedSession(session: row[Columns.session], expires: row[Columns.expiresAt])
    }

    /// Adds `revoked` under the next number: one above the newest (which is never deleted, so no
    /// number is used twice). The number is read from the table in the writing transaction, not
    /// drawn from a sequence: two writers that take the same one clash (SQLite has one writer;
    /// PostgreSQL rolls one back and runs it again), so numbers become visible in order, and a
    /// service that has read up to n never misses a revocation below n committed later.
    static func insert(_ revoked: RevokedSession, _ session: any SQLSession) throws {
        try session.execute(
            """
            INSERT INTO revocation (sequence, session, expires_at)
            VALUES ((SELECT COALESCE(MAX(sequence), 0) + 1 FROM revocation), ?, ?)
            """, [revoked.session, revoked.expires])
    }
}

/// A deleted account's rows a service has not confirmed erasing yet (`erasure`).
struct ErasureRecord: Sendable, SQLRecord {
    static let tableName = "erasure"
    static let primaryKey = ["deleted_user", "service"]

    enum Columns {
        static let deletedUser = Column("deleted_user")
        static let service = Column("service")
        static let requestedAt = Column("requested_at")
    }

    var deletedUser: String
    /// The service's raw name: a row naming a service this build does not know is kept, and skipped.
    var service: String
    var requestedAt: Date

    init(deletedUser: String, service: SousService, requestedAt: Date) {
        self.deletedUser = deletedUser
        self.service = service.rawValue
        self.requestedAt = requestedAt
    }

    init(row: Row) {
        deletedUser = row[Columns.deletedUser]
        service = row[Columns.service]
        requestedAt = Date(timeIntervalSince1970: row[Columns.requestedAt])
    }

    static let columnNames = [Columns.deletedUser, Columns.service, Columns.requestedAt].map(\.name)

    var values: SQLArguments { [deletedUser, service, requestedAt.timeIntervalSince1970] }
}
