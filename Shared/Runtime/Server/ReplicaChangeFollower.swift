public import Logging
public import ServiceLifecycle
public import SousWire

/// Wakes the long-polling calls waiting here (``ChangeSignals``) for changes that other replicas
/// of the same service made: it follows their events of `topic`, where the configuration names
/// the service's own event endpoints (every replica's, in a deployment). A replica's own changes
/// wake its waiting calls directly.
public struct ReplicaChangeFollower<Body: Codable & Sendable>: Service {
    let subscriber: EventSubscriber
    let topic: Topic<Body>
    let key: @Sendable (Body) -> String?
    let changes: ChangeSignals

    /// Nil when no replica's events are configured (a single process).
    public init?(
        configuration: ServiceConfiguration, topic: Topic<Body>, key: @escaping @Sendable (Body) -> String?, changes: ChangeSignals, logger: Logger
    ) {
        let service = configuration.service
        guard configuration.peers[service] != nil else { return nil }
        subscriber = EventSubscriber(
            sources: [.init(endpoint: configuration.endpoints(of: service).events, curve: configuration.curveSetup(for: service, events: true))],
            prefixes: [topic.name], logger: logger)
        self.topic = topic
        self.key = key
        self.changes = changes
    }

    public func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await subscriber.run() }
            group.addTask {
                for await event in subscriber.events.cancelOnGracefulShutdown() {
                    if let body = try? event.body(of: topic), let key = key(body) { changes.changed(key) }
                }
            }
            try await group.waitForAll()
        }
    }
}
