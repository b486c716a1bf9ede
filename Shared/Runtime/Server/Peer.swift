import Foundation
import MessagePack
public import SousWire
import Synchronization

/// Another Sous service that this one calls while answering a request: one client, one rule for
/// how long to wait, and one way to report its failures.
///
/// - A call never outlives the request it serves: it gets the caller's remaining time minus a
///   margin to answer in, and retries only inside it (see docs/PROTOCOL.md, "Deadlines").
/// - A peer that does not answer becomes `unavailable` naming that peer; a peer that answered
///   `unavailable` itself is passed on as it is, so the message names the dependency that
///   actually failed. An unknown id becomes `notFound` naming the caller's own field.
/// - A write made for a write carries a key derived from the caller's idempotency key, so a
///   retried request repeats its peer writes once too.
public struct Peer<Target: MethodScope>: Sendable {
    /// Whether the caller can answer without this peer.
    public enum Need: Sendable {
        /// The request fails without the peer's answer.
        case required
        /// The caller has a fallback: the call gets a third of the time left, one attempt.
        case optional
    }

    public let service: SousService
    /// The calling service, named in errors ("the planner needs the tracker, …").
    public let caller: SousService
    let client: ServiceClient<Target>
    let waiting = WaitingCalls()

    /// Calls that may wait on one peer at once. A request waiting on a peer holds its place in
    /// its lane; past this many, a call fails at once, so a peer that stops answering holds at
    /// most a quarter of the standard lane (256 in flight) and the requests that do not need it
    /// are still served.
    public static var maxWaiting: Int { 64 }

    /// The peer at its configured endpoint, with the configured per-attempt timeout (or the
    /// per-peer one in ``ServiceConfiguration/peerTimeouts``) and one retry.
    public init(_ target: Target.Type, of configuration: ServiceConfiguration) where Target: PeerService {
        self.init(service: Target.service, configuration: configuration)
    }

    /// Any of the five services, for the methods every service answers (``AnyService``).
    public init(_ service: SousService, of configuration: ServiceConfiguration) where Target == AnyService {
        self.init(service: service, configuration: configuration)
    }

    private init(service: SousService, configuration: ServiceConfiguration) {
        self.service = service
        caller = configuration.service
        let timeout = configuration.peerTimeouts[service] ?? configuration.callTimeout
        client = ServiceClient<Target>(
            endpoint: configuration.endpoints(of: service).requests, options: .init(timeout: timeout, retries: 1),
            curve: configuration.curveSetup(for: service), name: service.rawValue
        )
    }

    /// How long a lane's thread waits for a peer's reply itself before the client's thread
    /// takes the wait over: long enough for a peer on the same host to answer an ordinary call
    /// (the hand-off and the task's resumption on the lane cost two thread switches), short
    /// enough that a peer which is slow or down holds a lane's thread for no longer than this
    /// per call. At 1 ms the households benchmark served half as many (docs/BENCHMARKS.md).
    package static var waitOnLane: Duration { .milliseconds(20) }

    /// What is kept back from the caller's remaining time for answering after the peer: a
    /// fifth of it, at most this much.
    /// Two seconds: on a busy two-core machine answering after a peer ran out took over one.
    static var largestMargin: Duration { .seconds(2) }

    /// Calls `method` on the peer for `context`'s request (or, with no context, for background
    /// work), acting for `user`: the peer trusts that only because this service's key is on its
    /// allow-list.
    public func call<Request, Response>(
        _ method: Method<Target, Request, Response>,
        _ request: Request,
        user: String?,
        for context: RequestContext?,
        notFoundField: String? = nil,
        need: Need = .required
    ) async throws(ServiceError) -> Response {
        try await perform(method, request, user: user, for: context, notFoundField: notFoundField, need: need)
    }

    func perform<Scope, Request, Response>(
        _ method: Method<Scope, Request, Response>,
        _ request: Request,
        user: String?,
        for context: RequestContext?,
        notFoundField: String?,
        need: Need
    ) async throws(ServiceError) -> Response {
        guard waiting.enter(limit: Self.maxWaiting) else {
            throw .unavailable(
                "the \(caller.rawValue) needs the \(service.rawValue), which is not keeping up: \(Self.maxWaiting) calls are waiting on it already")
        }
        defer { waiting.leave() }
        let body: [UInt8]
        do {
            body = try MessagePackEncoder().encode(request)
        } catch {
            throw .internal("\(method.name) request to the \(service.rawValue) could not be encoded: \(error)")
        }
        let deadline = Self.deadline(for: context, need: need, attempt: client.options.timeout)
        let key = method.isWrite ? context?.idempotencyKey.map { Self.derivedKey($0, method: method.name) } : nil
        let attempt = ClientAttempt(
            method: method.name, isWrite: method.isWrite, body: body, session: nil, onBehalfOf: user, timeout: nil, idempotencyKey: key,
            deadline: deadline
        )
        let reply: Envelope.Reply
        let result =
            if ThreadPoolExecutor.isCurrentThreadPooled {
                await client.send(attempt, waitingHereFor: Self.waitOnLane)
            } else {
                await client.send(attempt)
            }
        switch result {
        case .success(let answered):
            reply = answered
        case .failure(let unanswered):
            throw .unavailable("the \(caller.rawValue) needs the \(service.rawValue), which did not answer: \(unanswered.message)")
        }
        do {
            return try reply.decode(Response.self)
        } catch {
            switch error.code {
            case .notFound where notFoundField != nil:
                throw .notFound(error.message, field: notFoundField)
            case .timeout:
                throw .unavailable("the \(service.rawValue) ran out of time for the \(caller.rawValue): \(error.message)")
            default:
                // Including `unavailable`: the peer's message names what it could not reach.
                throw error
            }
        }
    }

    /// When a peer call must be over: the caller's deadline less a margin (or, without one, the
    /// attempts the client would make anyway); a third of what is left for an optional call.
    static func deadline(for context: RequestContext?, need: Need, attempt: Duration, now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant
    {
        var budget = attempt * 2
        if let remaining = context?.remainingTime {
            budget = remaining - min(remaining / 5, largestMargin)
        }
        if need == .optional { budget = min(budget / 3, attempt) }
        return now + max(budget, .zero)
    }

    /// The key a peer write gets for the caller's key: stable for the same caller key and
    /// method, within the protocol's 128 bytes.
    static func derivedKey(_ key: String, method: String) -> String {
        let plain = "\(key)>\(method)"
        if plain.utf8.count <= SousProtocol.maxTokenBytes { return plain }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in plain.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return "\(String(key.prefix(40)))#\(String(hash, radix: 16))>\(String(method.prefix(60)))"
    }
}

extension Peer where Target: ServiceKind {
    /// Calls one of the methods every service answers (``AnyService``) on this peer.
    public func call<Request, Response>(
        _ method: Method<AnyService, Request, Response>,
        _ request: Request,
        user: String?,
        for context: RequestContext?,
        need: Need = .required
    ) async throws(ServiceError) -> Response {
        try await perform(method, request, user: user, for: context, notFoundField: nil, need: need)
    }
}

/// How many calls wait on one peer now (shared by every copy of its ``Peer``).
final class WaitingCalls: Sendable {
    private let count = Mutex(0)

    /// Counts one more call, unless `limit` are waiting already.
    func enter(limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() { count.withLock { $0 -= 1 } }
}
