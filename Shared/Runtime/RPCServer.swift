public import Logging
public import ServiceLifecycle
public import SousWire
import Foundation
import MessagePack
import Synchronization
public import ZeroMQ

/// A typed request/reply server on a ZeroMQ ROUTER socket.
///
/// Design (see docs/PROTOCOL.md, "Server concurrency"): one dedicated I/O thread owns the ROUTER
/// and never runs application code. It parses envelopes, answers malformed requests itself, and
/// hands each good request to its own Swift task, so a slow handler never holds up the others. Handlers return their replies through an `inproc://` PUSH/PULL mailbox
/// that wakes the I/O thread, which alone writes to the ROUTER. Graceful shutdown stops reading
/// new requests, lets in-flight handlers finish and their replies go out, then closes the sockets.
public final class RPCServer: Service, Sendable {
    public typealias RawHandler = @Sendable (RequestHeader, [UInt8], RequestContext) async -> RawResult

    /// An encoded reply body, or the error to send instead.
    public typealias RawResult = Result<[UInt8], ServiceError>

    public struct Options: Sendable {
        /// Requests handled at the same time; beyond this the I/O thread stops reading, requests
        /// wait in libzmq's queues and TCP pushes back on the clients.
        public var maxInFlight = 512
        public var maxMessageBytes = SousProtocol.maxMessageBytes
        /// How often the I/O thread looks at its shutdown flag when idle.
        public var pollInterval: Duration = .milliseconds(50)
        public init() {}
    }

    public let name: String
    let logger: Logger
    let options: Options
    let idempotency: IdempotencyCache
    private let handlers = Mutex<[String: (handler: RawHandler, isWrite: Bool)]>([:])
    private let state: Mutex<State>
    private let inFlight = Atomic<Int>(0)
    private let draining = Atomic<Bool>(false)
    private let mailboxEndpoint: String
    /// The mailbox's sending end, shared by every handler task.
    private let mailbox: Mutex<ZMQSocket>
    /// Signalled once by the I/O thread when it has exited. Not an AsyncStream: iterating one
    /// ends as soon as the waiting task is cancelled, and cancellation is exactly when the server
    /// must keep waiting for in-flight handlers.
    private let threadFinished = Completion()

    private struct State: ~Copyable {
        var router: ZMQSocket?
        var pull: ZMQSocket?
        var boundEndpoints: [String] = []
        var started = false
    }

    struct Job: Sendable {
        let routing: [Envelope.Frame]
        let header: RequestHeader
        let body: [UInt8]
        let handler: RawHandler
        let isWrite: Bool
    }

    /// Creates the server and its sockets; call ``bind(_:)`` before ``run()``.
    public init(name: String, logger: Logger, options: Options = Options(), idempotency: IdempotencyCache = IdempotencyCache(), context: ZMQContext = .shared) throws {
        self.name = name
        self.logger = logger
        self.options = options
        self.idempotency = idempotency
        let router = try context.socket(.router)
        try router.setRouterMandatory(true)
        try router.setMaxMessageSize(Int64(options.maxMessageBytes))
        try router.setHeartbeat(intervalMilliseconds: 5_000, timeoutMilliseconds: 15_000)
        let pull = try context.socket(.pull)
        mailboxEndpoint = "inproc://sous-mailbox-\(name)-\(UUID().uuidString)"
        try pull.bind(mailboxEndpoint)
        let push = try context.socket(.push)
        try push.connect(mailboxEndpoint)
        mailbox = Mutex(push)
        state = Mutex(State(router: router, pull: pull))
    }

    /// Binds the ROUTER. Returns the endpoint actually bound (with the port the OS chose for
    /// `tcp://host:*` or `:0`).
    @discardableResult
    public func bind(_ endpoint: String) throws(ZMQError) -> String {
        try state.withLock { state throws(ZMQError) -> String in
            guard let router = state.router else { preconditionFailure("bind after the server stopped") }
            try router.bind(endpoint)
            let bound = try router.lastEndpoint
            state.boundEndpoints.append(bound)
            return bound
        }
    }

    /// Every endpoint bound so far.
    public var endpoints: [String] { state.withLock { $0.boundEndpoints } }

    // MARK: Registration

    /// Registers a typed handler. The runtime decodes the request, answers badRequest naming the
    /// field when it does not decode, encodes the reply, and turns thrown errors into error replies.
    public func register<Request, Response>(
        _ method: Method<Request, Response>,
        _ handler: @escaping @Sendable (Request, RequestContext) async throws -> Response
    ) {
        let raw: RawHandler = { _, body, context in
            let request: Request
            do {
                request = try MessagePackDecoder().decode(Request.self, from: body)
            } catch {
                return .failure(ServiceError(decoding: error))
            }
            do {
                let response = try await handler(request, context)
                return .success(try MessagePackEncoder().encode(response))
            } catch let error as ServiceError {
                return .failure(error)
            } catch {
                context.logger.error("handler failed", metadata: ["error": "\(error)"])
                return .failure(.internal("\(method.name) failed: \(error)"))
            }
        }
        handlers.withLock { $0[method.name] = (raw, method.isWrite) }
    }

    public var registeredMethods: [String] { handlers.withLock { $0.keys.sorted() } }

    // MARK: Running

    /// Serves until graceful shutdown or cancellation, then drains in-flight requests.
    public func run() async throws {
        let sockets = state.withLock { state -> (ZMQSocket, ZMQSocket)? in
            guard !state.started, let router = state.router, let pull = state.pull else { return nil }
            state.started = true
            state.router = nil
            state.pull = nil
            return (router, pull)
        }
        guard let (router, pull) = sockets else { preconditionFailure("RPCServer.run() called twice") }
        let loop = IOLoop(server: self, router: router, pull: pull)
        let thread = Thread { loop.run() }
        thread.name = "sous-\(name)-io"
        thread.start()

        // The I/O thread only exits once every started handler has replied (it counts them), so
        // waiting for it here waits for in-flight requests too.
        await withTaskCancellationOrGracefulShutdownHandler {
            await threadFinished.wait()
        } onCancelOrGracefulShutdown: {
            self.draining.store(true, ordering: .releasing)
        }
        mailbox.withLock { $0.close() }
        logger.info("stopped", metadata: ["service": "\(name)"])
    }

    private func handle(_ job: Job) async {
        let header = job.header
        var logger = self.logger
        logger[metadataKey: "request"] = "\(header.id)"
        logger[metadataKey: "method"] = "\(header.method)"
        let context = RequestContext(
            requestID: header.id, method: header.method, user: header.user, deadline: header.deadline,
            idempotencyKey: job.isWrite ? header.idempotencyKey : nil, logger: logger
        )
        let result: RawResult
        if job.isWrite, let key = header.idempotencyKey {
            result = await idempotency.perform(user: header.user ?? "", key: key, method: header.method) {
                await job.handler(header, job.body, context)
            }
        } else {
            result = await job.handler(header, job.body, context)
        }
        let frames: [Envelope.Frame]
        switch result {
        case .success(let body):
            frames = (try? Envelope.replyFrames(routing: job.routing, header: ReplyHeader(id: header.id, status: .ok), body: body))
                ?? Envelope.errorReplyFrames(routing: job.routing, requestID: header.id, error: .internal("reply could not be encoded"))
        case .failure(let error):
            if error.code == .internal { logger.error("request failed", metadata: ["error": "\(error.message)"]) }
            frames = Envelope.errorReplyFrames(routing: job.routing, requestID: header.id, error: error)
        }
        post(frames)
        inFlight.subtract(1, ordering: .releasing)
    }

    private func post(_ frames: [Envelope.Frame]) {
        mailbox.withLock { socket in
            do {
                try socket.send(multipart: frames)
            } catch {
                logger.error("reply could not reach the I/O thread", metadata: ["error": "\(error)"])
            }
        }
    }

    // MARK: I/O thread

    /// Everything the I/O thread touches; only that thread uses these sockets.
    private final class IOLoop: @unchecked Sendable {
        let server: RPCServer
        let router: ZMQSocket
        let pull: ZMQSocket

        init(server: RPCServer, router: ZMQSocket, pull: ZMQSocket) {
            self.server = server
            self.router = router
            self.pull = pull
        }

        func run() {
            let server = self.server
            defer {
                router.close()
                pull.close()
                server.threadFinished.signal()
            }
            while true {
                let draining = server.draining.load(ordering: .acquiring)
                let inFlight = server.inFlight.load(ordering: .acquiring)
                if draining && inFlight == 0 {
                    forwardReplies()
                    return
                }
                let accepting = !draining && inFlight < server.options.maxInFlight
                var items: [(socket: ZMQSocket, events: ZMQPollEvents)] = [(pull, .readable)]
                if accepting { items.append((router, .readable)) }
                let ready: [ZMQPollEvents]
                do {
                    ready = try ZMQPoller.poll(items, timeout: server.options.pollInterval)
                } catch {
                    if error.isTerminated { return }
                    server.logger.error("poll failed", metadata: ["error": "\(error)"])
                    continue
                }
                if !ready[0].isEmpty { forwardReplies() }
                if accepting && !ready[1].isEmpty { readRequests() }
            }
        }

        /// Sends every reply waiting in the mailbox out through the ROUTER.
        func forwardReplies() {
            while true {
                let frames: [ZMQFrame]
                do {
                    frames = try pull.receiveMultipart(dontWait: true)
                } catch {
                    if !error.isWouldBlock { server.logger.error("mailbox read failed", metadata: ["error": "\(error)"]) }
                    return
                }
                send(frames)
            }
        }

        func send(_ frames: [ZMQFrame]) {
            do {
                if try !router.send(multipart: frames, dontWait: true) {
                    server.logger.warning("reply dropped: client's queue is full")
                }
            } catch where error.isHostUnreachable {
                server.logger.notice("reply dropped: client disconnected before it was answered")
            } catch {
                server.logger.error("reply failed", metadata: ["error": "\(error)"])
            }
        }

        /// Reads what is waiting on the ROUTER (bounded, so replies keep flowing under load).
        func readRequests() {
            for _ in 0..<64 {
                if server.inFlight.load(ordering: .acquiring) >= server.options.maxInFlight { return }
                let frames: [ZMQFrame]
                do {
                    frames = try router.receiveMultipart(dontWait: true)
                } catch {
                    if !error.isWouldBlock { server.logger.error("receive failed", metadata: ["error": "\(error)"]) }
                    return
                }
                dispatch(frames)
            }
        }

        func dispatch(_ frames: [ZMQFrame]) {
            switch Envelope.parseRequest(frames) {
            case .dropped(let reason):
                server.logger.warning("dropped a message that cannot be answered", metadata: ["reason": "\(reason)"])
            case let .rejected(routing, requestID, error):
                server.logger.notice("rejected a malformed request", metadata: ["request": "\(requestID)", "error": "\(error.message)"])
                send(Envelope.errorReplyFrames(routing: routing, requestID: requestID, error: error))
            case let .request(routing, header, body):
                guard let entry = server.handlers.withLock({ $0[header.method] }) else {
                    let error = ServiceError.badRequest("\(server.name) has no method \"\(header.method)\"", field: "header.method")
                    send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
                    return
                }
                if let deadline = header.deadline, deadline < Int64(Date().timeIntervalSince1970 * 1000) {
                    let error = ServiceError(.timeout, "the request's deadline passed before \(server.name) could start it")
                    send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
                    return
                }
                server.inFlight.add(1, ordering: .releasing)
                let job = Job(routing: routing, header: header, body: body, handler: entry.handler, isWrite: entry.isWrite)
                // One task per request, counted in `inFlight` and awaited through it on shutdown;
                // started straight from this thread so a request costs a single hop to the pool.
                Task { [server] in await server.handle(job) }
            }
        }
    }
}

/// A one-shot signal a thread raises and a task awaits, regardless of the task's cancellation.
final class Completion: Sendable {
    private enum State {
        case pending([CheckedContinuation<Void, Never>])
        case done
    }

    private let state = Mutex(State.pending([]))

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .pending(let waiters) = state else { return [] }
            state = .done
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                guard case .pending(var waiters) = state else { return true }
                waiters.append(continuation)
                state = .pending(waiters)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
