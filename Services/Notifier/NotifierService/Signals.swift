import Foundation
import SousRuntime
import SousWire
import Synchronization

/// The host's event publisher, set once the host is built (the scheduler is built before it).
final class HostPublisher: Sendable {
    private let publisher = Mutex<EventPublisher?>(nil)

    func set(_ value: EventPublisher) {
        publisher.withLock { $0 = value }
    }

    func publish<Body>(_ topic: Topic<Body>, _ body: Body, time: Date) {
        publisher.withLock { $0 }?.publish(topic, body, time: time)
    }
}
