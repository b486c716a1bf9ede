import Foundation
import SousRuntime
import SousWire
import Synchronization

/// A wake-up call for one waiting task that may come before it waits (then the wait returns at
/// once): the scheduler sleeps on it and the event consumer rings it when a reminder moves earlier.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns on the next signal (or a pending one), or when the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}

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
