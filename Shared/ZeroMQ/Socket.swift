internal import CZeroMQ

/// One frame of a ZeroMQ message.
public typealias ZMQFrame = [UInt8]

/// A ZeroMQ socket.
///
/// Like libzmq sockets, a `ZMQSocket` must be used by one thread at a time. It is `Sendable` so
/// ownership can move to the thread that runs its loop (or be serialized by a lock), never so two
/// threads use it at once. Blocking calls honour RCVTIMEO/SNDTIMEO; prefer ``receive(timeout:)``.
public final class ZMQSocket: @unchecked Sendable {
    /// LINGER applied to every new socket: pending messages get this long to leave on close, so
    /// terminating the context can never hang on an unreachable peer.
    public static let defaultLingerMilliseconds: Int32 = 200

    let handle: UnsafeMutableRawPointer
    public let type: ZMQSocketType
    public private(set) var isClosed = false
    /// RCVTIMEO as the owner set it (-1: block), which ``receive(timeout:)`` puts back.
    private var configuredReceiveTimeout: Int32 = -1
    /// Where the tests record this socket until it is closed (nil outside a test's check).
    private let ledger: SocketLedger?

    init(handle: UnsafeMutableRawPointer, type: ZMQSocketType, ledger: SocketLedger?) {
        self.handle = handle
        self.type = type
        self.ledger = ledger
        ledger?.opened(ObjectIdentifier(self), type: type)
    }

    deinit {
        if !isClosed {
            zmq_close(handle)
            ledger?.closed(ObjectIdentifier(self))
        }
    }

    /// Closes the socket. Safe to call more than once.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        zmq_close(handle)
        ledger?.closed(ObjectIdentifier(self))
    }

    // MARK: Endpoints

    public func bind(_ endpoint: String) throws(ZMQError) {
        _ = try retryingEINTR("zmq_bind(\(endpoint))") { zmq_bind(handle, endpoint) }
    }

    public func connect(_ endpoint: String) throws(ZMQError) {
        _ = try retryingEINTR("zmq_connect(\(endpoint))") { zmq_connect(handle, endpoint) }
    }

    public func unbind(_ endpoint: String) throws(ZMQError) {
        _ = try retryingEINTR("zmq_unbind(\(endpoint))") { zmq_unbind(handle, endpoint) }
    }

    public func disconnect(_ endpoint: String) throws(ZMQError) {
        _ = try retryingEINTR("zmq_disconnect(\(endpoint))") { zmq_disconnect(handle, endpoint) }
    }

    /// The endpoint last bound, with the port the OS picked for `tcp://127.0.0.1:*`.
    public var lastEndpoint: String {
        get throws(ZMQError) { try stringOption(ZMQ_LAST_ENDPOINT) }
    }

    // MARK: Sending

    /// Sends one frame; `more` marks that further frames of the same message follow.
    /// - Returns: `false` if `dontWait` was set and the send would have blocked.
    @discardableResult
    public func send(_ frame: some Collection<UInt8>, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        var flags: Int32 = 0
        if more { flags |= ZMQ_SNDMORE }
        if dontWait { flags |= ZMQ_DONTWAIT }
        let handle = self.handle
        let result: Result<Int32, ZMQError> =
            frame.withContiguousStorageIfAvailable { buffer in
                Result { () throws(ZMQError) -> Int32 in
                    try retryingEINTR("zmq_send") { zmq_send(handle, buffer.baseAddress, buffer.count, flags) }
                }
            }
            ?? Array(frame).withUnsafeBufferPointer { buffer in
                Result { () throws(ZMQError) -> Int32 in
                    try retryingEINTR("zmq_send") { zmq_send(handle, buffer.baseAddress, buffer.count, flags) }
                }
            }
        switch result {
        case .success: return true
        case .failure(let error) where error.isWouldBlock && dontWait: return false
        case .failure(let error): throw error
        }
    }

    /// Sends every frame of a multipart message. libzmq delivers it whole or not at all.
    /// - Returns: `false` if `dontWait` was set and the first frame would have blocked.
    @discardableResult
    public func send(multipart frames: [ZMQFrame], dontWait: Bool = false) throws(ZMQError) -> Bool {
        precondition(!frames.isEmpty, "a ZeroMQ message has at least one frame")
        for (index, frame) in frames.enumerated() {
            let sent = try send(frame, more: index < frames.count - 1, dontWait: dontWait)
            // Only the first frame can fail with EAGAIN; once it is queued the rest follow.
            if !sent { return false }
        }
        return true
    }

    // MARK: Receiving

    /// Receives one frame and reports whether more frames of the same message follow.
    /// Blocks up to RCVTIMEO (forever by default); throws an `EAGAIN` error on timeout.
    public func receiveFrame(dontWait: Bool = false) throws(ZMQError) -> (frame: ZMQFrame, more: Bool) {
        let (frame, more, _) = try receiveFrame(dontWait: dontWait, property: nil)
        return (frame, more)
    }

    /// Receives a whole multipart message (blocking up to RCVTIMEO).
    public func receiveMultipart(dontWait: Bool = false) throws(ZMQError) -> [ZMQFrame] {
        try receiveMultipart(dontWait: dontWait, property: nil).frames
    }

    /// Receives a whole multipart message and one metadata property of its connection, e.g.
    /// `"User-Id"`: what the ZAP handler answered for the peer when it connected (nil over
    /// `inproc`, which has no handshake, or when the property is not set).
    ///
    /// The property is read from the frames that came over the wire: a ROUTER's routing-id
    /// frame is made by the ROUTER itself and carries no metadata.
    public func receiveMultipart(dontWait: Bool = false, property: String?) throws(ZMQError) -> (frames: [ZMQFrame], property: String?) {
        let message = try receiveMultipart(dontWait: dontWait, property: property, keeping: .unbounded)
        return (message.frames, message.property)
    }

    /// How much of one message a receive copies out: frames past either bound are read and
    /// freed without being copied, so a hostile message costs no more than libzmq's own copy.
    public struct KeepBound: Sendable {
        public var frames: Int
        public var bytes: Int

        public init(frames: Int, bytes: Int) {
            self.frames = frames
            self.bytes = bytes
        }

        public static let unbounded = KeepBound(frames: .max, bytes: .max)
    }

    /// A message as a bounded receive kept it: `frames` is its start, and `overflowed` says
    /// that frames past the bound were read and thrown away.
    public struct BoundedMessage: Sendable {
        public var frames: [ZMQFrame]
        public var property: String?
        public var overflowed: Bool
    }

    /// Receives a whole multipart message, copying out frames only while they stay within
    /// `bound` (the first frame past it and every later one are dropped unread).
    public func receiveMultipart(dontWait: Bool = false, property: String?, keeping bound: KeepBound) throws(ZMQError) -> BoundedMessage {
        var kept = BoundedMessage(frames: [], property: nil, overflowed: false)
        var keptBytes = 0
        var more = true
        var first = true
        while more {
            // The rest of a message arrives together with its first frame: this never blocks.
            let next = try receiveFrame(dontWait: first && dontWait, property: kept.property == nil ? property : nil) { size in
                guard !kept.overflowed, kept.frames.count < bound.frames, size <= bound.bytes - keptBytes else {
                    kept.overflowed = true
                    return false
                }
                return true
            }
            first = false
            more = next.more
            kept.property = kept.property ?? next.property
            if let frame = next.frame {
                keptBytes += frame.count
                kept.frames.append(frame)
            }
        }
        return kept
    }

    private func receiveFrame(dontWait: Bool, property: String?) throws(ZMQError) -> (frame: ZMQFrame, more: Bool, property: String?) {
        let received = try receiveFrame(dontWait: dontWait, property: property) { _ in true }
        return (received.frame ?? [], received.more, received.property)
    }

    /// Receives one frame; its bytes are copied out only if `keep` says so for its size.
    private func receiveFrame(
        dontWait: Bool, property: String?, keep: (Int) -> Bool
    ) throws(ZMQError) -> (frame: ZMQFrame?, more: Bool, property: String?) {
        // zmq_msg_t must not be copied by value (small messages live inside the struct), so it
        // stays heap-allocated and its bytes are copied out before it is closed.
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        zmq_msg_init(message)
        defer { zmq_msg_close(message) }
        let flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
        let handle = self.handle
        _ = try retryingEINTR("zmq_msg_recv") { zmq_msg_recv(message, handle, flags) }
        let size = zmq_msg_size(message)
        var frame: ZMQFrame?
        if keep(size) {
            frame = size == 0 ? [] : ZMQFrame(UnsafeRawBufferPointer(start: zmq_msg_data(message)!, count: size))
        }
        let value = property.flatMap { zmq_msg_gets(message, $0) }.map { String(cString: $0) }
        return (frame, zmq_msg_more(message) == 1, value)
    }

    /// Waits up to `timeout` for a message. Returns `nil` if none arrived in time.
    ///
    /// A receive bounded by RCVTIMEO waits in one poll of the socket's mailbox; `zmq_poll` then a
    /// receive polled the socket's descriptor and its mailbox twice each for one message.
    public func receive(timeout: Duration) throws(ZMQError) -> [ZMQFrame]? {
        let milliseconds = Int32(clamping: ZMQPoller.milliseconds(timeout))
        try setInt32Option(ZMQ_RCVTIMEO, milliseconds)
        defer { try? setInt32Option(ZMQ_RCVTIMEO, configuredReceiveTimeout) }
        do {
            return try receiveMultipart(dontWait: milliseconds == 0)
        } catch  where error.isWouldBlock {
            return nil
        }
    }

    /// The descriptor libzmq signals when the socket's state may have changed, for a `poll(2)`
    /// of its own (``ZMQPoller/wait(_:timeout:)``). It is edge-triggered: it says nothing
    /// about messages already waiting, so read until `EAGAIN` before waiting on it again, and
    /// again after sending (a send may take in the commands that signalled it).
    public func eventDescriptor() throws(ZMQError) -> Int32 {
        var descriptor: Int32 = -1
        var size = MemoryLayout<Int32>.size
        let handle = self.handle
        _ = try retryingEINTR("zmq_getsockopt(ZMQ_FD)") { zmq_getsockopt(handle, ZMQ_FD, &descriptor, &size) }
        return descriptor
    }

    /// Whether a message is waiting to be received (`ZMQ_EVENTS`). Like any call on the socket
    /// it takes in the commands pending for it, so it also tells what a descriptor whose signal
    /// another call took in would have said (``eventDescriptor()``).
    public func canReceive() throws(ZMQError) -> Bool {
        var events: Int32 = 0
        var size = MemoryLayout<Int32>.size
        let handle = self.handle
        _ = try retryingEINTR("zmq_getsockopt(ZMQ_EVENTS)") { zmq_getsockopt(handle, ZMQ_EVENTS, &events, &size) }
        return events & Int32(ZMQ_POLLIN) != 0
    }

    // MARK: Options

    public func setLinger(milliseconds: Int32) throws(ZMQError) { try setInt32Option(ZMQ_LINGER, milliseconds) }
    public func setSendHighWaterMark(_ messages: Int32) throws(ZMQError) { try setInt32Option(ZMQ_SNDHWM, messages) }
    public func setReceiveHighWaterMark(_ messages: Int32) throws(ZMQError) { try setInt32Option(ZMQ_RCVHWM, messages) }
    /// Peers sending a larger message are disconnected by libzmq.
    public func setMaxMessageSize(_ bytes: Int64) throws(ZMQError) { try setInt64Option(ZMQ_MAXMSGSIZE, bytes) }
    public func setReceiveTimeout(milliseconds: Int32) throws(ZMQError) {
        try setInt32Option(ZMQ_RCVTIMEO, milliseconds)
        configuredReceiveTimeout = milliseconds
    }
    public func setSendTimeout(milliseconds: Int32) throws(ZMQError) { try setInt32Option(ZMQ_SNDTIMEO, milliseconds) }
    /// ROUTER only: sending to an unknown peer fails with EHOSTUNREACH instead of dropping silently.
    public func setRouterMandatory(_ on: Bool) throws(ZMQError) { try setInt32Option(ZMQ_ROUTER_MANDATORY, on ? 1 : 0) }
    public func setImmediate(_ on: Bool) throws(ZMQError) { try setInt32Option(ZMQ_IMMEDIATE, on ? 1 : 0) }
    public func setReconnectInterval(milliseconds: Int32, max: Int32 = 0) throws(ZMQError) {
        try setInt32Option(ZMQ_RECONNECT_IVL, milliseconds)
        try setInt32Option(ZMQ_RECONNECT_IVL_MAX, max)
    }
    /// ZMTP heartbeats: a PING every `interval`, the connection dropped after `timeout` of silence.
    public func setHeartbeat(intervalMilliseconds: Int32, timeoutMilliseconds: Int32, ttlMilliseconds: Int32 = 0) throws(ZMQError) {
        try setInt32Option(ZMQ_HEARTBEAT_IVL, intervalMilliseconds)
        try setInt32Option(ZMQ_HEARTBEAT_TIMEOUT, timeoutMilliseconds)
        if ttlMilliseconds > 0 { try setInt32Option(ZMQ_HEARTBEAT_TTL, ttlMilliseconds) }
    }
    /// TCP keepalive probes: a peer silent for `idleSeconds` is probed every `intervalSeconds`,
    /// and the connection dropped after `count` unanswered probes.
    public func setTCPKeepalive(idleSeconds: Int32, intervalSeconds: Int32, count: Int32) throws(ZMQError) {
        try setInt32Option(ZMQ_TCP_KEEPALIVE, 1)
        try setInt32Option(ZMQ_TCP_KEEPALIVE_IDLE, idleSeconds)
        try setInt32Option(ZMQ_TCP_KEEPALIVE_INTVL, intervalSeconds)
        try setInt32Option(ZMQ_TCP_KEEPALIVE_CNT, count)
    }
    public func setRoutingID(_ id: [UInt8]) throws(ZMQError) { try setOption(ZMQ_ROUTING_ID, bytes: id) }
    public func subscribe(_ prefix: String) throws(ZMQError) { try setOption(ZMQ_SUBSCRIBE, bytes: Array(prefix.utf8)) }
    public func unsubscribe(_ prefix: String) throws(ZMQError) { try setOption(ZMQ_UNSUBSCRIBE, bytes: Array(prefix.utf8)) }

    /// Publishes the socket's handshake failures on a `PAIR` socket at `endpoint` (an `inproc`
    /// address), for ``HandshakeFailure/parse(_:)``.
    public func monitorHandshakeFailures(on endpoint: String) throws(ZMQError) {
        let events = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
        let handle = self.handle
        _ = try retryingEINTR("zmq_socket_monitor") { zmq_socket_monitor(handle, endpoint, events) }
    }

    /// The ZAP domain a server socket's connections are authenticated in; the ZAP handler
    /// (``ZAPHandler``) decides by it which rules apply.
    public func setZAPDomain(_ domain: String) throws(ZMQError) { try setOption(ZMQ_ZAP_DOMAIN, bytes: Array(domain.utf8)) }

    /// Makes this socket a CURVE server with its long-term secret key (40-character Z85).
    public func setCurveServer(secretKey: String) throws(ZMQError) {
        try setInt32Option(ZMQ_CURVE_SERVER, 1)
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(secretKey.utf8))
    }

    /// Makes this socket a CURVE client of the server whose public key is `serverKey`.
    public func setCurveClient(serverKey: String, keyPair: CurveKeyPair) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVERKEY, bytes: Array(serverKey.utf8))
        try setOption(ZMQ_CURVE_PUBLICKEY, bytes: Array(keyPair.publicKey.utf8))
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(keyPair.secretKey.utf8))
    }

    func setInt32Option(_ option: Int32, _ value: Int32) throws(ZMQError) {
        var value = value
        let handle = self.handle
        _ = try retryingEINTR("zmq_setsockopt(\(option))") {
            zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size)
        }
    }

    func setInt64Option(_ option: Int32, _ value: Int64) throws(ZMQError) {
        var value = value
        let handle = self.handle
        _ = try retryingEINTR("zmq_setsockopt(\(option))") {
            zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size)
        }
    }

    func setOption(_ option: Int32, bytes: [UInt8]) throws(ZMQError) {
        let handle = self.handle
        _ = try retryingEINTR("zmq_setsockopt(\(option))") {
            bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        }
    }

    func stringOption(_ option: Int32) throws(ZMQError) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        let handle = self.handle
        _ = try retryingEINTR("zmq_getsockopt(\(option))") {
            zmq_getsockopt(handle, option, &buffer, &size)
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
