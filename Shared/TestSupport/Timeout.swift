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
