public import Foundation
import Logging
import SousCrypto
public import SousMail
import SousRuntime
import SousSchema
public import SousWire

/// Mailed codes: ten characters of Crockford's base32 (50 random bits), mailed as
/// `ABCDE-FGHJK`. Only their digest is stored, so the table gives nobody a working code. Each
/// is for one ``Purpose`` and works for nothing else.
enum RecoveryCode {
    enum Purpose: String, Sendable {
        /// A new password (`account.recover`, `account.reset`).
        case reset
        /// Confirming the email an account was registered with (`account.verify`).
        case verify

        var validity: TimeInterval { self == .reset ? 30 * 60 : 24 * 3600 }
    }

    static let validity = Purpose.reset.validity
    /// Codes of one purpose mailed to one account in a day, at most.
    static let perAccountPerDay = 3
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    static func make() -> String {
        String(decoding: Sodium.randomBytes(10).map { alphabet[Int($0 & 31)] }, as: UTF8.self)
    }

    /// The code as typed (any case, with or without the dash or spaces; O read as 0, I and L as
    /// 1), or nil if it cannot be one.
    static func normalized(_ text: String) -> String? {
        var code: [UInt8] = []
        for byte in text.uppercased().utf8 where byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ") {
            let read: UInt8 =
                switch byte {
                case UInt8(ascii: "O"): UInt8(ascii: "0")
                case UInt8(ascii: "I"), UInt8(ascii: "L"): UInt8(ascii: "1")
                default: byte
                }
            guard alphabet.contains(read), code.count < 10 else { return nil }
            code.append(read)
        }
        return code.count == 10 ? String(decoding: code, as: UTF8.self) : nil
    }

    static func display(_ code: String) -> String { "\(code.prefix(5))-\(code.dropFirst(5))" }

    static func digest(_ code: String) -> String {
        Sodium.digest([Array("sous-recovery-code".utf8), Array(code.utf8)]).map { String(format: "%02x", $0) }.joined()
    }
}

/// How the planner reaches people by mail: the relay (nil when none is configured) and the
/// web app's public address for links.
public struct AccountMail: Sendable {
    public let settings: MailSettings?
    /// `SOUS_WEB_URL`: where people open the web app (`https://sous.example.org`), for the reset link.
    public let webURL: String?
    /// `SOUS_VERIFY_EMAIL=on`: a new account confirms its email with a mailed code before it
    /// can sign in (needs a relay).
    public let verifiesEmail: Bool

    public init(settings: MailSettings?, webURL: String?, verifiesEmail: Bool = false) {
        self.settings = settings
        self.webURL = webURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.verifiesEmail = verifiesEmail && settings != nil
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AccountMail {
        let settings = try MailSettings.fromEnvironment(environment)
        let verifies: Bool
        switch environment["SOUS_VERIFY_EMAIL"]?.lowercased() ?? "off" {
        case "on", "true", "1": verifies = true
        case "off", "false", "0", "": verifies = false
        case let other: throw MailSettingsError("SOUS_VERIFY_EMAIL must be on or off, not \"\(other.prefix(20))\"")
        }
        if verifies, settings == nil {
            throw MailSettingsError("SOUS_VERIFY_EMAIL=on needs a mail relay to send the codes: set SOUS_SMTP_URL and SOUS_MAIL_FROM")
        }
        return AccountMail(settings: settings, webURL: environment["SOUS_WEB_URL"].flatMap { $0.isEmpty ? nil : $0 }, verifiesEmail: verifies)
    }

    func mail(_ purpose: RecoveryCode.Purpose, to account: AccountInfo, code: String, id: String) -> MailMessage {
        switch purpose {
        case .reset: recoveryMail(to: account, code: code, id: id)
        case .verify: verificationMail(to: account, code: code, id: id)
        }
    }

    func verificationMail(to account: AccountInfo, code: String, id: String) -> MailMessage {
        let link = webURL.map { "\n\nOr open this link:\n\($0)/verify?code=\(code)" } ?? ""
        return MailMessage(
            to: account.email, subject: "Confirm your email for Sous",
            text: """
                Hello \(account.name),

                someone, hopefully you, made a Sous account with this email (\(account.email)). To confirm it is yours, enter the code.

                Your code: \(RecoveryCode.display(code))\(link)

                It works once, for 24 hours. If you did not make this account, ignore this mail: it cannot be used without the code.
                """,
            messageID: id)
    }

    func recoveryMail(to account: AccountInfo, code: String, id: String) -> MailMessage {
        let link = webURL.map { "\n\nOr open this link:\n\($0)/reset?code=\(code)" } ?? ""
        return MailMessage(
            to: account.email, subject: "Your Sous password reset code",
            text: """
                Hello \(account.name),

                someone, hopefully you, asked to reset the password of your Sous account (\(account.email)).

                Your code: \(RecoveryCode.display(code))\(link)

                It works once, for 30 minutes. If you did not ask, ignore this mail: your password stays as it is.
                """,
            messageID: id)
    }

    func passwordChangedMail(to account: AccountInfo, at date: Date, id: String) -> MailMessage {
        MailMessage(
            to: account.email, subject: "Your Sous password was changed",
            text: """
                Hello \(account.name),

                the password of your Sous account (\(account.email)) was reset with a code mailed to this address, at \(ISO8601DateFormatter().string(from: date)). Every device was signed out.

                If this was not you, reset it again at once, and tell whoever runs your Sous server.
                """,
            messageID: id)
    }
}

extension AccountStore {
    /// Queues a recovery code for the account with `email`, if there is one and it has had
    /// fewer than three today. The same write happens either way (a row for the request and the
    /// mail, never sent without an account), so the answer takes as long whether or not the email
    /// has an account. Returns the code to the operator's own call (`mail` nil) when there is one.
    @discardableResult
    public func startRecovery(email: String, now: Date, mail: AccountMail?) throws(ServiceError) -> String? {
        try startCode(.reset, email: email, now: now, mail: mail)
    }

    /// ``startRecovery(email:now:mail:)`` for any purpose: a confirmation code goes only to an
    /// account whose email is not confirmed yet.
    @discardableResult
    func startCode(_ purpose: RecoveryCode.Purpose, email: String, now: Date, mail: AccountMail?) throws(ServiceError) -> String? {
        let code = RecoveryCode.make()
        return try storage {
            try database.write { session -> String? in
                let account = try session.fetchOne(AccountRecord.self, "SELECT * FROM account WHERE email = ?", [email])
                let today =
                    try session.value(
                        Int64.self, #"SELECT COUNT(*) FROM recovery_code WHERE "user" = ? AND purpose = ? AND created_at > ?"#,
                        [account?.info.user, purpose.rawValue, now.timeIntervalSince1970 - 24 * 3600]) ?? 0
                let wanted = purpose == .reset || account?.verifiedAt == nil
                let granted = account != nil && wanted && (mail == nil || today < RecoveryCode.perAccountPerDay)
                try session.execute(#"DELETE FROM recovery_code WHERE created_at < ?"#, [now.timeIntervalSince1970 - 7 * 24 * 3600])
                try Self.queueCode(
                    code, purpose, for: granted ? account?.info : nil, email: email, mail: mail, delay: granted ? Double.random(in: 1...10) : 0,
                    now: now, session)
                return granted ? code : nil
            }
        }
    }

    /// Stores `code` for `account` (or for nobody: the same row and mail, never sent) and queues
    /// its mail through `mail`'s relay.
    static func queueCode(
        _ code: String, _ purpose: RecoveryCode.Purpose, for account: AccountInfo?, email: String, mail: AccountMail?, delay: Double, now: Date,
        _ session: any SQLSession
    ) throws {
        try session.execute(
            #"INSERT INTO recovery_code (code_hash, "user", created_at, expires_at, used_at, purpose) VALUES (?, ?, ?, ?, NULL, ?)"#,
            [
                RecoveryCode.digest(code), account?.user, now.timeIntervalSince1970, now.timeIntervalSince1970 + purpose.validity,
                purpose.rawValue,
            ])
        guard let mail else { return }
        // The same mail written either way, sent only for an account: one write of one size, so
        // the reply takes as long. It leaves after a random pause, so the sending does not slow
        // the next replies right after an email with an account.
        let to = account ?? AccountInfo(user: "", email: email, name: "there", role: .user, createdAt: now)
        try Outbox.enqueue(
            channel: MailTransport.channel, recipient: email, user: account?.user,
            payload: mail.mail(purpose, to: to, code: code, id: AccountStore.newID(prefix: "\(purpose.rawValue)-")), delay: delay,
            sending: account != nil, now: now, session)
    }

    /// The unconfirmed account `code` was mailed to confirms its email: the code (and every other
    /// confirmation code of the account) is used up. Nil for a wrong, used or expired code.
    func verify(code: String, now: Date) throws(ServiceError) -> AccountInfo? {
        try storage {
            try database.write { session -> AccountInfo? in
                let digest = RecoveryCode.digest(code)
                guard
                    let user = try session.value(
                        String.self,
                        #"SELECT "user" FROM recovery_code WHERE code_hash = ? AND purpose = 'verify' AND used_at IS NULL AND expires_at > ?"#,
                        [digest, now.timeIntervalSince1970])
                else { return nil }
                try session.execute(
                    #"UPDATE recovery_code SET used_at = ? WHERE "user" = ? AND purpose = 'verify' AND used_at IS NULL"#,
                    [now.timeIntervalSince1970, user])
                try session.execute(
                    #"UPDATE account SET verified_at = ? WHERE "user" = ? AND verified_at IS NULL"#, [now.timeIntervalSince1970, user])
                return try session.fetchOne(AccountRecord.self, #"SELECT * FROM account WHERE "user" = ?"#, [user])?.info
            }
        }
    }

    /// Confirms the email of the account that has it, by hand (`sous-planner account confirm`):
    /// true when it was not confirmed before, nil when no account has it.
    public func confirmEmail(_ email: String, now: Date) throws(ServiceError) -> Bool? {
        try storage {
            try database.write { session -> Bool? in
                guard try session.value(Int.self, "SELECT 1 FROM account WHERE email = ?", [email]) != nil else { return nil }
                let changed = try session.execute(
                    "UPDATE account SET verified_at = ? WHERE email = ? AND verified_at IS NULL", [now.timeIntervalSince1970, email])
                return changed == 1
            }
        }
    }

    /// Sets a new password with a valid code: the code is used up (with every other code of the
    /// account), every session ends, and the account is told by mail. One transaction.
    func reset(
        code: String, password: String, now: Date, mail: AccountMail?
    ) throws(ServiceError) -> (account: AccountInfo, ended: [RevokedSession])? {
        let digest = RecoveryCode.digest(code)
        let found = try storage {
            try database.read { session in
                try session.rows(
                    #"SELECT a.* FROM recovery_code c JOIN account a ON a."user" = c."user" WHERE c.code_hash = ? AND c.purpose = 'reset' AND c.used_at IS NULL AND c.expires_at > ?"#,
                    [digest, now.timeIntervalSince1970]
                ).first.map { AccountRecord(row: $0) }
            }
        }
        guard let found else { return nil }
        try AccountRules.checkNewPassword(password, email: found.info.email, field: "password")
        guard let hash = Sodium.hashPassword(password, cost: passwordCost) else { throw .internal("the password could not be hashed") }
        return try storage {
            try database.write { session -> (AccountInfo, [RevokedSession])? in
                // Used meanwhile by a concurrent reset: this one changes nothing.
                let claimed = try session.execute(
                    "UPDATE recovery_code SET used_at = ? WHERE code_hash = ? AND purpose = 'reset' AND used_at IS NULL AND expires_at > ?",
                    [now.timeIntervalSince1970, digest, now.timeIntervalSince1970])
                guard claimed == 1 else { return nil }
                try session.execute(
                    #"UPDATE recovery_code SET used_at = ? WHERE "user" = ? AND purpose = 'reset' AND used_at IS NULL"#,
                    [now.timeIntervalSince1970, found.info.user])
                // The code came by mail to this address: that confirms it too.
                try session.execute(
                    #"UPDATE account SET password_hash = ?, verified_at = COALESCE(verified_at, ?) WHERE "user" = ?"#,
                    [hash, now.timeIntervalSince1970, found.info.user])
                let ended = try Self.endSessions(session, #"SELECT * FROM session WHERE "user" = ? ORDER BY created_at, id"#, [found.info.user])
                try PlannerStore.stopFeed(session, user: found.info.user)
                if let mail, mail.settings != nil {
                    let id = AccountStore.newID(prefix: "changed-")
                    try Outbox.enqueue(
                        channel: MailTransport.channel, recipient: found.info.email, user: found.info.user,
                        payload: mail.passwordChangedMail(to: found.info, at: now, id: id), now: now, session)
                }
                return (found.info, ended)
            }
        }
    }
}

extension AccountHandlers {
    /// `account.recover`. What it answers depends on nothing but the email's form: an address
    /// that asks too often is slowed down like failed sign-ins, and an account gets at most three
    /// codes a day, both without telling whether the email has an account.
    func recover(_ request: RecoveryRequest, context: RequestContext) throws -> RecoveryStarted {
        guard mail.settings != nil else {
            throw ServiceError.unavailable(
                "this Sous server sends no mail; ask whoever runs it for a reset code (sous-planner account reset-code --email …)")
        }
        let email = try AccountRules.normalizedEmail(request.email)
        let address = Self.address(of: context)
        let clock = host.clock.now
        try checkAddress(address, now: clock, context: context, refusing: "recovery")
        // Every request counts against its address, as a failed sign-in would.
        throttle.withLock { $0.failed(address: address, now: clock) }
        try store.startRecovery(email: email, now: clock, mail: mail)
        // Woken alike for every email (it finds the mail due after its pause).
        courier?.wake()
        context.logger.notice("recovery asked", metadata: ["address": "\(address ?? "in-process")"])
        return RecoveryStarted(
            message: "If an account has this email, a code is on its way to it. It works once, for 30 minutes.",
            validMinutes: Int(RecoveryCode.validity / 60))
    }

    /// `account.reset`. A wrong, used or expired code counts against the caller's address like a
    /// failed sign-in (20 in 10 minutes, then refused); with 50 random bits a code cannot be
    /// guessed within its 30 minutes.
    func reset(_ request: PasswordReset, context: RequestContext) throws -> PasswordResetDone {
        let address = Self.address(of: context)
        let clock = host.clock.now
        try checkAddress(address, now: clock, context: context, refusing: "reset")
        try AccountRules.checkOfferedPassword(request.password)
        guard let code = RecoveryCode.normalized(request.code),
            let (account, ended) = try store.reset(code: code, password: request.password, now: clock, mail: mail)
        else {
            throttle.withLock { $0.failed(address: address, now: clock) }
            context.logger.notice("reset with a wrong, used or expired code", metadata: ["address": "\(address ?? "in-process")"])
            throw ServiceError.badRequest("this code is wrong, used or expired; ask for a new one", field: "code")
        }
        revoked(ended)
        courier?.wake()
        context.logger.notice("password reset with a code", metadata: ["user": "\(account.user)", "endedSessions": "\(ended.count)"])
        return PasswordResetDone(email: account.email, endedSessions: ended.count)
    }

    /// `account.verify`. A wrong, used or expired code counts against the caller's address like
    /// a wrong reset code.
    func verify(_ request: EmailVerification, context: RequestContext) throws -> AccountInfo {
        let address = Self.address(of: context)
        let clock = host.clock.now
        try checkAddress(address, now: clock, context: context, refusing: "verification")
        guard let code = RecoveryCode.normalized(request.code), let account = try store.verify(code: code, now: clock) else {
            throttle.withLock { $0.failed(address: address, now: clock) }
            context.logger.notice("verification with a wrong, used or expired code", metadata: ["address": "\(address ?? "in-process")"])
            throw ServiceError.badRequest("this code is wrong, used or expired; ask for a new one", field: "code")
        }
        context.logger.notice("email confirmed", metadata: ["user": "\(account.user)"])
        return account
    }

    /// `account.resendVerification`: ``recover(_:context:)`` for a confirmation code.
    func resendVerification(_ request: RecoveryRequest, context: RequestContext) throws -> RecoveryStarted {
        guard mail.verifiesEmail else {
            throw ServiceError.badRequest("this Sous server does not ask to confirm emails: sign in", field: "email")
        }
        let email = try AccountRules.normalizedEmail(request.email)
        let address = Self.address(of: context)
        let clock = host.clock.now
        try checkAddress(address, now: clock, context: context, refusing: "verification mail")
        throttle.withLock { $0.failed(address: address, now: clock) }
        try store.startCode(.verify, email: email, now: clock, mail: mail)
        courier?.wake()
        return RecoveryStarted(
            message: "If an account with this email waits for confirmation, a new code is on its way to it. It works once, for 24 hours.",
            validMinutes: Int(RecoveryCode.Purpose.verify.validity / 60))
    }
}
