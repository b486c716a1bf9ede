import Foundation
import Synchronization

/// Which sockets a piece of work opened and has not closed yet: how the tests check that every
/// socket a test opened was closed by the time it ended (`SocketCheck` in SousTestSupport).
///
/// A socket belongs to the ledger that is current (``current``, a task-local value) on the task
/// that creates it; work outside any ledger (production) records nothing. Sockets meant to live
/// as long as their context (the ZAP handler's) are opened outside any ledger.
public final class SocketLedger: Sendable {
    /// The ledger sockets created now are recorded in.
    @TaskLocal public static var current: SocketLedger?

    private struct State {
        var open: [ObjectIdentifier: ZMQSocketType] = [:]
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The types of the sockets still open, one entry per socket.
    public var openSockets: [ZMQSocketType] { state.withLock { Array($0.open.values) } }

    func opened(_ socket: ObjectIdentifier, type: ZMQSocketType) {
        state.withLock { $0.open[socket] = type }
    }

    func closed(_ socket: ObjectIdentifier) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.open.removeValue(forKey: socket) != nil, state.open.isEmpty else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once every recorded socket is closed (sockets owned by threads close as their
    /// loops end, a moment after the work that stopped them), or the task is cancelled: the
    /// caller bounds the wait.
    public func allClosed() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.open.isEmpty || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
