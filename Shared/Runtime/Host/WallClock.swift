public import Foundation
import Synchronization

/// Where a service reads the time of day. Every service takes it from its configuration, so
/// tests (and the end-to-end run, through `SOUS_CLOCK=manual…` and the `clock.set` method) can
/// move time forward instead of waiting for it.
public final class WallClock: Sendable {
    private struct State {
        var manualNow: Date?
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state: Mutex<State>

    private init(manualNow: Date?) {
        state = Mutex(State(manualNow: manualNow))
    }

    /// The machine's clock.
    public static func system() -> WallClock { WallClock(manualNow: nil) }

    /// A clock that stands still at `start` until ``set(_:)`` or ``advance(by:)`` moves it.
    public static func manual(at start: Date) -> WallClock { WallClock(manualNow: start) }

    public var isManual: Bool { state.withLock { $0.manualNow != nil } }

    public var now: Date { state.withLock { $0.manualNow } ?? Date() }

    /// Moves a manual clock to `instant` (forwards or back) and wakes everything waiting on it.
    /// Returns false, changing nothing, for the system clock.
    @discardableResult
    public func set(_ instant: Date) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
            guard state.manualNow != nil else { return nil }
            state.manualNow = instant
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume() }
        return true
    }

    /// Moves a manual clock forward by `seconds`.
    @discardableResult
    public func advance(by seconds: TimeInterval) -> Bool {
        guard let current = state.withLock({ $0.manualNow }) else { return false }
        return set(current.addingTimeInterval(seconds))
    }

    /// Suspends until `instant` has come, at most `maximum`, returning early when a manual clock
    /// is moved or the task is cancelled. Callers re-read ``now`` and loop: a wake-up is a hint,
    /// not a promise that `instant` has passed.
    public func sleep(until instant: Date, atMost maximum: Duration = .seconds(60)) async {
        if !isManual {
            let seconds = max(0, min(instant.timeIntervalSinceNow, Double(maximum.components.seconds)))
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000) + 1))
            return
        }
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard let now = state.manualNow, now < instant, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
