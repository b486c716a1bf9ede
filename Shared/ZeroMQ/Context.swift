internal import CZeroMQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A libzmq context. Use ``ZMQContext/shared``: one context per process.
///
/// A context is thread-safe; the sockets it creates are not (see ``ZMQSocket``).
public final class ZMQContext: @unchecked Sendable {
    /// The process-wide context every Sous module shares, so `inproc://` endpoints connect across modules.
    public static let shared: ZMQContext = {
        let context = ZMQContext()
        context.raiseSocketLimit()
        return context
    }()

    let handle: UnsafeMutableRawPointer

    public init() {
        guard let handle = zmq_ctx_new() else {
            preconditionFailure("zmq_ctx_new failed: \(ZMQError.last("zmq_ctx_new"))")
        }
        self.handle = handle
    }

    /// Creates a socket of `type` with LINGER bounded by default, so closing never waits forever.
    public func socket(_ type: ZMQSocketType) throws(ZMQError) -> ZMQSocket {
        try socket(type, ledger: SocketLedger.current)
    }

    /// A socket recorded in `ledger` until it is closed (see ``SocketLedger``).
    func socket(_ type: ZMQSocketType, ledger: SocketLedger?) throws(ZMQError) -> ZMQSocket {
        guard let socket = zmq_socket(handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket")
        }
        let created = ZMQSocket(handle: socket, type: type, ledger: ledger)
        try created.setLinger(milliseconds: ZMQSocket.defaultLingerMilliseconds)
        return created
    }

    /// libzmq caps a context at 1023 sockets by default, which a busy service (or a test process
    /// running many services at once) reaches long before the file-descriptor limit. Raise the
    /// soft descriptor limit to the hard one and let the context use most of it: every socket
    /// costs one descriptor for its mailbox, plus its connections.
    func raiseSocketLimit() {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        let descriptors = Int32(clamping: limit.rlim_cur)
        let sockets = min(zmq_ctx_get(handle, ZMQ_SOCKET_LIMIT), max(descriptors / 2, 1023))
        _ = zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, sockets)
    }

    /// The most sockets this context may have open at once.
    public var maxSockets: Int { Int(zmq_ctx_get(handle, ZMQ_MAX_SOCKETS)) }

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
