import Foundation
import SousWire
import ZeroMQ

/// A server's ROUTER, used from more than one thread: the I/O thread reads the requests and
/// sends the replies it makes itself, and each lane's thread sends its own replies instead of
/// handing them back to the I/O thread and waking it for each (not yet shown to matter in the
/// households benchmark: keep only if a figure shows it). libzmq lets a socket pass from thread to thread
/// behind a full memory barrier; the lock is that barrier, and no two calls on the socket overlap.
///
/// The lock is glibc's plain mutex (`NSLock`), which waits in the kernel at once when taken, not
/// the standard library's `Mutex`, which first spins: the thread holding this lock is often one
/// the scheduler has just preempted mid-send, so spinning only burns the time it waits for.
final class SharedRouter: @unchecked Sendable {
    enum Delivery {
        case sent
        /// Dropped: the peer is gone (`EHOSTUNREACH`, the ROUTER is mandatory) or its queue full.
        case dropped
        case failed(ZMQError)
    }

    private let lock = NSLock()
    /// Read and written only under `lock`.
    private var socket: ZMQSocket?

    init(_ socket: ZMQSocket) {
        self.socket = socket
    }

    /// Runs `body` on the socket unless it was closed (nil then).
    func withSocket<T>(_ body: (ZMQSocket) throws(ZMQError) -> T) throws(ZMQError) -> T? {
        lock.lock()
        defer { lock.unlock() }
        guard let socket else { return nil }
        return try body(socket)
    }

    /// What of a request is copied out; the rest is read and dropped (``Envelope/requestFramesKept``).
    private static let keepBound = ZMQSocket.KeepBound(frames: Envelope.requestFramesKept, bytes: Envelope.requestBytesKept)

    /// The next message waiting, as much of it as a request can be, and its connection's
    /// `User-Id`; nil when none is (or the socket is closed).
    func receive() throws(ZMQError) -> ZMQSocket.BoundedMessage? {
        do {
            return try withSocket { socket throws(ZMQError) in
                try socket.receiveMultipart(dontWait: true, property: "User-Id", keeping: Self.keepBound)
            }
        } catch  where error.isWouldBlock {
            return nil
        }
    }

    /// Sends a reply from the I/O thread, which reads until nothing is waiting afterwards.
    func send(_ frames: [ZMQFrame]) -> Delivery {
        (try? withSocket { socket in Self.deliver(frames, on: socket) }) ?? .dropped
    }

    /// Sends a reply from a thread other than the I/O thread, and says whether requests are
    /// waiting: the socket's descriptor is edge-triggered, and a call on the socket may take in
    /// the command that would have woken the I/O thread for a request that came in meanwhile,
    /// so then the caller wakes it.
    ///
    /// `beforeSending` runs first, under the same lock: what it records is seen before the
    /// reply can be, and before the socket can be closed after it.
    func sendFromLane(_ frames: [ZMQFrame], beforeSending: () -> Void) -> (delivery: Delivery, requestsWaiting: Bool) {
        let result = try? withSocket { socket in
            beforeSending()
            // When the socket cannot say, the I/O thread looks for itself.
            return (Self.deliver(frames, on: socket), (try? socket.canReceive()) ?? true)
        }
        return result ?? (.dropped, false)
    }

    private static func deliver(_ frames: [ZMQFrame], on socket: ZMQSocket) -> Delivery {
        do {
            return try socket.send(multipart: frames, dontWait: true) ? .sent : .dropped
        } catch  where error.isHostUnreachable {
            return .dropped
        } catch {
            return .failed(error)
        }
    }

    /// Closes the socket; later sends are dropped.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        socket?.close()
        socket = nil
    }
}
