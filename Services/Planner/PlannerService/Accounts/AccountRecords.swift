import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

// The account tables as GRDB records: each names its columns once and reads and writes itself.

/// A user's account (`account`): what it shows and the password hash it is signed in with.
struct AccountRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"

    enum Columns {
        static let user = Column("user")
        static let email = Column("email")
        static let name = Column("name")
        static let passwordHash = Column("password_hash")
        static let role = Column("role")
        static let createdAt = Column("created_at")
    }

    var info: AccountInfo
    var passwordHash: String

    init(info: AccountInfo, passwordHash: String) {
        self.info = info
        self.passwordHash = passwordHash
    }

    init(row: Row) {
        info = AccountInfo(
            user: row[Columns.user], email: row[Columns.email], name: row[Columns.name], role: AccountRole(rawValue: row[Columns.role]) ?? .user,
            createdAt: Date(timeIntervalSince1970: row[Columns.createdAt])
        )
        passwordHash = row[Columns.passwordHash]
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = info.user
        container[Columns.email] = info.email
        container[Columns.name] = info.name
        container[Columns.passwordHash] = passwordHash
        container[Columns.role] = info.role.rawValue
        container[Columns.createdAt] = info.createdAt.timeIntervalSince1970
    }
}

/// A signed-in device of a user (`session`), until it ends or expires.
struct SessionRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "session"

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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.user] = user
        container[Columns.device] = device
        container[Columns.createdAt] = createdAt.timeIntervalSince1970
        container[Columns.expiresAt] = expiresAt.timeIntervalSince1970
    }
}

/// An ended session whose token has not expired (`revocation`), numbered in the order ended.
struct RevocationRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "revocation"

    enum Columns {
        static let sequence = Column("sequence")
        static let session = Column("session")
        static let expiresAt = Column("expires_at")
    }

    var revoked: RevokedSession

    init(_ revoked: RevokedSession) {
        self.revoked = revoked
    }

    init(row: Row) {
        revoked = RevokedSession(session: row[Columns.session], expires: row[Columns.expiresAt])
    }

    func encode(to container: inout PersistenceContainer) {
        // No sequence: SQLite numbers the row.
        container[Columns.session] = revoked.session
        container[Columns.expiresAt] = revoked.expires
    }
}

/// A deleted account's rows a service has not confirmed erasing yet (`erasure`).
struct ErasureRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "erasure"

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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.deletedUser] = deletedUser
        container[Columns.service] = service
        container[Columns.requestedAt] = requestedAt.timeIntervalSince1970
    }
}
