internal import CZeroMQ

/// A libzmq context. Use ``ZMQContext/shared``: one context per process.
///
/// A context is thread-safe; the sockets it creates are not (see ``ZMQSocket``).
public final class ZMQContext: @unchecked Sendable {
    /// The process-wide context every Sous module shares, so `inproc://` endpoints connect across modules.
    public static let shared = ZMQContext()

    let handle: UnsafeMutableRawPointer

    public init() {
        guard let handle = zmq_ctx_new() else {
            preconditionFailure("zmq_ctx_new failed: \(ZMQError.last("zmq_ctx_new"))")
        }
        self.handle = handle
    }

    /// Creates a socket of `type` with LINGER bounded by default, so closing never waits forever.
    public func socket(_ type: ZMQSocketType) throws(ZMQError) -> ZMQSocket {
        guard let socket = zmq_socket(handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket")
        }
        let created = ZMQSocket(handle: socket, type: type)
        try created.setLinger(milliseconds: ZMQSocket.defaultLingerMilliseconds)
        return created
    }

    /// Terminates the context. Every socket must have been closed first, or this blocks.
    public func terminate() {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// The version of the linked libzmq, e.g. "4.3.4".
    public static var libraryVersion: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// Whether libzmq was built with a capability such as "curve" or "ipc".
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) == 1
    }
}
