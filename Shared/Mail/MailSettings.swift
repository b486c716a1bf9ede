public import Foundation

/// The relay a service sends mail through, as the operator configured it:
///
/// - `SOUS_SMTP_URL`: `smtp://[user:password@]host[:587]` (STARTTLS, required before anything
///   is sent), `smtps://…[:465]` (TLS from the first byte), or `smtp+plain://…[:25]` (no
///   encryption: a mail catcher on the same machine; credentials are never sent this way).
///   User and password are percent-encoded, as in any URL.
/// - `SOUS_MAIL_FROM`: the sender, `Sous <sous@example.org>` or a bare address.
/// - `SOUS_SMTP_CA_FILE`: PEM certificates to trust besides the system's (a private relay).
///
/// No `SOUS_SMTP_URL` means the service sends no mail.
public struct MailSettings: Sendable, Equatable {
    public enum Security: String, Sendable, Equatable {
        case startTLS = "smtp"
        case tls = "smtps"
        case none = "smtp+plain"
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    public var sender: MailSender
    public var extraTrustRoots: String?
    /// How long the relay may take to answer any one command (and to connect).
    public var commandTimeout: Duration
    /// The name this machine gives in EHLO.
    public var helloName: String

    public init(
        host: String, port: Int, security: Security, username: String? = nil, password: String? = nil, sender: MailSender,
        extraTrustRoots: String? = nil, commandTimeout: Duration = .seconds(30), helloName: String = "localhost"
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.sender = sender
        self.extraTrustRoots = extraTrustRoots
        self.commandTimeout = commandTimeout
        self.helloName = helloName
    }

    /// The settings the environment gives, or nil when it names no relay.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(MailSettingsError) -> Self? {
        guard let url = environment["SOUS_SMTP_URL"], !url.isEmpty else { return nil }
        guard let from = environment["SOUS_MAIL_FROM"], !from.isEmpty else {
            throw MailSettingsError("SOUS_SMTP_URL is set but SOUS_MAIL_FROM is not: say who mail comes from, e.g. \"Sous <sous@example.org>\"")
        }
        var settings = try parse(url: url, from: from)
        if let file = environment["SOUS_SMTP_CA_FILE"], !file.isEmpty {
            guard FileManager.default.isReadableFile(atPath: file) else { throw MailSettingsError("SOUS_SMTP_CA_FILE: cannot read \(file)") }
            settings.extraTrustRoots = file
        }
        if let name = ProcessInfo.processInfo.hostName.split(separator: ".").first, !name.isEmpty { settings.helloName = String(name) }
        return settings
    }

    public static func parse(url text: String, from: String) throws(MailSettingsError) -> Self {
        guard let components = URLComponents(string: text), let scheme = components.scheme.flatMap(Security.init(rawValue:)) else {
            throw MailSettingsError("SOUS_SMTP_URL must start with smtp://, smtps:// or smtp+plain:// (not \(text.prefix(20))…)")
        }
        guard let host = components.host, !host.isEmpty else { throw MailSettingsError("SOUS_SMTP_URL names no host") }
        let port = components.port ?? (scheme == .tls ? 465 : scheme == .startTLS ? 587 : 25)
        guard (1...65535).contains(port) else { throw MailSettingsError("SOUS_SMTP_URL's port must be 1 to 65535") }
        let username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        if username != nil, scheme == .none {
            throw MailSettingsError("SOUS_SMTP_URL: smtp+plain:// never sends a password in clear; use smtp:// (STARTTLS) or smtps://")
        }
        let sender: MailSender
        do { sender = try MailSender(from) } catch { throw MailSettingsError("SOUS_MAIL_FROM: \(error)") }
        return Self(host: host, port: port, security: scheme, username: username, password: password, sender: sender)
    }
}

public struct MailSettingsError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
