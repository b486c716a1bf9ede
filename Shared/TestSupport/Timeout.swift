import Synchronization

/// Thrown when a test's bounded wait ran out.
public struct TestTimeout: Error, CustomStringConvertible {
    public let what: String
    public let after: Duration
    public var description: String { "timed out after \(after) waiting for \(what)" }
}

/// Runs `operation`, failing with ``TestTimeout`` if it has not finished within `timeout`, so a
/// bug fails the test instead of hanging it.
///
/// The wait ends at the timeout even when `operation` does not end on cancellation (a service
/// whose shutdown hangs): it is cancelled and left to finish on its own, where a task group
/// would wait for it.
public func withTimeout<T: Sendable>(
    _ timeout: Duration,
    waitingFor what: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = FirstOutcome<T>()
    let work = Task {
        do {
            outcome.settle(with: .success(try await operation()))
        } catch {
            outcome.settle(with: .failure(error))
        }
    }
    let clock = Task {
        try await Task.sleep(for: timeout)
        outcome.settle(with: .failure(TestTimeout(what: what, after: timeout)))
    }
    defer {
        work.cancel()
        clock.cancel()
    }
    return try await withTaskCancellationHandler {
        try await outcome.value()
    } onCancel: {
        outcome.settle(with: .failure(CancellationError()))
    }
}

/// The first result settled, for one waiter.
private final class FirstOutcome<T: Sendable>: Sendable {
    private enum State {
        case pending(CheckedContinuation<T, any Error>?)
        case settled(Result<T, any Error>)
    }

    private let state = Mutex(State.pending(nil))

    func settle(with result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard case .pending(let waiter) = state else { return nil }
            state = .settled(result)
            return waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLock { state -> Result<T, any Error>? in
                switch state {
                case .pending:
                    state = .pending(continuation)
                    return nil
                case .settled(let result):
                    return result
                }
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}

/// The first element of `sequence` that matches, within `timeout`.
public func firstElement<S: AsyncSequence & Sendable>(
    of sequence: S,
    within timeout: Duration,
    where predicate: @escaping @Sendable (S.Element) -> Bool = { _ in true }
) async throws -> S.Element where S.Element: Sendable {
    try await withTimeout(timeout, waitingFor: "an element of \(S.self)") {
        for try await element in sequence where predicate(element) {
            return element
        }
        throw TestTimeout(what: "an element (the sequence ended)", after: timeout)
    }
}

/// Publishes with `publish` until `sequence` (a subscriber's applied events, subscribed to
/// before) yields a matching element, up to 15 times 2 s: a PUB/SUB subscription's first
/// messages may be missed, so a test that needs a live subscriber announces until one arrives.
/// True once one did.
public func announceUntilSeen<S: AsyncSequence & Sendable>(
    in sequence: S, where predicate: @escaping @Sendable (S.Element) -> Bool, _ publish: () -> Void
) async -> Bool where S.Element: Sendable {
    for _ in 0..<15 {
        publish()
        if (try? await firstElement(of: sequence, within: .seconds(2), where: predicate)) != nil { return true }
    }
    return false
}

/// Retries `attempt` until it succeeds or `timeout` has passed (then its last error is thrown):
/// for conditions with no event to wait for, such as a port that libzmq frees asynchronously
/// after a socket in this process was closed.
public func eventually<T>(within timeout: Duration, waitingFor what: String, _ attempt: () throws -> T) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        do {
            return try attempt()
        } catch {
            guard ContinuousClock.now < deadline else { throw error }
            // A poll interval, not a synchronization: the loop ends on success or the deadline.
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
