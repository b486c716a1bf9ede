public import Foundation
public import Logging
@_exported public import SousClient
public import SousCrypto
import SousWire
import Synchronization
public import ZeroMQ

/// Everything a service executable needs to start, resolved in layers: local defaults, then
/// `SOUS_*` environment variables, then command-line flags (see README, "Configuration").
public struct ServiceConfiguration: Sendable {
    public var service: SousService
    /// Where the ROUTER binds (`SOUS_<NAME>_BIND`, default: the service's own endpoint).
    public var bind: String
    /// Where the PUB socket binds (`SOUS_<NAME>_EVENTS_BIND`).
    public var eventsBind: String
    /// Folder of the SQLite file and of the service's own key (`SOUS_DATA_DIR`, default `./data`);
    /// nil keeps the database in memory.
    public var dataDirectory: String?
    /// The PostgreSQL database that holds the data instead of SQLite (`SOUS_<NAME>_DATABASE_URL`,
    /// else `SOUS_DATABASE_URL`; the schema defaults to the service's name).
    public var postgres: PostgresLocation?
    /// `SOUS_LOG_LEVEL`: trace, debug, info, notice, warning, error or critical.
    public var logLevel: Logger.Level
    /// Where the other services are, for the calls and subscriptions this one makes.
    public var peers: [SousService: ServiceEndpoints]
    /// Per-attempt timeout of calls to other services (`SOUS_TIMEOUT_MS`).
    public var callTimeout: Duration
    /// A different per-attempt timeout for some peers (tests give an absent peer a short one).
    public var peerTimeouts: [SousService: Duration] = [:]
    /// Threads and bounds of the request server (see ``RPCServer/Options``).
    public var serverOptions = RPCServer.Options()
    /// Where keys come from (``KeySettings``); copies of a configuration share the loaded keys.
    public var keys: KeySettings
    /// Where the service reads the time (`SOUS_CLOCK`: `system`, or `manual` / `manual:<ISO 8601>`
    /// for a clock that only moves through the `clock.set` method: for end-to-end tests).
    public var clock: WallClock

    public init(
        service: SousService,
        bind: String,
        eventsBind: String,
        dataDirectory: String?,
        logLevel: Logger.Level = .info,
        peers: [SousService: ServiceEndpoints] = [:],
        callTimeout: Duration = .seconds(3),
        clock: WallClock = .system(),
        keys: KeySettings = KeySettings()
    ) {
        self.keys = keys
        self.service = service
        self.bind = bind
        self.eventsBind = eventsBind
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
        self.peers = peers
        self.callTimeout = callTimeout
        self.clock = clock
    }

    /// Defaults overridden by the environment.
    public static func fromEnvironment(
        _ service: SousService, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> ServiceConfiguration {
        let own = ServiceEndpoints.fromEnvironment(service, environment: environment)
        var peers: [SousService: ServiceEndpoints] = [:]
        for other in SousService.allCases { peers[other] = .fromEnvironment(other, environment: environment) }
        let levelText = environment["SOUS_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ConfigurationError(variable: "SOUS_LOG_LEVEL", message: "unknown log level \"\(levelText)\"")
        }
        var timeout = Duration.seconds(3)
        if let text = environment["SOUS_TIMEOUT_MS"] {
            guard let milliseconds = Int(text), milliseconds > 0 else {
                throw ConfigurationError(variable: "SOUS_TIMEOUT_MS", message: "must be a positive number of milliseconds, got \"\(text)\"")
            }
            timeout = .milliseconds(milliseconds)
        }
        let clock = try WallClock.fromSetting(environment["SOUS_CLOCK"] ?? "system")
        let keysDirectory = environment["SOUS_KEYS_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        var postgres: PostgresLocation?
        for variable in ["\(service.environmentPrefix)_DATABASE_URL", "SOUS_DATABASE_URL"] {
            guard let url = environment[variable], !url.isEmpty else { continue }
            do {
                postgres = try PostgresLocation(url: url, defaultSchema: service.rawValue)
            } catch {
                throw ConfigurationError(variable: variable, message: error.description)
            }
            break
        }
        var configuration = ServiceConfiguration(
            service: service,
            bind: environment["\(service.environmentPrefix)_BIND"] ?? own.requests,
            eventsBind: environment["\(service.environmentPrefix)_EVENTS_BIND"] ?? own.events,
            dataDirectory: environment["SOUS_DATA_DIR"] ?? "./data",
            logLevel: level,
            peers: peers,
            callTimeout: timeout,
            clock: clock,
            keys: KeySettings(directory: keysDirectory)
        )
        configuration.postgres = postgres
        return configuration
    }

    /// Where the service's data is: PostgreSQL when configured, else SQLite in ``dataDirectory``.
    public var database: DatabaseLocation {
        postgres.map { .postgres($0) } ?? .sqlite(directory: dataDirectory)
    }

    /// A configuration for tests: unique `inproc://` endpoints, an in-memory database, and peer
    /// calls that wait 10 s per attempt (a bound on a hang on a busy machine, not a speed check).
    public static func inProcess(
        _ service: SousService, dataDirectory: String? = nil, peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system()
    ) -> ServiceConfiguration {
        let unique = UUID().uuidString
        var configuration = ServiceConfiguration(
            service: service,
            bind: "inproc://\(service.rawValue)-\(unique)",
            eventsBind: "inproc://\(service.rawValue)-events-\(unique)",
            dataDirectory: dataDirectory,
            logLevel: .warning,
            peers: peers,
            callTimeout: .seconds(10),
            clock: clock,
            keys: .inProcess(service)
        )
        configuration.postgres = TestDatabase.location(for: service, dataDirectory: dataDirectory)
        return configuration
    }

    /// Where public keys are shared: `SOUS_KEYS_DIR`, else `<data>/keys`; nil without either.
    public var keysDirectory: String? {
        keys.directory ?? dataDirectory.map { URL(fileURLWithPath: $0).appendingPathComponent("keys").path }
    }

    /// This service's keys: loaded (or created) on first use, then shared by every copy.
    public func keyring() throws -> Keyring {
        try keys.keyring(for: service, dataDirectory: dataDirectory, keysDirectory: keysDirectory)
    }

    /// How a client of this service's peers connects: CURVE with the peer's published key, or
    /// nothing over `inproc`.
    public func curveSetup(for peer: SousService, events: Bool = false) -> CurveSetupProvider {
        let endpoint = events ? endpoints(of: peer).events : endpoints(of: peer).requests
        return { () throws(ServiceError) -> CurveClientSetup? in
            guard !endpoint.hasPrefix("inproc://") else { return nil }
            let keyring: Keyring
            do {
                keyring = try self.keyring()
            } catch {
                throw .unavailable("the \(self.service.rawValue) has no key of its own: \(error)")
            }
            guard let serverKey = keyring.publicKey(of: peer) else {
                throw .unavailable("the \(peer.rawValue) has not published its public key in \(self.keysDirectory ?? "the keys folder") yet")
            }
            return CurveClientSetup(serverKey: serverKey, keyPair: keyring.own)
        }
    }

    /// The endpoints of a peer service; the local defaults if none was configured.
    public func endpoints(of peer: SousService) -> ServiceEndpoints {
        peers[peer] ?? .localDefault(for: peer)
    }
}

public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let variable: String
    public let message: String

    public init(variable: String, message: String) {
        self.variable = variable
        self.message = message
    }

    public var description: String { "\(variable): \(message)" }
}

extension WallClock {
    /// Parses `SOUS_CLOCK`: `system`, `manual` (starting now) or `manual:2026-03-29T16:00:00Z`.
    static func fromSetting(_ text: String) throws(ConfigurationError) -> WallClock {
        if text == "system" { return .system() }
        if text == "manual" { return .manual(at: Date()) }
        if text.hasPrefix("manual:") {
            let formatter = ISO8601DateFormatter()
            if let start = formatter.date(from: String(text.dropFirst("manual:".count))) { return .manual(at: start) }
        }
        throw ConfigurationError(variable: "SOUS_CLOCK", message: "expected system, manual or manual:<ISO 8601 instant>, got \"\(text)\"")
    }
}

/// Where a service's keys come from (docs/PROTOCOL.md, "Keys"). A reference: copies of a
/// configuration share one loaded ``Keyring``.
public final class KeySettings: Sendable {
    /// `SOUS_KEYS_DIR`; nil means `<data>/keys`.
    public let directory: String?
    /// Public keys known up front instead of read from the keys folder.
    public let serviceKeys: [SousService: String]
    /// The service's own key pair, if given; otherwise `<data>/<service>.curve`.
    public let ownKeyPair: CurveKeyPair?
    /// The session-signing key pair, if given (in-process tests): the planner signs with it,
    /// every service checks with its public half. Otherwise the planner keeps its own in
    /// `<data>/sessions.key` and publishes the public half.
    public let sessionSigningKey: Sodium.SigningKeyPair?
    /// The web app's public key, if given; otherwise `<keys>/web.pub`.
    public let webAppKey: String?
    private let loaded = Mutex<Keyring?>(nil)

    public init(
        directory: String? = nil, serviceKeys: [SousService: String] = [:], ownKeyPair: CurveKeyPair? = nil,
        sessionSigningKey: Sodium.SigningKeyPair? = nil, webAppKey: String? = nil
    ) {
        self.directory = directory
        self.serviceKeys = serviceKeys
        self.ownKeyPair = ownKeyPair
        self.sessionSigningKey = sessionSigningKey
        self.webAppKey = webAppKey
    }

    /// Keys for a service configured with ``ServiceConfiguration/inProcess(_:dataDirectory:peers:clock:)``:
    /// one key pair per service for the whole process, each service knowing the others', the
    /// process's session key, and a web app key (``inProcessWebAppKeyPair``): services in one
    /// test process talk over TCP as deployed.
    public static func inProcess(_ service: SousService) -> KeySettings {
        KeySettings(
            serviceKeys: InProcessKeys.publicKeys, ownKeyPair: InProcessKeys.pairs[service], sessionSigningKey: SessionSigner.inProcess.keyPair,
            webAppKey: InProcessKeys.webApp?.publicKey)
    }

    /// The key pair that in-process services recognise as the web app's.
    public static var inProcessWebAppKeyPair: CurveKeyPair? { InProcessKeys.webApp }

    func keyring(for service: SousService, dataDirectory: String?, keysDirectory: String?) throws -> Keyring {
        try loaded.withLock { loaded in
            if let loaded { return loaded }
            let own = try ownKeyPair ?? Keyring.ownKeyPair(of: service, dataDirectory: dataDirectory)
            if let keysDirectory { try Keyring.publish(own.publicKey, of: service, in: keysDirectory) }
            let keyring = Keyring(
                own: own, directory: keysDirectory, serviceKeys: serviceKeys, sessionKey: sessionSigningKey?.publicKey, webAppKey: webAppKey)
            loaded = keyring
            return keyring
        }
    }
}

/// The service key pairs of one process's in-process services (``KeySettings/inProcess(_:)``).
enum InProcessKeys {
    static let pairs: [SousService: CurveKeyPair] = {
        var pairs: [SousService: CurveKeyPair] = [:]
        for service in SousService.allCases { pairs[service] = try? CurveKeyPair.generate() }
        return pairs
    }()

    static var publicKeys: [SousService: String] { pairs.mapValues(\.publicKey) }

    static let webApp: CurveKeyPair? = try? CurveKeyPair.generate()
}

/// Tests on PostgreSQL: `SOUS_TEST_DATABASE_URL` (set by `deploy/test.sh`, which starts a
/// private server) makes every service configured with
/// ``ServiceConfiguration/inProcess(_:dataDirectory:peers:clock:)`` keep its data there, each
/// in a schema of its own. A restart test that reopens one data folder reopens one schema.
public enum TestDatabase {
    public static let url: String? = ProcessInfo.processInfo.environment["SOUS_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// A schema of its own on the test server, for a test that opens a database itself.
    public static func freshLocation(_ label: String) -> PostgresLocation? {
        location(for: label, dataDirectory: nil)
    }

    static func location(for service: SousService, dataDirectory: String?) -> PostgresLocation? {
        location(for: service.rawValue, dataDirectory: dataDirectory)
    }

    private static func location(for label: String, dataDirectory: String?) -> PostgresLocation? {
        guard let url else { return nil }
        // FNV-1a of the folder (or of a fresh id): a short, stable, lower-case schema name.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (dataDirectory ?? UUID().uuidString).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        do {
            return try PostgresLocation(url: url, defaultSchema: "t_\(String(hash, radix: 16))_\(label)")
        } catch {
            preconditionFailure("SOUS_TEST_DATABASE_URL: \(error)")
        }
    }
}
