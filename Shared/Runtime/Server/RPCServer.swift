import Foundation
public import Logging
import MessagePack
public import ServiceLifecycle
public import SousWire
import Synchronization
public import ZeroMQ

/// A typed request/reply server on a ZeroMQ ROUTER socket.
///
/// One I/O thread reads the ROUTER (docs/ARCHITECTURE.md, "A request's path"): without pause,
/// it parses envelopes, answers malformed and refused requests itself, and hands each good
/// request to a task on its method's lane (``MethodLane``), a small pool of threads of its own,
/// so a slow handler in one lane never holds up another and none runs on Swift's cooperative
/// pool. The lane's thread sends its reply on the ROUTER itself (``SharedRouter``) and leaves a
/// note of it for the I/O thread's counts. Each lane and each connection has a bound on
/// requests in flight; past it the I/O thread answers `unavailable` ("busy") at once instead of
/// queueing. Graceful shutdown stops reading new
/// requests, lets in-flight handlers finish and their replies go out, then closes the sockets.
public final class RPCServer: Service, Sendable {
    /// A request's header, body and context in; its encoded reply (or the error to send) out.
    typealias RawHandler = @Sendable (RequestHeader, [UInt8], RequestContext) async -> Result<[UInt8], ServiceError>

    struct Registration: Sendable {
        let handler: RawHandler
        let isWrite: Bool
        let access: Access
        let lane: MethodLane
        /// The method's entry in `describe`, computed when asked.
        let describe: @Sendable (inout WireSchema) throws -> MethodDescription
    }

    /// A request handed to a lane.
    struct Job: Sendable {
        let lane: MethodLane
        let routing: [Envelope.Frame]
        let header: RequestHeader
        let body: [UInt8]
        let principal: ConnectionPrincipal
        let registration: Registration
    }

    /// A request a lane answered: whose bounds it no longer counts against.
    struct FinishedJob: Sendable {
        let lane: MethodLane
        let peer: [UInt8]
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
    /// Where the household of a ``Access/household`` method's caller is found (``useHouseholds(_:)``).
    private let households = HouseholdDirectorySlot()
    /// Where the friends of a ``Access/friend`` method's caller are found (``useFriends(_:)``).
    private let friends = FriendDirectorySlot()
    private let state: Mutex<State>
    let draining = Atomic<Bool>(false)
    /// The ROUTER: read by the I/O thread, replies sent by whichever thread has one.
    let router: SharedRouter
    /// The requests the lanes have answered since the I/O thread last counted.
    let finishedJobs = Mutex<[FinishedJob]>([])
    /// Replies the lanes could not deliver (the peer gone, or not reading), for the log line.
    let lanesDropped = Atomic<Int>(0)
    /// The mailbox's sending end: a lane wakes the I/O thread through it when it must look
    /// (nil once the server has stopped).
    private let mailbox: Mutex<ZMQSocket?>
    /// Signalled once by the I/O thread when it has exited. Not an AsyncStream: iterating one
    /// ends as soon as the waiting task is cancelled, and cancellation is exactly when the server
    /// must keep waiting for in-flight handlers.
    let threadFinished = Completion()

    private struct State: ~Copyable {
        var pull: ZMQSocket?
        /// The ROUTER's handshake failures (a `PAIR` on its monitor), when it serves CURVE.
        var monitor: ZMQSocket?
        var boundEndpoints: [String] = []
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
        // Every reply's wake-up passes through here at most once; the lanes' bounds bound them.
        try pull.setReceiveHighWaterMark(0)
        let mailboxEndpoint = "inproc://sous-mailbox-\(name)-\(UUID().uuidString)"
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

    /// Binds the ROUTER, before ``run()``. Returns the endpoint actually bound (with the port
    /// the OS chose for `tcp://host:*` or `:0`). Refuses any endpoint but `inproc` without a
    /// CURVE key.
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

    /// Registers the handler of `method`: a service's route table reads
    /// `server.register(CatalogAPI.share, use: share)`. What differs between methods (who may
    /// call, the lane, whether a keyed write's reply is remembered, activity) is declared on the
    /// ``Method``; the runtime decodes the request (badRequest naming the field when it does
    /// not decode), admits the caller, encodes the reply and turns thrown errors into error
    /// replies. A keyed write runs once per key (``IdempotencyGuard``).
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        use handler: @escaping @Sendable (Request, RequestContext) async throws -> Response
    ) {
        let idempotency = self.idempotency
        let activity = method.recordsActivity ? self.activity : nil
        let households = method.access == .household ? self.households : nil
        let friends = method.access == .friend ? self.friends : nil
        let raw: RawHandler = { header, body, incoming in
            let request: Request
            do {
                request = try MessagePackDecoder.requests.decode(Request.self, from: body)
            } catch {
                return .failure(ServiceError(decoding: error))
            }
            var context = incoming
            // A household method's handler is handed the caller's household, found here: no
            // handler can choose which household it reads.
            if let households {
                guard let directory = households.directory else {
                    return .failure(.internal("\(method.name) needs the caller's household, and this server has no household directory"))
                }
                do throws(ServiceError) {
                    let user = try context.requireUser()
                    context = context.member(of: try await directory.household(of: user, for: context))
                } catch {
                    return .failure(error)
                }
            }
            // A friend method's handler is handed whose data it reads, checked here against what
            // the planner says that friend shares: no handler reads a name from the request.
            if let friends {
                guard let directory = friends.directory else {
                    return .failure(.internal("\(method.name) reads what friends share, and this server has no friend directory"))
                }
                do throws(ServiceError) {
                    let user = try context.requireUser()
                    let scoped = request as? any FriendScoped
                    if let scoped, scoped.friend == nil || scoped.friend == user {
                        context = context.reading(user, friends: nil)  // the caller's own: nobody to ask about
                    } else {
                        let known = try await directory.friends(of: user, for: context)
                        context = context.reading(try known.subject(named: scoped?.friend, caller: user, method: method.name), friends: known)
                    }
                } catch {
                    return .failure(error)
                }
            }
            @Sendable func run(_ context: RequestContext) async -> Result<[UInt8], ServiceError> {
                do {
                    let encoded = try MessagePackEncoder().encode(try await handler(request, context))
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
            guard method.remembersReply, let key = header.idempotencyKey, let user = context.user else { return await run(context) }
            return await idempotency.perform(
                user: user, key: key, method: method.name, body: body, keyCheck: method.keyCheck, reply: Response.self
            ) { scope in
                await run(context.keyed(by: scope))
            }
        }
        let registration = Registration(
            handler: raw, isWrite: method.isWrite, access: method.access, lane: method.lane, describe: { try method.describe(into: &$0) }
        )
        handlers.withLock { $0[method.name] = registration }
    }

    /// ``register(_:use:)`` for a method that acts for a signed-in user (``Access/user``,
    /// ``Access/operator``): the handler is handed the verified user, whom the gate has already
    /// required.
    public func register<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        use handler: @escaping @Sendable (Request, _ user: String, RequestContext) async throws -> Response
    ) {
        register(method) { request, context in try await handler(request, try context.requireUser(), context) }
    }

    /// Sets where the friends of ``Access/friend`` methods' callers are found.
    public func useFriends(_ directory: any FriendDirectory) {
        friends.directory = directory
    }

    /// Sets where the households of ``Access/household`` methods' callers are found.
    public func useHouseholds(_ directory: any HouseholdDirectory) {
        households.directory = directory
    }

    public var registeredMethods: [String] { handlers.withLock { $0.keys.sorted() } }

    /// The registered methods that change nothing.
    public var registeredReads: [String] { handlers.withLock { $0.filter { !$0.value.isWrite }.keys.sorted() } }

    /// Every registered method and who may call it.
    public var registeredAccess: [String: Access] { handlers.withLock { $0.mapValues(\.access) } }

    func registration(of method: String) -> Registration? { handlers.withLock { $0[method] } }

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
            guard let pull = state.pull else { return nil }
            defer {
                state.pull = nil
                state.monitor = nil
            }
            return (pull, state.monitor)
        }
        guard let (pull, monitor) = sockets else { preconditionFailure("RPCServer.run() called twice") }
        // The lanes' threads exist while the server runs.
        var executors: [MethodLane: ThreadPoolExecutor] = [:]
        for lane in MethodLane.allCases {
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
        // Stopping a lane broadcasts on its condition variable, which glibc may hold until the
        // threads it woke have run: not on one of Swift's cooperative threads (a stall of every
        // service in the process was seen with one of the two waiting there).
        let lanes = Array(executors.values)
        startThread(named: "sous-\(name)-stop") { for executor in lanes { executor.shutdown() } }
        logger.info("stopped", metadata: ["service": "\(name)"])
    }

    /// Runs a job on its lane: admits the caller, runs the handler, and sends the reply.
    func handle(_ job: Job) async {
        let header = job.header
        let result: Result<[UInt8], ServiceError>
        do {
            let caller = try gate.admit(header, from: job.principal, access: job.registration.access)
            let context = RequestContext(
                requestID: header.id, method: header.method, caller: caller, principal: job.principal.serving(header.forwardedFor),
                deadline: header.deadline,
                idempotencyKey: job.registration.isWrite ? header.idempotencyKey : nil, logger: logger, revocations: gate.revocations
            )
            result = await job.registration.handler(header, job.body, context)
        } catch {
            result = .failure(error)
        }
        reply(replyFrames(for: result, routing: job.routing, header: header), to: job)
    }

    /// Sends a lane's reply and wakes the I/O thread when it must look: requests are waiting
    /// that this send may have hidden from its poll (the socket's descriptor is edge-triggered),
    /// or the server is draining and may be done.
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

    /// The frames of a reply to `header`: the body, or the error (logged when it is internal).
    func replyFrames(for result: Result<[UInt8], ServiceError>, routing: [Envelope.Frame], header: RequestHeader) -> [Envelope.Frame] {
        switch result {
        case .success(let body):
            return (try? Envelope.replyFrames(routing: routing, header: ReplyHeader(id: header.id, status: .ok), body: body))
                ?? Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: .internal("reply could not be encoded"))
        case .failure(let error):
            if error.code == .internal {
                logger.error("request failed", metadata: ["request": "\(header.id)", "method": "\(header.method)", "error": "\(error.message)"])
            }
            return Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error)
        }
    }

    /// Makes the I/O thread's poll return: an empty message in the mailbox.
    func wakeIOThread() {
        mailbox.withLock { socket in
            guard let socket else { return }
            do {
                _ = try socket.send([UInt8](), dontWait: true)
            } catch {
                logger.error("the I/O thread could not be woken", metadata: ["error": "\(error)"])
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
