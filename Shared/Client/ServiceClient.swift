import Dispatch
import Foundation
import MessagePack
public import SousWire
import Synchronization
public import ZeroMQ

/// How long a client waits per attempt and how often it tries again.
public struct ClientOptions: Sendable {
    /// How long one attempt waits for its reply.
    public var timeout: Duration = .seconds(3)
    /// Attempts after the first one.
    public var retries = 2
    /// How long a call may take with all its attempts (a person at a command line waits this
    /// long, not attempts × timeout); nil for no limit but the attempts'.
    public var callLimit: Duration?

    public init(timeout: Duration = .seconds(3), retries: Int = 2) {
        self.timeout = timeout
        self.retries = retries
    }

    public init(timeout: Duration, retries: Int, callLimit: Duration) {
        self.init(timeout: timeout, retries: retries)
        self.callLimit = callLimit
    }
}

/// A typed client of one Sous service, safe to share between tasks. `Scope` is the service
/// (``Catalog``, ``Planner``, …): the client sends that service's methods and the ones every
/// service answers, and nothing else compiles.
///
/// A call sends the request and waits for the reply with a per-attempt timeout, retrying a
/// bounded number of times within the call's deadline (Lazy Pirate). Reads are retried as they
/// are; writes carry an idempotency key that stays the same across attempts, so the server
/// applies a retried write once.
///
/// Async calls all wait on one thread and one DEALER socket of the client's own
/// (``ClientLoop``), never on Swift's cooperative pool, and never a thread per waiting call;
/// a call from a thread that may block a moment (a service's lane) waits for a quick reply
/// there, on a pooled socket, before the loop takes it over (``send(_:waitingHereFor:)``).
/// ``callBlocking(_:_:session:timeout:)`` waits on the caller's own thread, on a pooled socket that
/// is thrown away after a timeout (a late reply would otherwise arrive on it).
public final class ServiceClient<Scope: MethodScope>: Sendable {
    public typealias Options = ClientOptions

    /// The service's name, used in error messages ("catalog did not answer …").
    public let service: String
    public let endpoint: String
    public let options: Options
    /// The session token calls carry unless they name another.
    public let session: String?
    private let curve: CurveSetupProvider?
    private let context: ZMQContext
    private let pool = SocketPool()
    private let loop = Mutex<ClientLoop?>(nil)
    private let requestIDs = RequestIDs()

    /// - Parameters:
    ///   - curve: the server's public key and the client's key pair, for any endpoint but
    ///     `inproc`; asked for when the client first connects (and again after a failure).
    ///   - session: the token every call carries unless it names another (a signed-in client).
    ///   - name: the service's name in errors, when the scope does not say it (``AnyService``).
    public init(
        endpoint: String, options: Options = Options(), session: String? = nil, curve: CurveSetupProvider? = nil,
        context: ZMQContext = .shared, name: String = Scope.name
    ) {
        self.service = name
        self.session = session
        self.curve = curve
        self.endpoint = endpoint
        var options = options
        options.timeout = min(max(options.timeout, .milliseconds(1)), ClientAttempt.longestAttempt)
        self.options = options
        self.context = context
    }

    deinit {
        pool.close()
        loop.withLock { $0?.stop() }
    }

    /// Calls `method` and returns its decoded reply, or throws the service's error, or
    /// `unavailable` naming the service, method and endpoint when no attempt was answered.
    ///
    /// - Parameters:
    ///   - timeout: this call's per-attempt timeout instead of the client's.
    ///   - idempotencyKey: the key a write carries on every attempt (default: a new one per call).
    ///   - deadline: when to stop trying altogether; attempts are shortened to fit before it.
    ///   - forwardedFor: the address of the person the web app serves (the web app's key only).
    @discardableResult
    public func call<Request, Response>(
        _ method: Method<Scope, Request, Response>,
        _ request: Request,
        session: String? = nil,
        timeout: Duration? = nil,
        idempotencyKey: String? = nil,
        deadline: ContinuousClock.Instant? = nil,
        forwardedFor: String? = nil
    ) async throws(ServiceError) -> Response {
        try await perform(
            method, request, session: session, timeout: timeout, idempotencyKey: idempotencyKey, deadline: deadline, forwardedFor: forwardedFor)
    }

    /// The same call for threads that may block (command-line tools, benchmarks).
    @discardableResult
    public func callBlocking<Request, Response>(
        _ method: Method<Scope, Request, Response>,
        _ request: Request,
        session: String? = nil,
        timeout: Duration? = nil
    ) throws(ServiceError) -> Response {
        try performBlocking(method, request, session: session, timeout: timeout)
    }

    func perform<Target, Request, Response>(
        _ method: Method<Target, Request, Response>, _ request: Request, session: String?, timeout: Duration?, idempotencyKey: String?,
        deadline: ContinuousClock.Instant?, forwardedFor: String? = nil
    ) async throws(ServiceError) -> Response {
        let body = try encode(request, method: method)
        let attempt = ClientAttempt(
            method: method.name, isWrite: method.isWrite, body: body, session: session ?? self.session, onBehalfOf: nil, timeout: timeout,
            idempotencyKey: idempotencyKey, deadline: deadline, forwardedFor: forwardedFor
        )
        return try await send(attempt).get().decode(Response.self)
    }

    func performBlocking<Target, Request, Response>(
        _ method: Method<Target, Request, Response>, _ request: Request, session: String?, timeout: Duration?
    ) throws(ServiceError) -> Response {
        let body = try encode(request, method: method)
        let attempt = ClientAttempt(
            method: method.name, isWrite: method.isWrite, body: body, session: session ?? self.session, onBehalfOf: nil, timeout: timeout,
            idempotencyKey: nil,
            deadline: nil
        )
        return try exchange(attempt).decode(Response.self)
    }

    /// The reply the service sent (which may be an error reply), or `unavailable` when no
    /// attempt was answered: the distinction a peer-call layer maps errors by.
    public func send(_ attempt: ClientAttempt) async -> Result<Envelope.Reply, ServiceError> {
        let loop: ClientLoop
        switch runningLoop() {
        case .success(let running): loop = running
        case .failure(let error): return .failure(error)
        }
        // A cancelled caller stops waiting at once: its call fails and a late reply is dropped.
        let token = UUID.random()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in loop.submit(attempt, token: token, continuation) }
        } onCancel: {
            loop.cancel(token)
        }
    }

    /// The same call, sent from the calling thread on a socket of the client's pool and waited
    /// for there up to `patience`: no hand-over to the loop's thread and back, which is most
    /// of a quick call's cost. A reply that takes longer is waited for by the loop's thread
    /// while the caller's thread is free again; further attempts are the loop's, as for
    /// ``send(_:)``. For threads that may block that long (a service's lanes, see `Peer`).
    package func send(_ attempt: ClientAttempt, waitingHereFor patience: Duration) async -> Result<Envelope.Reply, ServiceError> {
        guard patience > .zero, case .success(let loop) = runningLoop(),
            // Past the pool's capacity of lent sockets, calls wait through the loop's one.
            let borrowed = try? pool.borrowIfAvailable(make: makeSocket)
        else { return await send(attempt) }
        var attempts = CallAttempts(attempt, options: options)
        do {
            guard try attempts.next(id: requestIDs.next()) else {
                pool.giveBack(borrowed)
                return .failure(attempts.failure(service: service, endpoint: endpoint, options: options))
            }
        } catch {
            pool.giveBack(borrowed)
            return .failure(error)
        }
        // A socket that cannot take the request now (no connection up yet): the loop holds it
        // until one is. One that failed is not lent again.
        do {
            guard try borrowed.send(multipart: attempts.frames, dontWait: true) else {
                pool.giveBack(borrowed)
                return await send(attempt)
            }
        } catch {
            pool.discard(borrowed)
            return await send(attempt)
        }
        if let reply = try? borrowed.reply(to: attempts.id, by: min(ContinuousClock.now + patience, attempts.attemptDeadline)) {
            pool.giveBack(borrowed)
            return .success(reply)
        }
        let token = UUID.random()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let call = ClientLoop.Call(attempt: attempt, token: token, completion: continuation)
                loop.adopt(ClientLoop.Pending(call: call, attempts: attempts, socket: borrowed))
            }
        } onCancel: {
            loop.cancel(token)
        }
    }

    /// The loop async calls wait on, started by the first.
    private func runningLoop() -> Result<ClientLoop, ServiceError> {
        let curveSetup: CurveClientSetup?
        do {
            curveSetup = try curve?()
        } catch {
            return .failure(error)
        }
        do {
            return .success(
                try loop.withLock { existing throws(ZMQError) -> ClientLoop in
                    if let existing { return existing }
                    let made = try ClientLoop(
                        service: service, endpoint: endpoint, options: options, curve: curveSetup, context: context, pool: pool
                    ) { [requestIDs] in
                        requestIDs.next()
                    }
                    existing = made
                    return made
                })
        } catch {
            return .failure(.unavailable("\(service) at \(endpoint) cannot be reached: \(error)"))
        }
    }

    private func encode<Target, Request, Response>(_ request: Request, method: Method<Target, Request, Response>) throws(ServiceError) -> [UInt8] {
        do {
            return try MessagePackEncoder().encode(request)
        } catch {
            throw .badRequest("\(method.name) request could not be encoded: \(error)", field: "body")
        }
    }

    /// Sends one request with Lazy Pirate retries and returns the raw reply. Every attempt ends
    /// by the call's deadline, and no attempt starts after it.
    func exchange(_ call: ClientAttempt) throws(ServiceError) -> Envelope.Reply {
        var attempts = CallAttempts(call, options: options)
        while try attempts.next(id: requestIDs.next()) {
            let attemptTimeout = attempts.attemptDeadline - attempts.sentAt
            let socket: ZMQSocket
            do {
                // Without a limit: a blocking caller has no loop to fall back on.
                socket = try pool.borrow(make: makeSocket)
            } catch let error as ServiceError {
                throw error
            } catch {
                throw .unavailable("\(service) at \(endpoint) cannot be reached: \(error)")
            }
            do throws(ZMQError) {
                if attemptTimeout != options.timeout { try socket.setSendTimeout(milliseconds: ClientAttempt.milliseconds(attemptTimeout)) }
                try socket.send(multipart: attempts.frames)
                guard let reply = try socket.reply(to: attempts.id, by: attempts.attemptDeadline) else {
                    attempts.lastProblem = "no reply within \(ClientAttempt.secondsText(attemptTimeout)) s"
                    pool.discard(socket)
                    continue
                }
                // Pooled sockets keep the client's own send timeout.
                if attemptTimeout != options.timeout { try socket.setSendTimeout(milliseconds: ClientAttempt.milliseconds(options.timeout)) }
                pool.giveBack(socket)
                return reply
            } catch {
                pool.discard(socket)
                attempts.lastProblem =
                    error.isWouldBlock ? "the request could not be sent within \(ClientAttempt.seconds(attemptTimeout)) s" : "\(error)"
            }
        }
        throw attempts.failure(service: service, endpoint: endpoint, options: options)
    }

    /// A new socket for the pool, connected to the service.
    private func makeSocket() throws -> ZMQSocket {
        let socket = try context.socket(.dealer)
        if let setup = try curve?() { try socket.setCurveClient(serverKey: setup.serverKey, keyPair: setup.keyPair) }
        // Unsent requests are worthless once the caller gave up: never linger on close.
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(Int64(SousProtocol.maxMessageBytes))
        try socket.setReconnectInterval(milliseconds: 100, max: 2_000)
        // A DEALER with no live peer (an inproc service that went away) blocks in send: bound the
        // send like the receive. A call with its own timeout sets it again on the borrowed socket.
        try socket.setSendTimeout(milliseconds: ClientAttempt.milliseconds(options.timeout))
        try Replicas.connect(socket, to: endpoint)
        return socket
    }

}

extension ServiceClient where Scope: ServiceKind {
    /// Calls one of the methods every service answers (``AnyService``: `health`, `describe`, …).
    @discardableResult
    public func call<Request, Response>(
        _ method: Method<AnyService, Request, Response>,
        _ request: Request,
        session: String? = nil,
        timeout: Duration? = nil,
        idempotencyKey: String? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(ServiceError) -> Response {
        try await perform(method, request, session: session, timeout: timeout, idempotencyKey: idempotencyKey, deadline: deadline)
    }

    /// The same call for threads that may block.
    @discardableResult
    public func callBlocking<Request, Response>(
        _ method: Method<AnyService, Request, Response>,
        _ request: Request,
        session: String? = nil,
        timeout: Duration? = nil
    ) throws(ServiceError) -> Response {
        try performBlocking(method, request, session: session, timeout: timeout)
    }
}

/// One call's parameters, as the retry loop needs them (built by the typed calls, and by the
/// runtime's peer calls, which encode their own bodies).
public struct ClientAttempt: Sendable {
    let method: String
    let isWrite: Bool
    let body: [UInt8]
    /// The caller's session token.
    let session: String?
    /// The user a service acts for (honoured only from a service's key; see the runtime's `Peer`).
    let onBehalfOf: String?
    let timeout: Duration?
    let idempotencyKey: String?
    let deadline: ContinuousClock.Instant?
    /// The address of the person the web app serves (honoured only from the web app's key).
    let forwardedFor: String?

    public init(
        method: String, isWrite: Bool, body: [UInt8], session: String?, onBehalfOf: String?, timeout: Duration?, idempotencyKey: String?,
        deadline: ContinuousClock.Instant?, forwardedFor: String? = nil
    ) {
        self.method = method
        self.isWrite = isWrite
        self.body = body
        self.session = session
        self.onBehalfOf = onBehalfOf
        self.timeout = timeout
        self.idempotencyKey = idempotencyKey
        self.deadline = deadline
        self.forwardedFor = forwardedFor
    }

    /// The longest attempt a client waits, whatever it is asked: keeps deadlines far from overflow.
    static let longestAttempt = Duration.seconds(3600)

    static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(min(max(seconds(duration) * 1000, 0), Double(Int32.max)))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A duration as people read it in a message: "2.4", "30" (tenths of a second at most).
    static func secondsText(_ duration: Duration) -> String {
        let tenths = (seconds(duration) * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(format: "%.0f", tenths / 10) : String(format: "%.1f", tenths / 10)
    }
}

/// What a client needs to connect to a CURVE server.
public struct CurveClientSetup: Sendable {
    /// The server's long-term public key (Z85).
    public var serverKey: String
    /// The client's own key pair: a service's long-term one, or a fresh one for a user's client.
    public var keyPair: CurveKeyPair

    public init(serverKey: String, keyPair: CurveKeyPair) {
        self.serverKey = serverKey
        self.keyPair = keyPair
    }
}

/// Gives a client its CURVE setup when it connects: nil for `inproc`, or `unavailable` when the
/// server's key is not known yet.
public typealias CurveSetupProvider = @Sendable () throws(ServiceError) -> CurveClientSetup?

/// Request ids unique to one client: a random prefix and a counter.
final class RequestIDs: Sendable {
    private let prefix = UUID().uuidString.prefix(8)
    private let counter = Atomic<UInt64>(0)

    func next() -> String { "\(prefix)-\(counter.add(1, ordering: .relaxed).newValue)" }
}

extension ZMQSocket {
    /// The reply to request `id`, waited for on this thread until `deadline`; nil if it has not
    /// come by then. Past the deadline (`.now` for a caller that must not block) what is already
    /// waiting is still read, without blocking. Replies to earlier requests on the socket
    /// (callers that gave up on them) and messages that are not replies are skipped.
    func reply(to id: String, by deadline: ContinuousClock.Instant) throws(ZMQError) -> Envelope.Reply? {
        while let frames = try receive(timeout: max(deadline - ContinuousClock.now, .zero)) {
            if let reply = try? Envelope.parseReply(frames), reply.header.id == id { return reply }
        }
        return nil
    }
}
