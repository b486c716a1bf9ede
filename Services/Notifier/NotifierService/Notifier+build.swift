public import Foundation
public import Logging
import ServiceLifecycle
public import SousRuntime
import SousSchema
import SousWire

/// Tuning of the notifier; the defaults suit production.
public struct NotifierOptions: Sendable {
    /// Due reminders read, asked about (one `diary.statuses` call) and recorded per transaction.
    public var batchSize = 1_000
    /// Cached profiles older than this are read again from the planner on activity.
    public var profileMaximumAge: TimeInterval = 6 * 60 * 60
    /// Real time the scheduler waits after start before its first pass, so subscribers have
    /// reconnected before missed-while-down reminders are published.
    public var startupGrace: Duration = .seconds(1)
    /// How long a batch a replica claimed stays its own (on the service clock). Replicas share
    /// the schedule on PostgreSQL; if one dies mid-batch, another takes the batch over this long
    /// after the claim. A batch takes well under a second; the margin covers a tracker that
    /// answers slowly (each `diary.statuses` attempt is bounded by the peer timeout).
    public var claimLease: TimeInterval = 60

    public init(
        batchSize: Int = 1_000, profileMaximumAge: TimeInterval = 6 * 60 * 60, startupGrace: Duration = .seconds(1), claimLease: TimeInterval = 60
    ) {
        self.batchSize = max(batchSize, 1)
        self.profileMaximumAge = profileMaximumAge
        self.startupGrace = startupGrace
        self.claimLease = max(claimLease, 1)
    }
}

/// The notifier service: subscribes to every other service's activity and the planner's profile
/// changes, keeps each active user's next reminder in SQLite, and publishes it when due.
public struct NotifierService: Sendable {
    public let host: ServiceHost
    public let store: NotifierStore
    /// Applies subscribed events; its `applied` broadcast reports each one.
    public let consumer: EventConsumer
    /// Sends due reminders; its `passes` broadcast reports each completed pass.
    public let scheduler: ReminderScheduler
    public let subscriber: EventSubscriber
    /// Delivers reminders to users' channels (mail, ntfy, webhooks, Web Push) from the outbox.
    public let courier: OutboxCourier

    /// Builds the notifier from `configuration`: opens the database, binds the sockets, connects
    /// the subscriber to the catalog, planner, groceries and tracker event endpoints.
    /// `database` replaces the file under the data directory (tests pass an in-memory one).
    /// `channels`: the mail relay, reachable ranges and web address the channels use.
    public init(
        configuration: ServiceConfiguration, logger: Logger? = nil, database: SousDatabase? = nil, options: NotifierOptions = NotifierOptions(),
        channels: ChannelSettings = ChannelSettings()
    ) throws {
        let logger = logger ?? SousLogging.logger(for: "notifier", level: configuration.logLevel)
        let database = try database ?? Self.openDatabase(at: configuration.database, logger: logger)
        let store = NotifierStore(database: database, webURL: channels.webURL)
        let vapid = try ChannelStore.vapidKey(database, now: configuration.clock.now)
        let deliverer = ChannelDeliverer(database: database, settings: channels, vapid: vapid)
        let courier = OutboxCourier(
            database: database, transports: Dictionary(uniqueKeysWithValues: ReminderChannelKind.allCases.map { ($0.rawValue, deliverer) }),
            clock: configuration.clock, logger: logger, concurrency: channels.concurrency, capacity: channels.capacity,
            patience: channels.patience,
            onFinalFailure: NotifierStore.channelFailed(webURL: channels.webURL))
        let planner = Peer(Planner.self, of: configuration)
        let tracker = Peer(Tracker.self, of: configuration)
        let profiles = ProfileBook(store: store, planner: planner, maximumAge: options.profileMaximumAge, logger: logger)
        // The notifier's own events too, where the configuration names them (every replica's
        // in a deployment): the reminders its other replicas send wake the `reminders.wait`
        // calls waiting here (the log they read is shared).
        let publishers = [SousService.catalog, .planner, .groceries, .tracker] + (configuration.peers[.notifier] == nil ? [] : [.notifier])
        let subscriber = EventSubscriber(
            sources: publishers.map {
                .init(endpoint: configuration.endpoints(of: $0).events, curve: configuration.curveSetup(for: $0, events: true))
            },
            prefixes: [EventTopics.activity.name, PlannerTopics.profileChanged.name, NotifierTopics.reminderPrefix],
            logger: logger
        )
        let wakeup = Wakeup()
        let inbox = ChangeSignals()
        let consumer = EventConsumer(
            events: subscriber.events, store: store, profiles: profiles, inbox: inbox, clock: configuration.clock, wakeup: wakeup, logger: logger)
        // The scheduler publishes on the host's socket, and the host runs the scheduler: the
        // publisher is handed over once the host exists.
        let publisher = HostPublisher()
        let scheduler = ReminderScheduler(
            store: store, tracker: tracker, publisher: publisher, inbox: inbox, clock: configuration.clock, wakeup: wakeup, courier: courier,
            options: options, logger: logger
        )
        let host = try ServiceHost(
            configuration: configuration, logger: logger, database: database,
            // The group stops services last to first: the courier ends its attempts before the
            // closer lets go of their connections.
            services: [subscriber, consumer, scheduler, Closer { await deliverer.shutdown() }, courier]
        )
        publisher.set(host.publisher)
        self.host = host
        self.store = store
        self.consumer = consumer
        self.scheduler = scheduler
        self.subscriber = subscriber
        self.courier = courier
        NotifierHandlers(host: host.parts, store: store, profiles: profiles, inbox: inbox).register(on: host.server)
        ChannelHandlers(host: host.parts, store: store, settings: channels, courier: courier, pushKey: WebPush.publicKey(of: vapid))
            .register(on: host.server)
    }

    /// Opens (creating and migrating as needed) the notifier database at `location`.
    public static func openDatabase(at location: DatabaseLocation, logger: Logger) throws -> SousDatabase {
        try SousDatabase(name: "notifier", location: location, schema: NotifierMigrations.schema, logger: logger)
    }
}

/// Runs `close` when the service group shuts down (what a service holds that must be let go
/// of, such as HTTP clients' connections).
private struct Closer: Service {
    let close: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
