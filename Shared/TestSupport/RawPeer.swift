import Dispatch
public import SousRuntime
public import SousWire
public import ZeroMQ

/// A bare DEALER for tests that send hand-made frames; every receive has a timeout and waits
/// off Swift's cooperative pool, so a test waiting never starves the service it is testing.
public final class RawPeer: @unchecked Sendable {
    public let socket: ZMQSocket

    /// - Parameter curve: for a TCP endpoint, the server's key and this peer's (see
    ///   ``SousRuntime/ServiceHost/clientCurve(as:)``).
    /// - Parameter unboundedSends: no send high-water mark, so a flood of sends never blocks
    ///   the test's thread (libzmq queues them all).
    public init(connectingTo endpoint: String, curve: CurveClientSetup? = nil, unboundedSends: Bool = false, context: ZMQContext = .shared) throws {
        socket = try context.socket(.dealer)
        try socket.setLinger(milliseconds: 0)
        if unboundedSends { try socket.setSendHighWaterMark(0) }
        if let curve { try socket.setCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair) }
        try socket.connect(endpoint)
    }

    public func send(_ frames: [ZMQFrame]) throws {
        try socket.send(multipart: frames)
    }

    /// The next message, or nil if none arrives within `timeout`.
    public func receive(timeout: Duration = .seconds(5)) async throws -> [ZMQFrame]? {
        let result: Result<[ZMQFrame]?, ZMQError> = await withCheckedContinuation { continuation in
            DispatchQueue(label: "sous.test.raw-peer").async {
                continuation.resume(returning: Result { () throws(ZMQError) in try self.socket.receive(timeout: timeout) })
            }
        }
        return try result.get()
    }

    deinit { socket.close() }
}

extension ServiceHost {
    /// How a client reaches this host over TCP: CURVE with its key, as a stranger (a fresh key
    /// pair, like any user's client) unless `keyPair` is given.
    public func clientCurve(as keyPair: CurveKeyPair? = nil) throws -> CurveClientSetup {
        CurveClientSetup(serverKey: keyring.own.publicKey, keyPair: try keyPair ?? CurveKeyPair.generate())
    }

    /// A client of this host for the methods every service answers: plain over `inproc`, CURVE
    /// as a stranger over TCP.
    public func testClient(timeout: Duration = .seconds(30), retries: Int = 0) throws -> ServiceClient<AnyService> {
        try testClient(as: AnyService.self, timeout: timeout, retries: retries)
    }

    /// A client of this host for the methods of `scope`.
    public func testClient<Scope: MethodScope>(
        as scope: Scope.Type, timeout: Duration = .seconds(30), retries: Int = 0
    ) throws -> ServiceClient<Scope> {
        let endpoint = boundEndpoints.requests
        let curve = endpoint.hasPrefix("inproc://") ? nil : try clientCurve()
        return ServiceClient<Scope>(endpoint: endpoint, options: .init(timeout: timeout, retries: retries), curve: { curve }, name: name)
    }
}

extension ServiceHost {
    /// The tests' client of this in-process host: the methods of `scope`, 30 s per attempt (a
    /// bound on a hang, not a speed check), no retries.
    public func client<Scope: MethodScope>(_ scope: Scope.Type, session: String? = nil, timeout: Duration = .seconds(30)) -> ServiceClient<Scope> {
        ServiceClient<Scope>(endpoint: boundEndpoints.requests, options: .init(timeout: timeout, retries: 0), session: session, name: name)
    }
}
