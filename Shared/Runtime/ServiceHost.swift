public import Foundation
public import Logging
public import ServiceLifecycle
import UnixSignals
public import SousSchema
import SousWire

/// What every Sous service has: its RPC server (answering `health`), its event publisher, and the
/// other long-running parts it adds. A service's build function creates one; `main` runs it.
public final class ServiceHost: Sendable {
    public let configuration: ServiceConfiguration
    public let server: RPCServer
    public let publisher: EventPublisher
    public let logger: Logger
    public let startedAt: Date
    /// The endpoints actually bound (OS-chosen ports resolved).
    public let boundEndpoints: ServiceEndpoints
    private let extraServices: [any Service]

    public var name: String { configuration.service.rawValue }
    /// The service's clock (see ``WallClock``).
    public var clock: WallClock { configuration.clock }

    /// A host whose `health` reports `database` and whose keyed writes are remembered in it.
    public convenience init(configuration: ServiceConfiguration, logger: Logger, database: SousDatabase, services: [any Service] = []) throws {
        try self.init(configuration: configuration, logger: logger, databaseHealth: { database.health() }, ledger: database, services: services)
    }

    /// A host with its own health check; keyed writes are remembered in `ledger` (in memory
    /// unless given: only for hosts with no database of their own).
    public init(
        configuration: ServiceConfiguration,
        logger: Logger,
        databaseHealth: @escaping @Sendable () -> DatabaseHealth,
        ledger: any IdempotencyLedger = MemoryIdempotencyLedger(),
        services: [any Service] = []
    ) throws {
        self.configuration = configuration
        self.logger = logger
        let startedAt = Date()
        self.startedAt = startedAt
        let name = configuration.service.rawValue
        server = try RPCServer(name: name, logger: logger, options: configuration.serverOptions, ledger: ledger)
        publisher = try EventPublisher(source: name, logger: logger)
        boundEndpoints = ServiceEndpoints(
            requests: try server.bind(configuration.bind),
            events: try publisher.bind(configuration.eventsBind)
        )
        extraServices = services
        server.register(CommonAPI.health) { _, _ in
            HealthReport(
                service: name,
                version: SousVersion.current,
                protocolVersion: Int(SousProtocol.version),
                startedAt: startedAt,
                uptimeSeconds: Date().timeIntervalSince(startedAt),
                database: databaseHealth()
            )
        }
        let clock = configuration.clock
        server.register(CommonAPI.clock) { _, _ in ClockReading(now: clock.now, manual: clock.isManual) }
        server.register(CommonAPI.setClock) { request, _ in
            guard clock.set(request.now) else {
                throw ServiceError.badRequest("\(name) runs on the system clock; start it with SOUS_CLOCK=manual to set it", field: "now")
            }
            return ClockReading(now: clock.now, manual: true)
        }
    }

    /// Publishes the activity event the notifier listens to. Call it for every user action.
    public func recordActivity(_ context: RequestContext) {
        guard let user = context.user, !user.isEmpty else { return }
        publisher.publish(EventTopics.activity, ActivityEvent(user: user, time: clock.now, service: name, method: context.method))
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
        logger.info("serving", metadata: [
            "requests": "\(boundEndpoints.requests)",
            "events": "\(boundEndpoints.events)",
            "version": "\(SousVersion.current)",
        ])
        try await group.run()
        publisher.close()
    }
}
