import Foundation
import Synchronization

/// Wakes the long-polling calls waiting on one key (a user's reminders, a household's grocery
/// list) when it changes: a call listens before it first reads, so a change committed between
/// its read and its wait still wakes it.
public final class ChangeSignals: Sendable {
    private let listeners = Mutex<[String: [UUID: AsyncStream<Void>.Continuation]]>([:])

    public init() {}

    /// One waiting call's subscription.
    public struct Arrivals: Sendable {
        let stream: AsyncStream<Void>
        public let stop: @Sendable () -> Void

        /// Returns when a change arrived (since listening started) or `timeout` passed.
        public func next(within timeout: Duration) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in stream { return } }
                group.addTask { try? await Task.sleep(for: timeout) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    public func listen(for key: String) -> Arrivals {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        listeners.withLock { $0[key, default: [:]][id] = continuation }
        return Arrivals(stream: stream) { [self] in
            listeners.withLock { listeners in
                listeners[key]?[id] = nil
                if listeners[key]?.isEmpty == true { listeners[key] = nil }
            }
            continuation.finish()
        }
    }

    /// Wakes every call waiting on `key`.
    public func changed(_ key: String) {
        listeners.withLock { listeners in
            for continuation in listeners[key]?.values ?? [:].values { continuation.yield() }
        }
    }
}
