public import Testing
import ZeroMQ

/// Fails a test that ends with a ZeroMQ socket it opened still open: a service host it did not
/// stop, a client it did not close, a subscriber left running. Sockets are counted per test
/// through a task-local ``SocketLedger``, so tests running in parallel do not see each other's.
///
/// Applied to a suite it checks each of its tests: `@Suite(.closesItsSockets)`.
public struct SocketCheck: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// How long sockets owned by threads get to close after the test's work ended.
    static var grace: Duration { .seconds(30) }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // One ledger per running test (a suite, or a parameterized test as a whole, has no case).
        guard testCase != nil else { return try await function() }
        let ledger = SocketLedger()
        try await SocketLedger.$current.withValue(ledger) { try await function() }
        let closed = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await ledger.allClosed()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: Self.grace)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        if !closed {
            let open = ledger.openSockets.map { "\($0)" }.sorted()
            Issue.record("\(open.count) ZeroMQ socket(s) left open when the test ended: \(open.joined(separator: ", "))")
        }
    }
}

extension Trait where Self == SocketCheck {
    /// Every socket a test opens is closed by the time it ends (see ``SocketCheck``).
    public static var closesItsSockets: SocketCheck { SocketCheck() }
}
