public import Foundation
public import MessagePack
public import SousWire

// Accounts live in the planner (docs/PROTOCOL.md, "Accounts"); `account.erase` is answered by
// every service.

@MessagePackCodable
public struct Registration: Codable, Sendable {
    /// Unique regardless of case.
    public var email: String
    /// At least 10 characters, not one of the most common passwords. Never logged.
    public var password: String
    /// How the account is shown, 1 to 80 characters.
    public var name: String

    public init(email: String, password: String, name: String) {
        self.email = email
        self.password = password
        self.name = name
    }
}

@MessagePackCodable
public struct AccountInfo: Codable, Sendable, Equatable {
    /// The user id every service keys this account's data by.
    public var user: String
    public var email: String
    public var name: String
    public var role: AccountRole
    public var createdAt: Date
    /// False until the email is confirmed with the code mailed at registration, on a server
    /// that asks for that (`SOUS_VERIFY_EMAIL=on`); such an account cannot sign in before.
    public var emailVerified: Bool

    public init(user: String, email: String, name: String, role: AccountRole, createdAt: Date, emailVerified: Bool = true) {
        self.user = user
        self.email = email
        self.name = name
        self.role = role
        self.createdAt = createdAt
        self.emailVerified = emailVerified
    }
}

@MessagePackCodable
public struct SignIn: Codable, Sendable {
    public var email: String
    public var password: String
    /// Names this device in `account.sessions`, 1 to 80 characters (e.g. "laptop").
    public var device: String

    public init(email: String, password: String, device: String) {
        self.email = email
        self.password = password
        self.device = device
    }
}

/// One signed-in device.
@MessagePackCodable
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: String
    public var device: String
    public var createdAt: Date
    /// When its token stops working if nobody ends the session first.
    public var expiresAt: Date
    /// True for the session the request was made with.
    public var current: Bool

    public init(id: String, device: String, createdAt: Date, expiresAt: Date, current: Bool) {
        self.id = id
        self.device = device
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.current = current
    }
}

@MessagePackCodable
public struct SignedIn: Codable, Sendable {
    /// Put in the `session` field of every request header. Opaque; keep it secret.
    public var token: String
    public var session: SessionInfo
    public var account: AccountInfo

    public init(token: String, session: SessionInfo, account: AccountInfo) {
        self.token = token
        self.session = session
        self.account = account
    }
}

@MessagePackCodable
public struct WhoAmI: Codable, Sendable {
    public var account: AccountInfo
    public var session: SessionInfo

    public init(account: AccountInfo, session: SessionInfo) {
        self.account = account
        self.session = session
    }
}

@MessagePackCodable
public struct SessionList: Codable, Sendable {
    public var sessions: [SessionInfo]

    public init(sessions: [SessionInfo]) {
        self.sessions = sessions
    }
}

@MessagePackCodable
public struct SessionRef: Codable, Sendable {
    public var session: String

    public init(session: String) {
        self.session = session
    }
}

@MessagePackCodable
public struct PasswordChange: Codable, Sendable {
    public var current: String
    public var new: String

    public init(current: String, new: String) {
        self.current = current
        self.new = new
    }
}

@MessagePackCodable
public struct PasswordChanged: Codable, Sendable {
    /// How many other sessions were ended; the one that changed the password stays.
    public var endedSessions: Int

    public init(endedSessions: Int) {
        self.endedSessions = endedSessions
    }
}

@MessagePackCodable
public struct AccountDeletion: Codable, Sendable {
    /// The current password, so a session left open on a shared machine cannot delete the account.
    public var password: String

    public init(password: String) {
        self.password = password
    }
}

@MessagePackCodable
public struct AccountDeleted: Codable, Sendable, Equatable {
    public var user: String
    /// Services that have erased every row of the user.
    public var erased: [String]
    /// Services that did not answer yet; the planner keeps asking them until they have.
    public var pending: [String]

    public init(user: String, erased: [String], pending: [String]) {
        self.user = user
        self.erased = erased
        self.pending = pending
    }
}

/// Users whose display names another service shows (the authors of shared recipes).
@MessagePackCodable
public struct UserIDs: Codable, Equatable, Sendable {
    /// At most ``maxUsers``.
    public var users: [String]
    public static let maxUsers = 100

    public init(users: [String]) { self.users = users }
}

/// Display names by user id; a user without an account is left out.
@MessagePackCodable
public struct UserNames: Codable, Equatable, Sendable {
    public var names: [String: String]

    public init(names: [String: String]) { self.names = names }
}

extension AccountAPI {
    /// The display names of the given users, for another Sous service that shows them (the
    /// catalog's community page); no user may ask.
    public static let names = Method<Planner, UserIDs, UserNames>.read("account.names", .service, activity: false)
    /// Argon2id hashing runs on the heavy lane: at most its two threads hash at once.
    public static let register = Method<Planner, Registration, AccountInfo>.write("account.register", .public, lane: .heavy)
    public static let login = Method<Planner, SignIn, SignedIn>.write("account.login", .public, lane: .heavy)
    public static let logout = Method<Planner, Empty, Empty>.write("account.logout", .user, activity: false)
    public static let whoami = Method<Planner, Empty, WhoAmI>.read("account.whoami", .user, activity: false)
    public static let sessions = Method<Planner, Empty, SessionList>.read("account.sessions", .user, activity: false)
    public static let endSession = Method<Planner, SessionRef, SessionList>.write("account.endSession", .user, activity: false)
    public static let changePassword = Method<Planner, PasswordChange, PasswordChanged>.write(
        "account.password", .user, lane: .heavy, activity: false)
    /// Not replayed for a retry (nothing of the user is kept): a retried delete answers that
    /// the session has ended.
    public static let delete = Method<Planner, AccountDeletion, AccountDeleted>.write(
        "account.delete", .user, lane: .heavy, remembersReply: false, activity: false)
}

// MARK: Recovering a forgotten password

/// `account.recover`: the email of the account whose password was forgotten.
@MessagePackCodable
public struct RecoveryRequest: Codable, Sendable {
    public var email: String

    public init(email: String) { self.email = email }
}

/// The same answer whether or not the email has an account: a code is on its way if it does.
@MessagePackCodable
public struct RecoveryStarted: Codable, Sendable, Equatable {
    public var message: String
    /// How long a code is valid, in minutes.
    public var validMinutes: Int

    public init(message: String, validMinutes: Int) {
        self.message = message
        self.validMinutes = validMinutes
    }
}

/// `account.reset`: a recovery code (as mailed, with or without its dash, any case) and the
/// new password, which follows the same rules as at registration.
@MessagePackCodable
public struct PasswordReset: Codable, Sendable {
    public var code: String
    public var password: String

    public init(code: String, password: String) {
        self.code = code
        self.password = password
    }
}

@MessagePackCodable
public struct PasswordResetDone: Codable, Sendable, Equatable {
    /// The account's email, to sign in with.
    public var email: String
    /// Every session of the account ended with the reset.
    public var endedSessions: Int

    public init(email: String, endedSessions: Int) {
        self.email = email
        self.endedSessions = endedSessions
    }
}

extension AccountAPI {
    /// Mails a single-use code (and a link to the web app) to the account with this email,
    /// valid 30 minutes; answered alike, in the same time, whether or not the email has one.
    public static let recover = Method<Planner, RecoveryRequest, RecoveryStarted>.write("account.recover", .public, activity: false)
    /// Sets a new password with a recovery code and ends every session of the account.
    public static let reset = Method<Planner, PasswordReset, PasswordResetDone>.write(
        "account.reset", .public, lane: .heavy, activity: false)
}

// MARK: Confirming an email

/// `account.verify`: the code mailed at registration (as mailed, with or without its dash, any
/// case).
@MessagePackCodable
public struct EmailVerification: Codable, Sendable {
    public var code: String

    public init(code: String) { self.code = code }
}

extension AccountAPI {
    /// Confirms the email of an account registered on a server that asks for it, with the code
    /// mailed to it (valid 24 hours, once). Answers the account, which can sign in from then on.
    public static let verify = Method<Planner, EmailVerification, AccountInfo>.write(
        "account.verify", .public, lane: .heavy, activity: false)
    /// Mails a new confirmation code to an unconfirmed account with this email; answered alike,
    /// in the same time, whether or not there is one (at most three a day per account).
    public static let resendVerification = Method<Planner, RecoveryRequest, RecoveryStarted>.write(
        "account.resendVerification", .public, activity: false)
}
