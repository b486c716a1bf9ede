import Foundation
import SousWire
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

        /// Returns when a change arrived (since listening started), `timeout` passed, or
        /// `orWhen` returned.
        public func next(within timeout: Duration, orWhen: (@Sendable () async -> Void)? = nil) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in stream { return } }
                group.addTask { try? await Task.sleep(for: timeout) }
                if let orWhen { group.addTask { await orWhen() } }
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

    /// A long poll: reads at once and, when `isNew` finds nothing new, waits for a change to `key`
    /// (or for the caller's session to end: then `unauthorized`, as the next call would be)
    /// (at most `waitSeconds`, 0 to 25, default 20, and ending a second before the caller's
    /// deadline so the answer reaches it) and reads again. Listening starts before the first
    /// read, so a change committed between the read and the wait is not missed.
    public func longPoll<Value>(
        _ key: String, waitSeconds: Double?, context: RequestContext, read: () throws -> Value, isNew: (Value) -> Bool
    ) async throws -> Value {
        let wait = waitSeconds ?? 20
        guard wait.isFinite, (0...25).contains(wait) else { throw ServiceError.badRequest("waitSeconds must be 0 to 25", field: "waitSeconds") }
        let arrivals = listen(for: key)
        defer { arrivals.stop() }
        let first = try read()
        var budget = Duration.milliseconds(Int(wait * 1000))
        if let remaining = context.remainingTime { budget = min(budget, remaining - .seconds(1)) }
        guard !isNew(first), budget > .zero else { return first }
        await arrivals.next(within: budget, orWhen: context.sessionEnd)
        if let session = context.session, context.revocations?.isRevoked(session.session) == true {
            throw ServiceError(
                .unauthorized, "this session was ended (signed out, password changed or account deleted); sign in again", field: "header.session")
        }
        return try read()
    }

    /// Wakes every call waiting on `key`.
    public func changed(_ key: String) {
        listeners.withLock { listeners in
            for continuation in listeners[key]?.values ?? [:].values { continuation.yield() }
        }
    }
}
