public import Foundation
public import Logging
import MessagePack
public import SousWire
import Synchronization
public import ZeroMQ

/// Publishes a service's events on its PUB socket, each under a topic subscribers match by prefix.
///
/// The socket is a CURVE server in the ZAP domain `sous-<source>-events`, where only Sous
/// services' keys are let in (``ServiceHost``): events carry users' data and never leave the
/// services. It refuses to bind anything but `inproc` without a key.
///
/// Publishing never blocks: like every PUB socket it drops messages for subscribers that are
/// slower than the high-water mark, and events published before a subscriber connected are not
/// seen by it. Consumers that must not miss state read it over request/reply as well.
public final class EventPublisher: Sendable {
    public let source: String
    private let socket: Mutex<ZMQSocket?>
    private let logger: Logger
    private let hasKey: Bool

    public init(source: String, logger: Logger, curve: CurveKeyPair?, context: ZMQContext = .shared) throws(ZMQError) {
        self.source = source
        self.logger = logger
        hasKey = curve != nil
        let socket = try context.socket(.pub)
        try socket.setSendHighWaterMark(100_000)
        if let curve {
            try socket.setZAPDomain(Self.zapDomain(of: source))
            try socket.setCurveServer(secretKey: curve.secretKey)
        }
        self.socket = Mutex(socket)
    }

    /// Binds the PUB socket; returns the endpoint actually bound.
    @discardableResult
    public func bind(_ endpoint: String) throws(ZMQError) -> String {
        guard hasKey || endpoint.hasPrefix("inproc://") else {
            throw ZMQError(code: EPROTONOSUPPORT, operation: "bind(\(endpoint)): refusing to publish in plaintext; give the publisher a CURVE key")
        }
        return try socket.withLock { socket throws(ZMQError) -> String in
            guard let socket else { preconditionFailure("bind after close") }
            try socket.bind(endpoint)
            return try socket.lastEndpoint
        }
    }

    /// Publishes `body` under `topic`. Failures are logged, never thrown: an event is a
    /// notification, and the action that caused it has already committed.
    public func publish<Body>(_ topic: Topic<Body>, _ body: Body, time: Date = Date()) {
        let frames: [Envelope.Frame]
        do {
            frames = try Envelope.eventFrames(EventHeader(topic: topic.name, source: source, time: time), body: body)
        } catch {
            logger.error("event could not be encoded", metadata: ["topic": "\(topic)", "error": "\(error)"])
            return
        }
        socket.withLock { socket in
            guard let socket else { return }
            do {
                try socket.send(multipart: frames, dontWait: true)
            } catch {
                logger.warning("event not published", metadata: ["topic": "\(topic)", "error": "\(error)"])
            }
        }
    }

    /// The ZAP domain of a service's event socket.
    public static func zapDomain(of source: String) -> String { "sous-\(source)-events" }

    public func close() {
        socket.withLock { socket in
            socket?.close()
            socket = nil
        }
    }
}
