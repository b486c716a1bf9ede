import Foundation
import Synchronization

/// Hands every value to each current subscriber: how tests and tools watch a service's
/// progress (events applied, scheduler passes, cached values replaced) without polling.
public final class Broadcast<Element: Sendable>: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<Element>.Continuation]>([:])

    public init() {}

    /// A stream of the values yielded from now on; it ends when its reader stops reading.
    public func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1_000))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Hands `value` to every current subscriber.
    public func yield(_ value: Element) {
        let current = subscribers.withLock { Array($0.values) }
        for continuation in current { continuation.yield(value) }
    }

    /// Ends every current subscriber's stream.
    public func finish() {
        let current = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for continuation in current { continuation.finish() }
    }
}
