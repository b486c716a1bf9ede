import Synchronization
import ZeroMQ

/// The DEALER sockets a ``ServiceClient``'s calls wait on from their callers' own threads,
/// kept connected (and past their CURVE handshake) for the next call.
///
/// A socket is lent to one call at a time. A call that gives up on its reply (a timeout)
/// discards its socket, since the late reply would arrive on it; a socket given back with a
/// request still unanswered is fine to reuse, because every waiter skips replies to ids that
/// are not its own.
final class SocketPool: Sendable {
    private struct State {
        var idle: [ZMQSocket] = []
        /// Sockets out of the pool: borrowed by a caller or handed to the client's loop.
        var lent = 0
        var closed = false
    }

    /// Idle sockets kept (more given back are closed), and sockets lent at once to callers that
    /// can wait elsewhere (``borrowIfAvailable(make:)``).
    static let capacity = 16

    private let state = Mutex(State())

    /// An idle socket, or a new one from `make`.
    func borrow(make: () throws -> ZMQSocket) throws -> ZMQSocket {
        switch lend(limit: nil) {
        case .idle(let socket): socket
        case .new, .refused: try made(make)
        }
    }

    /// An idle socket, or a new one from `make`; nil when ``capacity`` sockets are already lent
    /// and none is idle (the caller then waits through the loop's one socket instead).
    func borrowIfAvailable(make: () throws -> ZMQSocket) throws -> ZMQSocket? {
        switch lend(limit: Self.capacity) {
        case .idle(let socket): socket
        case .new: try made(make)
        case .refused: nil
        }
    }

    private enum Lending {
        case idle(ZMQSocket)
        case new
        case refused
    }

    private func lend(limit: Int?) -> Lending {
        state.withLock { state in
            if let socket = state.idle.popLast() {
                state.lent += 1
                return .idle(socket)
            }
            if let limit, state.lent >= limit { return .refused }
            state.lent += 1
            return .new
        }
    }

    private func made(_ make: () throws -> ZMQSocket) throws -> ZMQSocket {
        do {
            return try make()
        } catch {
            state.withLock { $0.lent -= 1 }
            throw error
        }
    }

    /// Keeps a lent socket for the next call (or closes it when enough are idle).
    func giveBack(_ socket: ZMQSocket) {
        let kept = state.withLock { state -> Bool in
            state.lent -= 1
            guard !state.closed, state.idle.count < Self.capacity else { return false }
            state.idle.append(socket)
            return true
        }
        if !kept { socket.close() }
    }

    /// Closes a lent socket that may still receive a reply nobody waits for.
    func discard(_ socket: ZMQSocket) {
        state.withLock { $0.lent -= 1 }
        socket.close()
    }

    /// Closes the idle sockets; sockets given back later are closed too.
    func close() {
        let idle = state.withLock { state -> [ZMQSocket] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for socket in idle { socket.close() }
    }
}
