import Logging
import ServiceLifecycle
import SousRuntime
import SousSchema
import SousWire

/// Wakes the `groceries.wait` calls waiting here for changes other replicas of the groceries
/// service made: it follows their `groceries.changed` events, where the configuration names the
/// groceries' own event endpoints (every replica's, in a deployment). A replica's own changes
/// wake its waiting calls directly.
struct ListChangeFollower: Service {
    let subscriber: EventSubscriber
    let changes: ChangeSignals

    /// Nil when no replica's events are configured (a single process).
    init?(configuration: ServiceConfiguration, changes: ChangeSignals, logger: Logger) {
        guard configuration.peers[.groceries] != nil else { return nil }
        subscriber = EventSubscriber(
            sources: [
                .init(endpoint: configuration.endpoints(of: .groceries).events, curve: configuration.curveSetup(for: .groceries, events: true))
            ],
            prefixes: [GroceriesTopics.changed.name], logger: logger)
        self.changes = changes
    }

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await subscriber.run() }
            group.addTask {
                for await event in subscriber.events.cancelOnGracefulShutdown() {
                    if let change = try? event.body(of: GroceriesTopics.changed) { changes.changed(change.household) }
                }
            }
            try await group.waitForAll()
        }
    }
}
