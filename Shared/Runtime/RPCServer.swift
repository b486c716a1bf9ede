import Foundation
public import Logging
import MessagePack
public import ServiceLifecycle
public import SousWire
import Synchronization
public import ZeroMQ

/// A typed request/reply server on a ZeroMQ ROUTER socket.
///
/// Design (see docs/ARCHITECTURE.md, "A request's path"): one dedicated I/O thread owns the ROUTER
/// and never runs application code. It reads without pause, parses envelopes, answers malformed
/// requests itself, and hands each good request to a task on its method's lane: a small pool of
/// threads of its own (``MethodLane``), so slow handlers in one lane never hold up another and
/// none of them runs on Swift's cooperative pool. Each lane and each connection has a bound on
/// requests in flight; past it the I/O thread answers `unavailable` ("busy") at once instead of
/// queueing. A lane's thread sends its reply on the ROUTER itself (``SharedRouter``: one lock
/// for every call on it) and leaves a note of it for the I/O thread's counts, waking it through
/// an `inproc://` PUSH/PULL mailbox only when it must look (requests waiting that its send may
/// have hidden from the I/O thread's poll, or the server draining). Graceful shutdown stops
/// reading new requests, lets in-flight handlers finish and their replies go out, then closes
/// the sockets.
public final class RPCServer: Service, Sendable {
    public typealias RawHandler = @Sendable (RequestHeader, [UInt8], RequestContext) async -> RawResult

    /// An encoded reply body, or the error to send instead.
    public typealias RawResult = Result<[UInt8], ServiceError>

    public struct Options: Sendable {
        /// Threads and requests in flight per lane.
        public var lanes: [MethodLane: LaneLimits] = [
            .control: LaneLimits(threads: 1, maxInFlight: 32),
            .standard: LaneLimits(threads: 6, maxInFlight: 256),
            // Two threads, but room for many waiting: 50 people searching at once is ordinary use,
            // not overload, and is queued rather than refused.
            .heavy: LaneLimits(threads: 2, maxInFlight: 128),
        ]
        /// Requests in flight from one connection, all lanes together: one client's burst gets
        /// `busy` replies beyond it while everyone else is served.
        public var maxInFlightPerPeer = 32
        /// Messages libzmq holds per connection before TCP pushes back (`ZMQ_RCVHWM`).
        public var receiveQueuePerConnection = 100
        /// Replies libzmq holds for a connection that does not read them (`ZMQ_SNDHWM`); past
        /// it a reply is dropped (logged as `repliesDropped`). A client reads its replies as they
        /// come and has at most ``maxInFlightPerPeer`` requests in flight, so only one that
        /// stopped reading loses any, and what it can make the server hold is bounded.
        public var sendQueuePerConnection = 64
        public var maxMessageBytes = SousProtocol.maxMessageBytes
        /// How often the I/O thread looks at its shutdown flag when idle.
        public var pollInterval: Duration = .milliseconds(50)
        /// Whether methods of the `quick` lane are answered on the I/O thread (``MethodLane/quick``):
        /// only when the database is on this machine, since a read that waits on a network would
        /// hold up every request. The host sets it for SQLite.
        public var answersQuickReadsInline = false
        /// How long a quick read may run on the I/O thread before it is answered on the standard
        /// lane instead (about ten times a week read on this project's 2-core machines).
        public var quickReadBudget: Duration = .milliseconds(1)
        /// The service's long-term key: every endpoint but `inproc` is a CURVE server with it,
        /// and the server refuses to bind one without it (no plaintext).
        public var curve: CurveKeyPair?
        public init() {}
    }

    public struct LaneLimits: Sendable {
        public var threads: Int
        public var maxInFlight: Int
        public init(threads: Int, maxInFlight: Int) {
            self.threads = threads
            self.maxInFlight = maxInFlight
        }
    }

    public let name: String
    let logger: Logger
    let options: Options
    let idempotency: IdempotencyGuard
    /// Decides who is calling and whether they may (``Gate``), before any handler.
    public let gate: Gate
    /// Publishes a user's activity after a call that counts as one (the host's publisher).
    private let activity: @Sendable (RequestContext) -> Void
    private let handlers = Mutex<[String: Registration]>([:])
    private let state: Mutex<State>
    private let draining = Atomic<Bool>(false)
    /// The ROUTER: read by the I/O thread, replies sent by whichever thread has one.
    private let router: SharedRouter
    /// The lanes' answered requests, for the I/O thread's counts (``IOLoop/takeFinished()``).
    private let finishedJobs = Mutex<[FinishedJob]>([])
    /// Replies the lanes could not deliver (the peer gone), for the I/O thread's log line.
    private let lanesDropped = Atomic<Int>(0)
    private let mailboxEndpoint: String
    /// The mailbox's sending end: a lane wakes the I/O thread through it (nil once the server
    /// has stopped: a lane may still look after its last reply).
    private let mailbox: Mutex<ZMQSocket?>
    /// Signalled once by the I/O thread when it has exited. Not an AsyncStream: iterating one
    /// ends as soon as the waiting task is cancelled, and cancellation is exactly when the server
    /// must keep waiting for in-flight handlers.
    private let threadFinished = Completion()

    private struct State: ~Copyable {
        var pull: ZMQSocket?
        /// The ROUTER's handshake failures (a `PAIR` on its monitor), when it serves CURVE.
        var monitor: ZMQSocket?
        var boundEndpoints: [String] = []
        var started = false
    }

    /// A handler answered on the I/O thread itself (``registerOnIOThread(_:_:)``).
    typealias InlineHandler = @Sendable ([UInt8], RequestContext) -> RawResult

    struct Registration: Sendable {
        let handler: RawHandler
        /// Set for methods answered on the I/O thread, without a hop to a lane: always for
        /// ``registerOnIOThread(_:_:)``, within the budget for the `quick` lane and for a read
        /// with a kept answer (``register(_:keptAnswer:use:)``).
        var inline: InlineHandler? = nil
        /// Whether `inline` is an attempt within the quick reads' budget, on SQLite only, with
        /// the method's lane (standard for `quick`) answering when it does not finish.
        var inlineIsAttempt = false
        let isWrite: Bool
        let access: Access
        let lane: MethodLane
        /// The method's entry in `describe`, computed when asked.
        let describe: @Sendable (inout WireSchema) throws -> MethodDescription
    }

    struct Job: Sendable {
        /// The lane whose threads run it and whose bound it counts against.
        let lane: MethodLane
        let routing: [Envelope.Frame]
        let header: RequestHeader
        let body: [UInt8]
        let principal: ConnectionPrincipal
        let registration: Registration
    }

    /// A request a lane answered: whose bounds it no longer counts against.
    struct FinishedJob {
        let lane: MethodLane
        let peer: [UInt8]
    }

    /// Creates the server and its sockets; call ``bind(_:)`` before ``run()``.
    /// - Parameter ledger: where keyed writes are remembered: the service's database, so each
    ///   record commits with its write (in memory only for hosts without one).
    /// - Parameter gate: who may call what; the ZAP domain `sous-<name>` must have rules in the
    ///   context's ``ZAPHandler`` before a CURVE client connects (``ServiceHost`` sets them).
    /// - Parameter activity: called after every successful call of a method that records
    ///   activity (``Method/recordsActivity``), with the verified caller: the host publishes it.
    public init(
        name: String, logger: Logger, options: Options = Options(), gate: Gate, ledger: any IdempotencyLedger = MemoryIdempotencyLedger(),
        context: ZMQContext = .shared, activity: @escaping @Sendable (RequestContext) -> Void = { _ in }
    ) throws {
        self.activity = activity
        self.name = name
        self.logger = logger
        self.options = options
        self.gate = gate
        idempotency = IdempotencyGuard(ledger: ledger)
        let router = try context.socket(.router)
        var monitor: ZMQSocket?
        if let curve = options.curve {
            try router.setZAPDomain(Self.zapDomain(of: name))
            try router.setCurveServer(secretKey: curve.secretKey)
            // Refused handshakes never reach the application: the monitor is how they are seen.
            let monitorEndpoint = "inproc://sous-monitor-\(name)-\(UUID().uuidString)"
            try router.monitorHandshakeFailures(on: monitorEndpoint)
            let pair = try context.socket(.pair)
            try pair.connect(monitorEndpoint)
            monitor = pair
        }
        try router.setRouterMandatory(true)
        try router.setMaxMessageSize(Int64(options.maxMessageBytes))
        // No ZMTP heartbeats here: with them, libzmq 4.3.4 aborts ("!_io_error",
        // stream_engine_base.cpp) when a peer that flooded the socket disconnects
        // (zeromq/libzmq#4364). Dead TCP peers are found by the kernel's keepalive instead.
        try router.setTCPKeepalive(idleSeconds: 60, intervalSeconds: 10, count: 3)
        // libzmq queues up to this many messages per connection before TCP pushes back on the
        // sender; a flood over many connections holds at most this much per connection until
        // the I/O thread has read (and mostly refused) it.
        try router.setReceiveHighWaterMark(Int32(options.receiveQueuePerConnection))
        try router.setSendHighWaterMark(Int32(options.sendQueuePerConnection))
        let pull = try context.socket(.pull)
        // Every reply passes through here once; the lanes' bounds bound what can wait in it.
        try pull.setReceiveHighWaterMark(0)
        mailboxEndpoint = "inproc://sous-mailbox-\(name)-\(UUID().uuidString)"
        try pull.bind(mailboxEndpoint)
        let push = try context.socket(.push)
        try push.setSendHighWaterMark(0)
        try push.connect(mailboxEndpoint)
        mailbox = Mutex(push)
        self.router = SharedRouter(router)
        state = Mutex(State(pull: pull, monitor: monitor))
    }

    /// The ZAP domain of a service's request socket.
    public static func zapDomain(of name: String) -> String { "sous-\(name)" }

    /// Binds the ROUTER. Returns the endpoint actually bound (with the port the OS chose for
    /// `tcp://host:*` or `:0`). Refuses any endpoint but `inproc` without a CURVE key.
    @discardableResult
    public func bind(_ endpoint: String) throws(ZMQError) -> String {
        guard options.curve != nil || endpoint.hasPrefix("inproc://") else {
            throw ZMQError(code: EPROTONOSUPPORT, operation: "bind(\(endpoint)): refusing to serve in plaintext; give the server a CURVE key")
        }
        return try state.withLock { state throws(ZMQError) -> String in
            let bound = try router.withSocket { router throws(ZMQError) -> String in
                try router.bind(endpoint)
                return try router.lastEndpoint
            }
            guard let bound else { preconditionFailure("bind after the server stopped") }
            state.boundEndpoints.append(bound)
            return bound
        }
    }

    /// Every endpoint bound so far.
    public var endpoints: [String] { state.withLock { $0.boundEndpoints } }

    // MARK: Registration

    /// Registers a typed handler: a service's route table reads `server.register(CatalogAPI.share, use: share)`.
    /// The runtime decodes the request, answers badRequest naming the field when it does not
    /// decode, encodes the reply, and turns thrown errors into error replies. A write that
    /// carries an idempotency key runs once per key (see ``IdempotencyGuard``).
    /// (Disfavoured so that a synchronous handler takes the synchronous overload below, which
    /// may answer a quick read inline.)
    @_disfavoredOverload
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        use handler: @escaping @Sendable (Request, RequestContext) async throws -> Response
    ) {
        register(method, encode: Self.encoded, use: handler)
    }

    /// Registers an async handler whose result `encode` turns into the reply's bytes.
    private func register<Scope, Request, Response, Reply>(
        _ method: Method<Scope, Request, Response>, encode: @escaping @Sendable (Reply) throws -> [UInt8],
        use handler: @escaping @Sendable (Request, RequestContext) async throws -> Reply
    ) {
        precondition(method.lane != .quick, "\(method.name): a quick read's handler is synchronous (it may run on the I/O thread)")
        let idempotency = self.idempotency
        let activity = method.recordsActivity ? self.activity : nil
        let raw: RawHandler = { header, body, context in
            let request: Request
            do {
                request = try MessagePackDecoder.requests.decode(Request.self, from: body)
            } catch {
                return .failure(ServiceError(decoding: error))
            }
            let run: () async -> RawResult = {
                do {
                    let encoded = try encode(try await handler(request, context))
                    activity?(context)
                    return .success(encoded)
                } catch let error as ServiceError {
                    return .failure(error)
                } catch {
                    context.logger.error("handler failed", metadata: ["error": "\(error)"])
                    return .failure(.internal("\(method.name) failed: \(error)"))
                }
            }
            // Only a user's writes are remembered: their records are erased with the user, and
            // nothing an anonymous caller sent (a password, say) is kept.
            guard method.remembersReply, let key = header.idempotencyKey, let user = context.user else { return await run() }
            return await idempotency.perform(
                user: user, key: key, method: method.name, body: body, keyCheck: method.keyCheck,
                encodeReply: { value in
                    (value as? Response).flatMap { try? Self.encoded($0) }
                }, run)
        }
        let registration = Registration(
            handler: raw, isWrite: method.isWrite, access: method.access, lane: method.lane, describe: { try method.describe(into: &$0) }
        )
        handlers.withLock { $0[method.name] = registration }
    }

    /// Registers a handler of a method that acts for a signed-in user: the runtime hands it the
    /// verified user (the gate has already refused anyone else for a `user` method).
    @_disfavoredOverload
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        use handler: @escaping @Sendable (Request, _ user: String, RequestContext) async throws -> Response
    ) {
        register(method) { request, context in try await handler(request, try context.requireUser(), context) }
    }

    /// Registers a synchronous handler. For a method of the `quick` lane the server may answer it
    /// on its I/O thread (``MethodLane/quick``); any other runs on its lane like an async one.
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        use handler: @escaping @Sendable (Request, RequestContext) throws -> Response
    ) {
        register(method, encode: Self.encoded, use: handler)
    }

    /// Registers a synchronous read of the `quick` lane that answers with its reply encoded
    /// (``EncodedReply``, kept by the service): sent as it is, wherever it runs.
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        useEncoded handler: @escaping @Sendable (Request, RequestContext) throws -> EncodedReply<Response>
    ) {
        precondition(method.lane == .quick, "\(method.name): an encoded reply is for quick reads")
        register(method, encode: { $0.bytes }, use: handler)
    }

    /// ``register(_:useEncoded:)`` for a method that acts for a signed-in user.
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        useEncoded handler: @escaping @Sendable (Request, _ user: String, RequestContext) throws -> EncodedReply<Response>
    ) {
        register(method, useEncoded: { request, context in try handler(request, try context.requireUser(), context) })
    }

    /// Registers a synchronous handler whose result `encode` turns into the reply's bytes.
    private func register<Scope, Request, Response, Reply>(
        _ method: Method<Scope, Request, Response>, encode: @escaping @Sendable (Reply) throws -> [UInt8],
        use handler: @escaping @Sendable (Request, RequestContext) throws -> Reply
    ) {
        guard method.lane == .quick else {
            register(
                method, encode: encode, use: { (request: Request, context: RequestContext) async throws -> Reply in try handler(request, context) })
            return
        }
        precondition(!method.isWrite, "\(method.name): only reads are quick")
        let activity = method.recordsActivity ? self.activity : nil
        let inline = Self.inlineHandler(method, encode: encode) { request, context in
            let response = try handler(request, context)
            activity?(context)
            return response
        }
        let registration = Registration(
            handler: { _, body, context in inline(body, context) }, inline: inline, inlineIsAttempt: true, isWrite: false, access: method.access,
            lane: .quick, describe: { try method.describe(into: &$0) }
        )
        handlers.withLock { $0[method.name] = registration }
    }

    /// Registers a synchronous handler of a method that acts for a signed-in user.
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        use handler: @escaping @Sendable (Request, _ user: String, RequestContext) throws -> Response
    ) {
        register(
            method,
            use: { (request: Request, context: RequestContext) throws -> Response in try handler(request, try context.requireUser(), context) })
    }

    /// Registers a read answered on its lane, which the I/O thread first tries to answer from
    /// what the service keeps, as it answers a quick read (``MethodLane/quick``: SQLite only,
    /// within the same budget): `keptAnswer` returns the reply when it is kept and nil when it is
    /// not, and only then does the request go to the lane, where `handler` reads it whole. For
    /// reads that are often asked again and too long to run on the I/O thread (a search).
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        keptAnswer: @escaping @Sendable (Request, RequestContext) throws -> Response?,
        use handler: @escaping @Sendable (Request, RequestContext) async throws -> Response
    ) {
        register(method, encode: Self.encoded, keptAnswer: keptAnswer, use: handler)
    }

    /// ``register(_:keptAnswer:use:)`` for answers kept encoded (``EncodedReply``), for a
    /// method that acts for a signed-in user.
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        keptEncoded: @escaping @Sendable (Request, _ user: String, RequestContext) throws -> EncodedReply<Response>?,
        useEncoded handler: @escaping @Sendable (Request, _ user: String, RequestContext) async throws -> EncodedReply<Response>
    ) {
        register(
            method, encode: { $0.bytes }, keptAnswer: { request, context in try keptEncoded(request, try context.requireUser(), context) },
            use: { request, context in try await handler(request, try context.requireUser(), context) })
    }

    private func register<Scope, Request, Response, Reply>(
        _ method: Method<Scope, Request, Response>, encode: @escaping @Sendable (Reply) throws -> [UInt8],
        keptAnswer: @escaping @Sendable (Request, RequestContext) throws -> Reply?,
        use handler: @escaping @Sendable (Request, RequestContext) async throws -> Reply
    ) {
        precondition(!method.isWrite && method.lane != .quick, "\(method.name): a kept answer is for reads of the standard or heavy lane")
        register(method, encode: encode, use: handler)
        let activity = method.recordsActivity ? self.activity : nil
        let attempt = Self.inlineHandler(method, encode: encode) { request, context in
            guard let response = try keptAnswer(request, context) else {
                // Not kept: the attempt ends, and the lane answers (an attempt always has a budget).
                try QuickReadBudget.yieldToLane()
                throw ServiceError.internal("\(method.name): a kept answer was attempted without a quick read's budget")
            }
            activity?(context)
            return response
        }
        handlers.withLock { handlers in
            handlers[method.name]?.inline = attempt
            handlers[method.name]?.inlineIsAttempt = true
        }
    }

    /// ``register(_:keptAnswer:use:)`` for a method that acts for a signed-in user.
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        keptAnswer: @escaping @Sendable (Request, _ user: String, RequestContext) throws -> Response?,
        use handler: @escaping @Sendable (Request, _ user: String, RequestContext) async throws -> Response
    ) {
        register(
            method, keptAnswer: { request, context in try keptAnswer(request, try context.requireUser(), context) },
            use: { request, context in try await handler(request, try context.requireUser(), context) })
    }

    /// Registers a handler answered on the server's I/O thread, where the request is read:
    /// no hop to a lane's thread and back, which is most of a cheap call's cost. Only for reads
    /// that never block and take microseconds (`health`, `clock.get`: values already in memory),
    /// since every other request waits while one runs. They record no activity and keep no
    /// idempotency record.
    public func registerOnIOThread<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        _ handler: @escaping @Sendable (Request, RequestContext) throws -> Response
    ) {
        precondition(!method.isWrite && !method.recordsActivity, "\(method.name): only reads without activity are answered inline")
        let inline = Self.inlineHandler(method, encode: Self.encoded, handler)
        let registration = Registration(
            handler: { _, body, context in inline(body, context) }, inline: inline, isWrite: false, access: method.access, lane: method.lane,
            describe: { try method.describe(into: &$0) }
        )
        handlers.withLock { $0[method.name] = registration }
    }

    /// A reply as every handler's result becomes one, unless the handler keeps it encoded
    /// (``EncodedReply``).
    private static func encoded<Reply: Encodable>(_ reply: Reply) throws -> [UInt8] {
        try MessagePackEncoder().encode(reply)
    }

    /// Decodes, runs and encodes a synchronous handler, with errors as error replies.
    private static func inlineHandler<Scope, Request, Response, Reply>(
        _ method: Method<Scope, Request, Response>, encode: @escaping @Sendable (Reply) throws -> [UInt8],
        _ handler: @escaping @Sendable (Request, RequestContext) throws -> Reply
    ) -> InlineHandler {
        { body, context in
            let request: Request
            do {
                request = try MessagePackDecoder.requests.decode(Request.self, from: body)
            } catch {
                return .failure(ServiceError(decoding: error))
            }
            do {
                return .success(try encode(try handler(request, context)))
            } catch let error as ServiceError {
                return .failure(error)
            } catch {
                return .failure(.internal("\(method.name) failed: \(error)"))
            }
        }
    }

    public var registeredMethods: [String] { handlers.withLock { $0.keys.sorted() } }

    /// The registered methods that change nothing.
    public var registeredReads: [String] { handlers.withLock { $0.filter { !$0.value.isWrite }.keys.sorted() } }

    /// Every registered method and who may call it.
    public var registeredAccess: [String: Access] { handlers.withLock { $0.mapValues(\.access) } }

    /// What `describe` answers for this server: every registered method by name, with the
    /// shapes of its request and reply, and every type they use.
    public func description(of service: String) throws -> ServiceDescription {
        let registrations = handlers.withLock { $0 }
        var schema = WireSchema()
        var methods: [MethodDescription] = []
        for name in registrations.keys.sorted() {
            methods.append(try registrations[name]!.describe(&schema))
        }
        return ServiceDescription(
            service: service, protocolVersion: Int(SousProtocol.version), methods: methods, types: schema.types.values.sorted { $0.name < $1.name }
        )
    }

    // MARK: Running

    /// Serves until graceful shutdown or cancellation, then drains in-flight requests.
    public func run() async throws {
        let sockets = state.withLock { state -> (ZMQSocket, ZMQSocket?)? in
            guard !state.started, let pull = state.pull else { return nil }
            state.started = true
            state.pull = nil
            defer { state.monitor = nil }
            return (pull, state.monitor)
        }
        guard let (pull, monitor) = sockets else { preconditionFailure("RPCServer.run() called twice") }
        // The lanes' threads exist while the server runs.
        var executors: [MethodLane: ThreadPoolExecutor] = [:]
        for lane in MethodLane.allCases where lane != .quick {
            executors[lane] = ThreadPoolExecutor(name: "sous-\(name)-\(lane.rawValue)", threads: options.limits(of: lane).threads)
        }
        let loop = IOLoop(server: self, router: router, pull: pull, monitor: monitor, executors: executors)
        startThread(named: "sous-\(name)-io") { loop.run() }

        // The I/O thread only exits once every started handler has replied (it counts them), so
        // waiting for it here waits for in-flight requests too.
        await withTaskCancellationOrGracefulShutdownHandler {
            await threadFinished.wait()
        } onCancelOrGracefulShutdown: {
            self.draining.store(true, ordering: .releasing)
            // At once, not at its next poll's timeout: it may be done already.
            self.wakeIOThread()
        }
        mailbox.withLock { socket in
            socket?.close()
            socket = nil
        }
        for executor in executors.values { executor.shutdown() }
        logger.info("stopped", metadata: ["service": "\(name)"])
    }

    private func handle(_ job: Job) async {
        let header = job.header
        let result: RawResult
        do {
            let caller = try gate.admit(header, from: job.principal, access: job.registration.access)
            let context = RequestContext(
                requestID: header.id, method: header.method, caller: caller, principal: job.principal, deadline: header.deadline,
                idempotencyKey: job.registration.isWrite ? header.idempotencyKey : nil, logger: logger
            )
            result = await job.registration.handler(header, job.body, context)
        } catch {
            result = .failure(error)
        }
        let frames: [Envelope.Frame]
        switch result {
        case .success(let body):
            frames =
                (try? Envelope.replyFrames(routing: job.routing, header: ReplyHeader(id: header.id, status: .ok), body: body))
                ?? Envelope.errorReplyFrames(routing: job.routing, requestID: header.id, error: .internal("reply could not be encoded"))
        case .failure(let error):
            if error.code == .internal {
                logger.error("request failed", metadata: ["request": "\(header.id)", "method": "\(header.method)", "error": "\(error.message)"])
            }
            frames = Envelope.errorReplyFrames(routing: job.routing, requestID: header.id, error: error)
        }
        reply(frames, to: job)
    }

    /// Sends a lane's reply and wakes the I/O thread when it must look: requests are waiting
    /// that this send may have hidden from its poll, or the server is draining and may be done.
    ///
    /// The request is noted as answered before its reply goes out, so the caller's next request
    /// is never counted against a bound this one still held; and under the ROUTER's lock, so
    /// the I/O thread, which closes the ROUTER once nothing is counted in flight, never closes
    /// it before the reply is sent.
    private func reply(_ frames: [Envelope.Frame], to job: Job) {
        let (delivery, requestsWaiting) = router.sendFromLane(frames) {
            finishedJobs.withLock { $0.append(FinishedJob(lane: job.lane, peer: job.routing[0])) }
        }
        switch delivery {
        case .sent: break
        case .dropped: lanesDropped.add(1, ordering: .relaxed)
        case .failed(let error): logger.error("reply failed", metadata: ["error": "\(error)"])
        }
        if requestsWaiting || draining.load(ordering: .acquiring) { wakeIOThread() }
    }

    /// Makes the I/O thread's poll return: an empty message in the mailbox.
    private func wakeIOThread() {
        mailbox.withLock { socket in
            guard let socket else { return }
            do {
                _ = try socket.send([UInt8](), dontWait: true)
            } catch {
                logger.error("the I/O thread could not be woken", metadata: ["error": "\(error)"])
            }
        }
    }

    // MARK: I/O thread

    /// Everything the I/O thread touches; only that thread uses these counters and sockets (the
    /// ROUTER's replies from lanes aside, behind its lock).
    private final class IOLoop: @unchecked Sendable {
        let server: RPCServer
        let router: SharedRouter
        let pull: ZMQSocket
        let monitor: ZMQSocket?
        let executors: [MethodLane: ThreadPoolExecutor]
        /// Handshakes refused since the last log line: logged at most once a minute, since a
        /// refused client reconnects every few hundred milliseconds.
        var handshakeFailures: [HandshakeFailure.Kind: Int] = [:]
        var lastHandshakeLog = ContinuousClock.now - .seconds(60)
        var lastMonitorRead = ContinuousClock.now
        /// Set when a socket reports the context terminated (ETERM).
        var terminated = false
        /// Requests handed to a lane and not yet answered, per lane and per connection.
        var laneInFlight: [MethodLane: Int] = [:]
        var peerInFlight: [[UInt8]: Int] = [:]
        var total = 0
        /// Refusals and dropped replies since the last log line (logged at most once a second).
        var refusedSinceLog = 0
        var droppedSinceLog = 0
        var lastLog = ContinuousClock.now

        /// Whether the ROUTER has an `inproc` endpoint (in-process callers are trusted as the service).
        let servesInProcess: Bool

        init(server: RPCServer, router: SharedRouter, pull: ZMQSocket, monitor: ZMQSocket?, executors: [MethodLane: ThreadPoolExecutor]) {
            self.server = server
            self.monitor = monitor
            servesInProcess = server.endpoints.contains { $0.hasPrefix("inproc://") }
            self.router = router
            self.pull = pull
            self.executors = executors
        }

        func run() {
            let server = self.server
            defer {
                router.close()
                pull.close()
                monitor?.close()
                server.threadFinished.signal()
            }
            let descriptors: (router: Int32, pull: Int32)
            do {
                guard let routerDescriptor = try router.withSocket({ socket throws(ZMQError) in try socket.eventDescriptor() }) else { return }
                descriptors = (routerDescriptor, try pull.eventDescriptor())
            } catch {
                server.logger.critical("cannot wait on the server's sockets", metadata: ["error": "\(error)"])
                return
            }
            // The sockets' descriptors are edge-triggered (ZMQSocket.eventDescriptor): each pass
            // reads the ROUTER until EAGAIN, and the mailbox when it was signalled, before
            // waiting in one poll(2). zmq_poll asked both sockets for their events before and
            // after its poll, each a poll of its mailbox: 8.2 polls per `health` call before,
            // 4.3 then (perf trace, docs/BENCHMARKS.md).
            var mailboxSignalled = true
            while true {
                // Wake-ups first: one that comes after them signals the next poll, and one that
                // came before is for requests the read below takes.
                if mailboxSignalled { takeWakeUps() }
                takeFinished()
                let draining = server.draining.load(ordering: .acquiring)
                if draining && total == 0 { return }
                // Reading never pauses while serving: a ROUTER that stops reading lets a flooding
                // peer's queue grow and stalls its engine. Beyond the bounds, requests are refused.
                let moreWaiting = !draining && readRequests()
                // The context was terminated under the loop: its sockets are dead.
                if terminated { return }
                var signalled: [Bool] = []
                do {
                    let waited = draining ? [descriptors.pull] : [descriptors.pull, descriptors.router]
                    signalled = try ZMQPoller.wait(waited, timeout: moreWaiting ? .zero : server.options.pollInterval)
                } catch {
                    server.logger.error("poll failed", metadata: ["error": "\(error)"])
                }
                mailboxSignalled = signalled.first ?? true
                // Refused handshakes are only counted for a log line (once a minute at most):
                // their monitor is read when the loop is idle, or once a second while it is busy,
                // instead of being polled next to every request (a socket more in each poll).
                if monitor != nil {
                    let now = ContinuousClock.now
                    if !signalled.contains(true) && !moreWaiting || now - lastMonitorRead >= .seconds(1) {
                        lastMonitorRead = now
                        readHandshakeFailures()
                    }
                }
                logRefusals()
            }
        }

        func readHandshakeFailures() {
            while let monitor, let frames = try? monitor.receiveMultipart(dontWait: true) {
                guard let failure = HandshakeFailure.parse(frames) else { continue }
                handshakeFailures[failure.kind, default: 0] += 1
            }
            guard !handshakeFailures.isEmpty, ContinuousClock.now - lastHandshakeLog >= .seconds(60) else { return }
            server.logger.warning(
                "refused connections: no CURVE, or a broken handshake",
                metadata: [
                    "withoutCurve": "\(handshakeFailures[.protocolError] ?? 0)",
                    "refusedByZAP": "\(handshakeFailures[.refused] ?? 0)",
                    "other": "\(handshakeFailures[.other] ?? 0)",
                    "endpoints": "\(server.endpoints.filter { !$0.hasPrefix("inproc://") }.joined(separator: " "))",
                ])
            handshakeFailures = [:]
            lastHandshakeLog = .now
        }

        /// Empties the mailbox of the lanes' wake-ups (each an empty message).
        func takeWakeUps() {
            while true {
                do {
                    _ = try pull.receiveMultipart(dontWait: true)
                } catch {
                    if error.isTerminated { terminated = true }
                    if !error.isWouldBlock && !error.isTerminated { server.logger.error("mailbox read failed", metadata: ["error": "\(error)"]) }
                    return
                }
            }
        }

        /// Counts the requests the lanes have answered since the last look.
        func takeFinished() {
            let jobs = server.finishedJobs.withLock { jobs -> [FinishedJob] in
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            for job in jobs { finished(lane: job.lane, peer: job.peer) }
        }

        func finished(lane: MethodLane, peer: [UInt8]) {
            total -= 1
            laneInFlight[lane, default: 1] -= 1
            if let count = peerInFlight[peer] {
                peerInFlight[peer] = count > 1 ? count - 1 : nil
            }
        }

        func send(_ frames: [ZMQFrame]) {
            switch router.send(frames) {
            case .sent: break
            case .dropped: droppedSinceLog += 1
            case .failed(let error): server.logger.error("reply failed", metadata: ["error": "\(error)"])
            }
        }

        /// Reads what is waiting on the ROUTER (bounded, so replies keep flowing under load);
        /// whether more may be waiting (it stopped at the bound, not at `EAGAIN`).
        func readRequests() -> Bool {
            for _ in 0..<256 {
                let message: (frames: [ZMQFrame], property: String?)
                do {
                    guard let received = try router.receive() else { return false }
                    message = received
                } catch {
                    if error.isTerminated { terminated = true }
                    if !error.isTerminated { server.logger.error("receive failed", metadata: ["error": "\(error)"]) }
                    return false
                }
                // Without a User-Id the message did not pass the ZAP handler: only an `inproc`
                // connection can do that, and only a server bound in-process accepts one.
                let principal =
                    message.property == nil && !servesInProcess ? .client(address: "unknown") : ConnectionPrincipal(userID: message.property)
                dispatch(message.frames, principal: principal)
            }
            return true
        }

        func dispatch(_ frames: [ZMQFrame], principal: ConnectionPrincipal) {
            switch Envelope.parseRequest(frames) {
            case .dropped(let reason):
                server.logger.warning("dropped a message that cannot be answered", metadata: ["reason": "\(reason)"])
            case let .rejected(routing, requestID, error):
                server.logger.notice("rejected a malformed request", metadata: ["request": "\(requestID)", "error": "\(error.message)"])
                send(Envelope.errorReplyFrames(routing: routing, requestID: requestID, error: error))
            case let .request(routing, header, body):
                if TestHooks.recordCorpus != nil { TestHooks.record(method: header.method, body: body) }
                guard let registration = server.handlers.withLock({ $0[header.method] }) else {
                    let error = ServiceError.badRequest("\(server.name) has no method \"\(header.method)\"", field: "header.method")
                    send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
                    return
                }
                if let deadline = header.deadline, deadline < Int64(Date().timeIntervalSince1970 * 1000) {
                    let error = ServiceError(.timeout, "the request's deadline passed before \(server.name) could start it")
                    send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
                    return
                }
                var lane = registration.lane
                if registration.inlineIsAttempt {
                    // Inline within the budget when the database is local; else, or past the
                    // budget, a read of its lane (standard for a quick read) like any other.
                    if lane == .quick { lane = .standard }
                    if server.options.answersQuickReadsInline, let inline = registration.inline {
                        let budget = QuickReadBudget(server.options.quickReadBudget)
                        let answered = QuickReadBudget.$current.withValue(budget) {
                            answerInline(inline, registration: registration, routing: routing, header: header, body: body, principal: principal) {
                                !budget.exceeded
                            }
                        }
                        if answered { return }
                    }
                } else if let inline = registration.inline {
                    answerInline(inline, registration: registration, routing: routing, header: header, body: body, principal: principal)
                    return
                }
                // The bounds count what the lanes have not answered: their notes are taken first,
                // since a caller may send again as soon as its reply is out.
                takeFinished()
                let peer = routing[0]
                let limits = server.options.limits(of: lane)
                let fromPeer = peerInFlight[peer, default: 0]
                if fromPeer >= server.options.maxInFlightPerPeer && lane != .control {
                    refuse(routing, header, "\(fromPeer) requests from this connection are in flight (at most \(server.options.maxInFlightPerPeer))")
                    return
                }
                if laneInFlight[lane, default: 0] >= limits.maxInFlight {
                    refuse(routing, header, "\(limits.maxInFlight) \(lane.rawValue) requests are in flight")
                    return
                }
                total += 1
                laneInFlight[lane, default: 0] += 1
                peerInFlight[peer] = fromPeer + 1
                let job = Job(lane: lane, routing: routing, header: header, body: body, principal: principal, registration: registration)
                // One task per request, counted until its reply passes back through here, on
                // its lane's threads; started straight from this thread: a single hop.
                let executor = executors[lane]
                Task(executorPreference: executor) { [server] in await server.handle(job) }
            }
        }

        /// Admits the caller and answers at once, on this thread (``RPCServer/registerOnIOThread(_:_:)``,
        /// quick reads). Returns false, sending nothing, when `keep` says the result is not the
        /// answer (a quick read past its budget).
        @discardableResult
        func answerInline(
            _ inline: InlineHandler, registration: Registration, routing: [Envelope.Frame], header: RequestHeader, body: [UInt8],
            principal: ConnectionPrincipal, keep: () -> Bool = { true }
        ) -> Bool {
            let result: RawResult
            do {
                let caller = try server.gate.admit(header, from: principal, access: registration.access)
                let context = RequestContext(
                    requestID: header.id, method: header.method, caller: caller, principal: principal, deadline: header.deadline,
                    idempotencyKey: nil, logger: server.logger
                )
                result = inline(body, context)
            } catch {
                result = .failure(error)
            }
            guard keep() else { return false }
            if case .failure(let error) = result, error.code == .internal {
                server.logger.error(
                    "request failed", metadata: ["request": "\(header.id)", "method": "\(header.method)", "error": "\(error.message)"])
            }
            switch result {
            case .success(let reply):
                do {
                    send(try Envelope.replyFrames(routing: routing, header: ReplyHeader(id: header.id, status: .ok), body: reply))
                } catch {
                    send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: .internal("reply could not be encoded")))
                }
            case .failure(let error):
                send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
            }
            return true
        }

        func refuse(_ routing: [Envelope.Frame], _ header: RequestHeader, _ why: String) {
            refusedSinceLog += 1
            let error = ServiceError(.unavailable, "\(server.name) is busy: \(why); retry shortly")
            send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
        }

        func logRefusals() {
            droppedSinceLog += server.lanesDropped.exchange(0, ordering: .relaxed)
            guard refusedSinceLog + droppedSinceLog > 0, ContinuousClock.now - lastLog >= .seconds(1) else { return }
            server.logger.notice(
                "under load",
                metadata: [
                    "refusedBusy": "\(refusedSinceLog)", "repliesDropped": "\(droppedSinceLog)", "inFlight": "\(total)",
                ])
            refusedSinceLog = 0
            droppedSinceLog = 0
            lastLog = .now
        }
    }
}

extension RPCServer.Options {
    func limits(of lane: MethodLane) -> RPCServer.LaneLimits {
        lanes[lane] ?? RPCServer.LaneLimits(threads: 1, maxInFlight: 16)
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
