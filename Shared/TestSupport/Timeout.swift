/// Thrown when a test's bounded wait ran out.
public struct TestTimeout: Error, CustomStringConvertible {
    public let what: String
    public let after: Duration
    public var description: String { "timed out after \(after) waiting for \(what)" }
}

/// Runs `operation`, failing with ``TestTimeout`` if it has not finished within `timeout`, so a
/// bug fails the test instead of hanging it.
public func withTimeout<T: Sendable>(
    _ timeout: Duration,
    waitingFor what: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestTimeout(what: what, after: timeout)
        }
        return value
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
