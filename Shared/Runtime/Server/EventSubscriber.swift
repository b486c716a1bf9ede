import Foundation
public import Logging
public import ServiceLifecycle
public import SousWire
import Synchronization
public import ZeroMQ

/// Receives events from one or more PUB endpoints whose topics start with given prefixes.
///
/// The SUB socket lives on its own thread. libzmq reconnects to a publisher that restarts and
/// resubscribes by itself; heartbeats make a silently dead connection noticed. Run it as a
/// `Service` and read ``events``; the stream ends on graceful shutdown.
public final class EventSubscriber: Service, Sendable {
    public let events: AsyncStream<Envelope.Event>
    private let continuation: AsyncStream<Envelope.Event>.Continuation
    private let sources: [Source]
    private let prefixes: [String]
    private let logger: Logger
    private let context: ZMQContext
    private let stopping = Atomic<Bool>(false)
    private let ready: AsyncStream<Void>
    private let readyContinuation: AsyncStream<Void>.Continuation

    /// A publisher to connect to (or every replica's, separated by commas), and how (CURVE with
    /// the publisher's key, or nothing over `inproc`). A source whose key is not known yet is
    /// tried again every second.
    public struct Source: Sendable {
        public var endpoint: String
        public var curve: CurveSetupProvider?

        public init(endpoint: String, curve: CurveSetupProvider? = nil) {
            self.endpoint = endpoint
            self.curve = curve
        }
    }

    public convenience init(endpoints: [String], prefixes: [String], logger: Logger, context: ZMQContext = .shared) {
        self.init(sources: endpoints.map { Source(endpoint: $0) }, prefixes: prefixes, logger: logger, context: context)
    }

    public init(sources: [Source], prefixes: [String], logger: Logger, context: ZMQContext = .shared) {
        self.sources = sources
        self.prefixes = prefixes.isEmpty ? [""] : prefixes
        self.logger = logger
        self.context = context
        (events, continuation) = AsyncStream.makeStream(of: Envelope.Event.self, bufferingPolicy: .bufferingNewest(100_000))
        (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Returns once the socket is connected and subscribed (events published after this are seen,
    /// subject to the usual PUB/SUB join delay of the transport).
    public func waitUntilSubscribed() async {
        for await _ in ready { return }
    }

    public func run() async throws {
        let socket = try context.socket(.sub)
        try socket.setReconnectInterval(milliseconds: 100, max: 2_000)
        try socket.setHeartbeat(intervalMilliseconds: 2_000, timeoutMilliseconds: 6_000)
        try socket.setReceiveHighWaterMark(100_000)
        for prefix in prefixes { try socket.subscribe(prefix) }
        let loop = Loop(socket: socket, subscriber: self)
        loop.connectWaitingSources()
        let (finished, finishedContinuation) = AsyncStream.makeStream(of: Void.self)
        startThread(named: "sous-subscriber") {
            loop.run()
            finishedContinuation.finish()
        }
        readyContinuation.yield()
        readyContinuation.finish()
        await withTaskCancellationOrGracefulShutdownHandler {
            for await _ in finished {}
        } onCancelOrGracefulShutdown: {
            self.stopping.store(true, ordering: .releasing)
        }
    }

    private final class Loop: @unchecked Sendable {
        let socket: ZMQSocket
        let subscriber: EventSubscriber
        var waiting: [Source]
        var lastTry = ContinuousClock.now

        init(socket: ZMQSocket, subscriber: EventSubscriber) {
            self.socket = socket
            self.subscriber = subscriber
            // One per replica: each is connected once, whichever others are still waiting.
            waiting = subscriber.sources.flatMap { source in
                Replicas.endpoints(source.endpoint).map { Source(endpoint: $0, curve: source.curve) }
            }
        }

        /// Connects every source it can; CURVE options apply to the connect that follows them.
        func connectWaitingSources() {
            lastTry = .now
            waiting = waiting.filter { source in
                do {
                    if let setup = try source.curve?() {
                        try socket.setCurveClient(serverKey: setup.serverKey, keyPair: setup.keyPair)
                    }
                    try socket.connect(source.endpoint)
                    return false
                } catch {
                    subscriber.logger.notice("not subscribed yet", metadata: ["endpoint": "\(source.endpoint)", "reason": "\(error)"])
                    return true
                }
            }
        }

        func run() {
            defer {
                socket.close()
                subscriber.continuation.finish()
            }
            while !subscriber.stopping.load(ordering: .acquiring) {
                if !waiting.isEmpty && ContinuousClock.now - lastTry >= .seconds(1) { connectWaitingSources() }
                let frames: [ZMQFrame]
                do {
                    guard let received = try socket.receive(timeout: .milliseconds(50)) else { continue }
                    frames = received
                } catch {
                    if error.isTerminated { return }
                    subscriber.logger.error("event receive failed", metadata: ["error": "\(error)"])
                    continue
                }
                do {
                    subscriber.continuation.yield(try Envelope.parseEvent(frames))
                } catch {
                    subscriber.logger.warning("dropped a malformed event", metadata: ["error": "\(error.message)"])
                }
            }
        }
    }
}
