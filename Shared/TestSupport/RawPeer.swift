import Dispatch
public import ZeroMQ

/// A bare DEALER for tests that send hand-made frames; every receive has a timeout and waits
/// off Swift's cooperative pool, so a test waiting never starves the service it is testing.
public final class RawPeer: @unchecked Sendable {
    public let socket: ZMQSocket

    public init(connectingTo endpoint: String, context: ZMQContext = .shared) throws {
        socket = try context.socket(.dealer)
        try socket.setLinger(milliseconds: 0)
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
