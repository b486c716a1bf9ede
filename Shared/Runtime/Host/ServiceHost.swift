public import Foundation
public import Logging
public import ServiceLifecycle
public import SousWire
import Synchronization
import UnixSignals
import ZeroMQ

/// What every Sous service has: its RPC server (answering `health`), its event publisher, and the
/// other long-running parts it adds. A service's build function creates one; `main` runs it.
public final class ServiceHost: Sendable {
    public let configuration: ServiceConfiguration
    public let server: RPCServer
    public let publisher: EventPublisher
    /// Who may call what (``Gate``); the planner applies its own revocations to it.
    public let gate: Gate
    public let logger: Logger
    public let startedAt: Date
    /// This service's own key and the keys it trusts.
    public let keyring: Keyring
    /// The endpoints actually bound (OS-chosen ports resolved).
    public let boundEndpoints: ServiceEndpoints
    private let extraServices: [any Service]
    private let closeDatabase: @Sendable () -> Void

    public var name: String { configuration.service.rawValue }
    /// The service's clock (see ``WallClock``).
    public var clock: WallClock { configuration.clock }

    /// A host whose `health` reports `database`, whose keyed writes are remembered in it, and
    /// whose `account.erase` deletes a user's rows from it.
    ///
    /// The planner passes `ownRevocations`: how its replicas read the revocation list from their
    /// shared database (every other service asks the planner for it).
    public convenience init(
        configuration: ServiceConfiguration, logger: Logger, database: SousDatabase, services: [any Service] = [],
        ownRevocations: (@Sendable (_ since: Int64) throws -> Revocations)? = nil
    ) throws {
        try self.init(
            configuration: configuration, logger: logger, databaseHealth: { database.health() }, ledger: database, services: services,
            ownRevocations: ownRevocations, closeDatabase: { database.close() })
        let erasure = ErasureHandler(service: name, database: database)
        server.register(AccountAPI.erase, use: erasure.erase)
        server.register(HouseholdLookup.erase, use: erasure.eraseHousehold)
    }

    /// A host with its own health check; keyed writes are remembered in `ledger` (in memory
    /// unless given: only for hosts with no database of their own).
    public init(
        configuration: ServiceConfiguration,
        logger: Logger,
        databaseHealth: @escaping @Sendable () -> DatabaseHealth,
        ledger: any IdempotencyLedger = MemoryIdempotencyLedger(),
        services: [any Service] = [],
        ownRevocations: (@Sendable (_ since: Int64) throws -> Revocations)? = nil,
        closeDatabase: @escaping @Sendable () -> Void = {}
    ) throws {
        self.closeDatabase = closeDatabase
        self.configuration = configuration
        self.logger = logger
        let startedAt = Date()
        self.startedAt = startedAt
        let name = configuration.service.rawValue
        let keyring = try configuration.keyring()
        self.keyring = keyring
        let zap = try ZAPHandler.handler(for: .shared)
        let refusals = RefusalLog(logger: logger)
        // Requests: any CURVE client may connect (signing in is a request); the allow-list
        // decides who is a service. Events: services only.
        zap.setRules(for: RPCServer.zapDomain(of: name)) { request in
            guard request.mechanism == "CURVE", let key = request.curveKey else { return .deny(reason: "CURVE only") }
            if let service = keyring.service(withKey: key) { return .allow(userID: ConnectionPrincipal.service(service).userID) }
            if keyring.isWebApp(key) { return .allow(userID: ConnectionPrincipal.edge(address: request.address).userID) }
            return .allow(userID: ConnectionPrincipal.client(address: request.address).userID)
        }
        zap.setRules(for: EventPublisher.zapDomain(of: name)) { request in
            if request.mechanism == "CURVE", let key = request.curveKey, let service = keyring.service(withKey: key) {
                return .allow(userID: ConnectionPrincipal.service(service).userID)
            }
            refusals.refused(address: request.address, key: request.curveKey, what: "the event bus")
            return .deny(reason: "only Sous services may subscribe")
        }
        var serverOptions = configuration.serverOptions
        serverOptions.curve = keyring.own
        let revocations = RevocationList()
        let gate = Gate(revocations: revocations) { keyring.sessionKey }
        self.gate = gate
        let publisher = try EventPublisher(source: name, logger: logger, curve: keyring.own)
        self.publisher = publisher
        let clock = configuration.clock
        // The activity the notifier follows, declared on each method (`Method.recordsActivity`):
        // calls by signed-in users. A service acting for one (a peer call made while answering
        // them, or background work) is not the user doing something.
        server = try RPCServer(name: name, logger: logger, options: serverOptions, gate: gate, ledger: ledger) { context in
            guard case .user(let claims) = context.caller, !claims.user.isEmpty else { return }
            let user = claims.user
            publisher.publish(EventTopics.activity, ActivityEvent(user: user, time: clock.now, service: name, method: context.method))
        }
        boundEndpoints = ServiceEndpoints(
            requests: try server.bind(configuration.bind),
            events: try publisher.bind(configuration.eventsBind)
        )
        // Every service follows the planner's revocations; the planner's replicas read them from
        // their database (a host of the planner without one keeps the list itself).
        let sync: [any Service]
        switch (configuration.service, ownRevocations) {
        case (.planner, nil): sync = []
        case (.planner, let read?):
            sync = [RevocationSync(configuration: configuration, revocations: revocations, source: { try read($0) }, logger: logger)]
        default: sync = [RevocationSync(configuration: configuration, revocations: revocations, logger: logger)]
        }
        let probe = DatabaseHealthProbe(check: databaseHealth)
        extraServices = services + sync + [probe]
        CommonHandlers(name: name, startedAt: startedAt, clock: clock, database: probe, server: server).register()
    }

    /// Runs every part until SIGTERM/SIGINT (or, with `signals: false`, until the surrounding
    /// task triggers graceful shutdown or is cancelled), then stops them in reverse order.
    public func run(signals: Bool = true) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: ([server] + extraServices).map { .init(service: $0) },
                gracefulShutdownSignals: signals ? [.sigterm, .sigint] : [],
                logger: logger
            )
        )
        logger.info(
            "serving",
            metadata: [
                "requests": "\(boundEndpoints.requests)",
                "events": "\(boundEndpoints.events)",
                "version": "\(SousVersion.current)",
            ])
        defer { closeDatabase() }
        try await group.run()
        publisher.close()
    }
}

/// Logs refused handshakes once per peer (address and key), not once per attempt: a refused
/// client reconnects every few hundred milliseconds.
final class RefusalLog: Sendable {
    private let logger: Logger
    private let seen = Mutex<Set<String>>([])

    init(logger: Logger) {
        self.logger = logger
    }

    func refused(address: String, key: String?, what: String) {
        let peer = "\(address) \(key ?? "-")"
        let first = seen.withLock { seen -> Bool in
            if seen.count > 10_000 { seen.removeAll() }
            return seen.insert(peer).inserted
        }
        guard first else { return }
        logger.warning("refused a connection", metadata: ["to": "\(what)", "address": "\(address)", "key": "\(key ?? "none")"])
    }
}

/// What a service's handlers use of their host: its publisher, clock and gate.
/// Handlers hold this, never the host: the server keeps its handlers, so a handler holding the
/// host would keep it, and every socket it has, alive after everyone else let go of it.
public struct HostParts: Sendable {
    public let publisher: EventPublisher
    public let clock: WallClock
    public let gate: Gate
}

extension ServiceHost {
    public var parts: HostParts { HostParts(publisher: publisher, clock: clock, gate: gate) }
}
