import Foundation
public import SousSchema
public import SousWire
public import ZeroMQ

/// The accounts `sous login` signed in on this machine: `<config>/credentials.json`, mode 0600
/// in a 0700 folder. `<config>` is `SOUS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/sous`, else
/// `~/.config/sous`. `--user` picks one of them by email or user id; without it, the one
/// signed in last.
public struct Credentials: Codable, Sendable, Equatable {
    public struct Account: Codable, Sendable, Equatable {
        public var user: String
        public var email: String
        public var name: String
        public var session: String
        public var token: String

        public init(user: String, email: String, name: String, session: String, token: String) {
            self.user = user
            self.email = email
            self.name = name
            self.session = session
            self.token = token
        }
    }

    /// The user id of the account used without `--user`.
    public var current: String?
    public var accounts: [Account] = []

    public init(current: String? = nil, accounts: [Account] = []) {
        self.current = current
        self.accounts = accounts
    }

    /// Where the file is; a task-local so tests can point commands at a folder of their own.
    @TaskLocal public static var folder: String? = nil

    static var path: URL {
        let environment = ProcessInfo.processInfo.environment
        let folder =
            Self.folder ?? environment["SOUS_CONFIG_DIR"]
            ?? environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0).appendingPathComponent("sous").path }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".config/sous").path
        return URL(fileURLWithPath: folder).appendingPathComponent("credentials.json")
    }

    public static func load() throws -> Credentials {
        guard let data = FileManager.default.contents(atPath: path.path) else { return Credentials() }
        do {
            return try JSONDecoder().decode(Credentials.self, from: data)
        } catch {
            throw ServiceError.badRequest("\(path.path) is not a credentials file (\(error)); delete it and sign in again", field: "credentials")
        }
    }

    /// Writes the file whole, readable by its owner only.
    public func save() throws {
        let file = Self.path
        let folder = file.deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let temporary = file.path + ".tmp"
        _ = FileManager.default.createFile(atPath: temporary, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600])
        guard rename(temporary, file.path) == 0 else {
            throw ServiceError.internal("could not write \(file.path): \(String(cString: strerror(errno)))")
        }
    }

    /// The account `selector` (an email or user id) names, or the current one.
    public func account(_ selector: String?) throws(ServiceError) -> Account {
        if let selector {
            let lowered = selector.lowercased()
            guard let account = accounts.first(where: { $0.user == selector || $0.email == lowered }) else {
                throw ServiceError(.unauthorized, "\(selector) is not signed in on this machine: run `sous login --email EMAIL`", field: "user")
            }
            return account
        }
        guard let current, let account = accounts.first(where: { $0.user == current }) ?? accounts.last else {
            throw ServiceError(.unauthorized, "not signed in: run `sous register` or `sous login`", field: "user")
        }
        return account
    }

    public mutating func remember(_ signedIn: SignedIn) {
        accounts.removeAll { $0.user == signedIn.account.user }
        accounts.append(
            Account(
                user: signedIn.account.user, email: signedIn.account.email, name: signedIn.account.name, session: signedIn.session.id,
                token: signedIn.token
            ))
        current = signedIn.account.user
    }

    public mutating func forget(user: String) {
        accounts.removeAll { $0.user == user }
        if current == user { current = accounts.last?.user }
    }
}

/// How a user's client (the CLI, machine tools) reaches a service over CURVE.
public enum UserClientKeys {
    /// Where the services' public keys are: SOUS_KEYS_DIR, else `$SOUS_DATA_DIR/keys`, else
    /// `./data/keys` (what `deploy/run-local.sh` uses).
    public static var directory: String {
        let environment = ProcessInfo.processInfo.environment
        return environment["SOUS_KEYS_DIR"] ?? URL(fileURLWithPath: environment["SOUS_DATA_DIR"] ?? "./data").appendingPathComponent("keys").path
    }

    /// A key pair for this run: a user is known by their session token, not by a device key.
    static let keyPair: CurveKeyPair? = try? CurveKeyPair.generate()

    /// CURVE with the service's published key (read from `keysDirectory`, default
    /// ``directory``), for any endpoint but `inproc`, as `keyPair` (default: this run's).
    public static func curve(
        for service: SousService, endpoint: String, keysDirectory: String? = nil, keyPair: CurveKeyPair? = nil
    ) -> CurveSetupProvider {
        { () throws(ServiceError) -> CurveClientSetup? in
            guard !endpoint.hasPrefix("inproc://") else { return nil }
            let path = PublishedKeys.publicKeyPath(of: service, in: keysDirectory ?? directory)
            guard let key = PublishedKeys.readLine(path) else {
                throw .unavailable(
                    "no public key for the \(service.rawValue) at \(path): set SOUS_KEYS_DIR to the folder the services publish their keys in")
            }
            guard CurveKeyPair.isValidKey(key), let pair = keyPair ?? Self.keyPair else {
                throw .unavailable("\(path) does not hold a CURVE public key")
            }
            return CurveClientSetup(serverKey: key, keyPair: pair)
        }
    }
}
