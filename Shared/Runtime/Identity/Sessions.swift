public import Foundation
import MessagePack
public import SousCrypto
public import SousWire
import Synchronization

/// What a session token says, signed by the planner (docs/PROTOCOL.md, "Sessions").
public struct SessionClaims: Codable, Sendable, Equatable {
    /// The session's id: one per signed-in device; what a revocation names.
    public var session: String
    /// The account's user id.
    public var user: String
    public var role: AccountRole
    /// Unix seconds after which the token is refused.
    public var expires: Int64

    public init(session: String, user: String, role: AccountRole, expires: Int64) {
        self.session = session
        self.user = user
        self.role = role
        self.expires = expires
    }
}

/// Signs session tokens. Only the planner, where accounts live, holds the secret key; every
/// service checks tokens with the public key alone, without asking anyone.
///
/// A token is `base64url(MessagePack claims) "." base64url(Ed25519 signature of those bytes)`.
/// Clients treat it as an opaque string.
public struct SessionSigner: Sendable {
    public let keyPair: Sodium.SigningKeyPair

    public init(keyPair: Sodium.SigningKeyPair) {
        self.keyPair = keyPair
    }

    public func token(for claims: SessionClaims) -> String {
        let payload = (try? MessagePackEncoder().encode(claims)) ?? []
        return Base64URL.encode(payload) + "." + Base64URL.encode(keyPair.sign(payload))
    }

    public var verifier: SessionVerifier { SessionVerifier(publicKey: keyPair.publicKey) }

    /// The signing key every service configured with ``ServiceConfiguration/inProcess(_:dataDirectory:peers:clock:)``
    /// in this process shares: random per process, so in-process tests sign real tokens.
    public static let inProcess = SessionSigner(keyPair: .generate())
}

/// Checks session tokens against the planner's public key.
public struct SessionVerifier: Sendable {
    public let publicKey: [UInt8]

    public init(publicKey: [UInt8]) {
        self.publicKey = publicKey
    }

    /// The claims of a well-signed, unexpired token; `unauthorized` naming `header.session`
    /// otherwise.
    public func verify(_ token: String, now: Date = Date()) throws(ServiceError) -> SessionClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(parts[0]), let signature = Base64URL.decode(parts[1]),
            Sodium.verifySignature(signature, of: payload, publicKey: publicKey),
            let claims = try? MessagePackDecoder().decode(SessionClaims.self, from: payload)
        else {
            throw ServiceError(.unauthorized, "the session token is not one the planner signed; sign in again", field: "header.session")
        }
        guard claims.expires > Int64(now.timeIntervalSince1970) else {
            throw ServiceError(.unauthorized, "the session expired; sign in again", field: "header.session")
        }
        return claims
    }
}

/// Sessions that ended before their tokens expire, as one service knows them. The planner
/// publishes each revocation on its event bus and answers `account.revocations`; every other
/// service keeps this list current from both (``RevocationSync``).
public final class RevocationList: Sendable {
    private struct State {
        /// Session id → when its token would have expired (after that the entry is useless).
        var revoked: [String: Int64] = [:]
        /// The planner's sequence number of the newest revocation applied.
        var sequence: Int64 = 0
        /// Callers of ``applied(through:)`` still waiting, by the sequence they wait for.
        var waiters: [UUID: (sequence: Int64, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// Callers of ``ended(_:)`` still waiting, by session.
        var endWaiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func isRevoked(_ session: String) -> Bool {
        state.withLock { $0.revoked[session] != nil }
    }

    public var sequence: Int64 { state.withLock { $0.sequence } }

    /// Applies revocations up to `sequence`, forgetting those whose tokens have expired anyway.
    public func apply(_ sessions: [RevokedSession], upTo sequence: Int64, now: Date = Date()) {
        let cutoff = Int64(now.timeIntervalSince1970)
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            for session in sessions where session.expires > cutoff { state.revoked[session.session] = session.expires }
            state.sequence = max(state.sequence, sequence)
            if state.revoked.count > 1024 { state.revoked = state.revoked.filter { $0.value > cutoff } }
            let done = state.waiters.filter { $0.value.sequence <= state.sequence }
            for id in done.keys { state.waiters[id] = nil }
            let ended = sessions.flatMap { state.endWaiters.removeValue(forKey: $0.session)?.values.map { $0 } ?? [] }
            return done.values.map(\.continuation) + ended
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once `session` is revoked here (at once if it is), or when the task is
    /// cancelled: a long poll ends with its session instead of at its timeout.
    public func ended(_ session: String) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.revoked[session] != nil || Task.isCancelled { return true }
                    state.endWaiters[session, default: [:]][id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                let waiter = state.endWaiters[session]?.removeValue(forKey: id)
                if state.endWaiters[session]?.isEmpty == true { state.endWaiters[session] = nil }
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Returns once every revocation up to `sequence` is applied here (or the task is
    /// cancelled): how a test knows a service has learnt of an ended session.
    public func applied(through sequence: Int64) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.sequence >= sequence || Task.isCancelled { return true }
                    state.waiters[id] = (sequence, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
