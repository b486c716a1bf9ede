import Dispatch
import Synchronization

/// The time a read of the `quick` lane, or an attempt at a kept answer
/// (``RPCServer/register(_:keptAnswer:use:)``), may take on the server's I/O thread
/// (``MethodLane/quick``).
///
/// While one is current, every statement the read runs on SQLite is interrupted at the budget's
/// deadline instead of the usual ``SousDatabase/queryTimeLimit``, and the budget remembers that
/// it ran out: the server then drops what the attempt produced and answers the request on its
/// lane (standard for a quick read), where the full limit applies. So a read declared quick that turns out slow
/// (a cold page cache, a very large week) costs the other requests at most the budget.
public final class QuickReadBudget: Sendable {
    /// The monotonic time (`DispatchTime` nanoseconds) at which statements are interrupted.
    let deadline: UInt64
    private let ranOut = Atomic<Bool>(false)

    /// The budget of the read running on this thread, if it runs inline.
    @TaskLocal static var current: QuickReadBudget?

    init(_ budget: Duration) {
        let (seconds, attoseconds) = budget.components
        deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    /// Whether a statement was interrupted for this budget: the attempt's result is not the answer.
    var exceeded: Bool { ranOut.load(ordering: .relaxed) }

    func markExceeded() { ranOut.store(true, ordering: .relaxed) }

    /// Called by a quick read about to do work that is not quick (building what it keeps, when
    /// nothing is kept yet): on the I/O thread this ends the attempt, and the request is answered
    /// on its lane; anywhere else it does nothing.
    public static func yieldToLane() throws {
        guard let budget = current else { return }
        budget.markExceeded()
        throw Exceeded()
    }

    /// Runs `body` as the I/O thread runs a quick read: its statements within `budget`, on the
    /// I/O thread's reader (the floor of a quick read, for benchmarks and tests).
    public static func running<T>(within budget: Duration, _ body: () throws -> T) throws -> T {
        try $current.withValue(QuickReadBudget(budget), operation: body)
    }

    /// Thrown instead of `timeout` when a statement is interrupted for a budget.
    struct Exceeded: Error, CustomStringConvertible {
        var description: String { "a quick read ran past its budget on the I/O thread; it is answered on its lane" }
    }
}
