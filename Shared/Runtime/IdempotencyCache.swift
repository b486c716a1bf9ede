import Foundation
public import SousWire
import Synchronization

/// Remembers the replies to recent writes per (user, idempotency key), so a write the client
/// retries (because a reply was lost) is applied once and the stored reply is replayed.
///
/// A retry that arrives while the first attempt is still running waits for it. Entries expire
/// after ``retention`` and the oldest are evicted beyond ``capacity``. The cache lives in memory:
/// a service restart forgets it (see docs/PROTOCOL.md, "Idempotency").
public final class IdempotencyCache: Sendable {
    public typealias Outcome = Result<[UInt8], ServiceError>

    public let capacity: Int
    public let retention: Duration

    private struct Key: Hashable {
        let user: String
        let key: String
    }

    private enum Entry {
        case running(method: String, waiters: [CheckedContinuation<Outcome?, Never>])
        case done(method: String, outcome: Outcome, storedAt: ContinuousClock.Instant)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Completion order, for eviction by age and by count.
        var order: [(key: Key, storedAt: ContinuousClock.Instant)] = []
        var orderStart = 0
    }

    private let state = Mutex(State())

    public init(capacity: Int = 100_000, retention: Duration = .seconds(15 * 60)) {
        self.capacity = capacity
        self.retention = retention
    }

    /// Runs `operation` unless this user already sent this key, in which case the first
    /// attempt's outcome is returned (waiting for it if it is still running).
    public func perform(user: String, key: String, method: String, _ operation: () async -> Outcome) async -> Outcome {
        let cacheKey = Key(user: user, key: key)
        // A retry that finds the first attempt running waits for it; if that attempt failed (and
        // so was forgotten) the retry decides again and runs the write itself.
        while true {
            switch claim(cacheKey, method: method) {
            case .replay(let outcome):
                return outcome
            case .mismatch(let original):
                return .failure(.conflict("idempotency key \"\(key)\" was already used for \(original)", field: "header.idempotencyKey"))
            case .wait:
                if let outcome = await waitForFirstAttempt(cacheKey) { return outcome }
            case .run:
                let outcome = await operation()
                finish(cacheKey, method: method, outcome: outcome)
                return outcome
            }
        }
    }

    private enum Claim { case run, replay(Outcome), wait, mismatch(String) }

    private func claim(_ cacheKey: Key, method: String) -> Claim {
        state.withLock { state in
            evictExpired(&state)
            switch state.entries[cacheKey] {
            case nil:
                state.entries[cacheKey] = .running(method: method, waiters: [])
                return .run
            case .running(let original, _) where original != method,
                 .done(let original, _, _) where original != method:
                return .mismatch(original)
            case .running:
                return .wait
            case .done(_, let outcome, _):
                return .replay(outcome)
            }
        }
    }

    /// The first attempt's outcome, or nil if it is no longer remembered.
    private func waitForFirstAttempt(_ cacheKey: Key) async -> Outcome? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
            let finished: Outcome?? = state.withLock { state in
                switch state.entries[cacheKey] {
                case .running(let method, var waiters):
                    waiters.append(continuation)
                    state.entries[cacheKey] = .running(method: method, waiters: waiters)
                    return .none
                case .done(_, let outcome, _):
                    return .some(outcome)
                case nil:
                    return .some(nil)
                }
            }
            if let finished { continuation.resume(returning: finished) }
        }
    }

    private func finish(_ cacheKey: Key, method: String, outcome: Outcome) {
        let waiters: [CheckedContinuation<Outcome?, Never>] = state.withLock { state in
            guard case .running(_, let waiters) = state.entries[cacheKey] else { return [] }
            // A failed write changed nothing, so it is not remembered: a retry runs again.
            if case .failure = outcome {
                state.entries[cacheKey] = nil
            } else {
                let now = ContinuousClock.now
                state.entries[cacheKey] = .done(method: method, outcome: outcome, storedAt: now)
                state.order.append((cacheKey, now))
                evictOverCapacity(&state)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// Number of remembered replies.
    public var count: Int { state.withLock { $0.order.count - $0.orderStart } }

    private func evictExpired(_ state: inout State) {
        let cutoff = ContinuousClock.now - retention
        while state.orderStart < state.order.count, state.order[state.orderStart].storedAt < cutoff {
            remove(at: state.orderStart, &state)
        }
        compact(&state)
    }

    private func evictOverCapacity(_ state: inout State) {
        while state.order.count - state.orderStart > capacity {
            remove(at: state.orderStart, &state)
        }
        compact(&state)
    }

    private func remove(at index: Int, _ state: inout State) {
        let entry = state.order[index]
        if case .done(_, _, let storedAt) = state.entries[entry.key], storedAt == entry.storedAt {
            state.entries[entry.key] = nil
        }
        state.orderStart += 1
    }

    private func compact(_ state: inout State) {
        if state.orderStart > 1024 && state.orderStart * 2 > state.order.count {
            state.order.removeFirst(state.orderStart)
            state.orderStart = 0
        }
    }
}
