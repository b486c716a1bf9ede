public import Foundation
public import SousWire
import Synchronization

/// Who is at the other end of a connection, as its CURVE handshake established it (the `User-Id`
/// the ZAP handler gave it; see ``ServiceHost``).
public enum ConnectionPrincipal: Sendable, Equatable {
    /// A Sous service: its long-term key is on the allow-list.
    case service(SousService)
    /// Anyone else who completed the handshake, from this IP address.
    case client(address: String)
    /// The web app (its key is the published `web.pub`), from this IP address: a client that
    /// serves many people, and may name the one it serves (`header.forwardedFor`) so that limits
    /// kept per address count that person, not everyone who uses the web app.
    case edge(address: String)
    /// A caller inside this very process, over `inproc` (no handshake exists there): code that
    /// already holds the service's keys and database, trusted as the service itself.
    case inProcess

    /// Parses the `User-Id` property; nil (no handshake) means in-process.
    init(userID: String?) {
        guard let userID else {
            self = .inProcess
            return
        }
        if userID.hasPrefix("service:"), let service = SousService(rawValue: String(userID.dropFirst("service:".count))) {
            self = .service(service)
        } else if userID.hasPrefix("edge:") {
            self = .edge(address: String(userID.dropFirst("edge:".count)))
        } else {
            self = .client(address: userID.hasPrefix("client:") ? String(userID.dropFirst("client:".count)) : userID)
        }
    }

    /// The `User-Id` the ZAP handler answers for this principal.
    var userID: String {
        switch self {
        case .service(let service): "service:\(service.rawValue)"
        case .client(let address): "client:\(address)"
        case .edge(let address): "edge:\(address)"
        case .inProcess: ""
        }
    }

    var isService: Bool {
        switch self {
        case .service, .inProcess: true
        case .client, .edge: false
        }
    }

    /// Whether `header.forwardedFor` is honoured from this connection: the web app's, or a web
    /// app in this process.
    var mayForward: Bool {
        switch self {
        case .edge, .inProcess: true
        case .client, .service: false
        }
    }

    /// Who a request over this connection comes from: for the web app, the person it names, as
    /// any other client at that address; otherwise the connection itself, whatever it names (a
    /// proxy's X-Forwarded-For from a client is ignored alike).
    func serving(_ forwardedFor: String?) -> ConnectionPrincipal {
        switch (self, forwardedFor) {
        case (.edge(let address), nil): .client(address: address)
        case (_, let person?) where mayForward: .client(address: person)
        default: self
        }
    }
}

/// Who made a request, once the server has checked it.
public enum Caller: Sendable, Equatable {
    /// No session and not a service: only public methods.
    case anonymous
    /// A user with a valid session token.
    case user(SessionClaims)
    /// A Sous service (or in-process code), acting for `user` when it named one.
    case service(actingFor: String?)

    /// An operator or a Sous service: someone who may see how a service is deployed.
    public var operatesServices: Bool {
        switch self {
        case .anonymous: false
        case .user(let claims): claims.role == .operator
        case .service: true
        }
    }

    /// The user whose data the request may touch.
    public var user: String? {
        switch self {
        case .anonymous: nil
        case .user(let claims): claims.user
        case .service(let user): user
        }
    }
}

/// Checks every request before its handler runs: who is calling (from the connection's verified
/// key and the signed session token, never from a field the client writes unchecked) and
/// whether that caller may call the method (its ``Access``). The one place these rules live.
///
/// Checking a token costs no round trip: the signature is checked with the planner's public
/// key once per token and remembered; each request then costs a dictionary lookup and a look at
/// the revocation list, which ``RevocationSync`` keeps current.
public final class Gate: Sendable {
    public let revocations: RevocationList
    private let sessionKey: @Sendable () -> [UInt8]?
    private let verified = Mutex<[String: SessionClaims]>([:])
    /// Verified tokens remembered; past this, the memory starts over.
    static let rememberedTokens = 50_000

    public init(revocations: RevocationList = RevocationList(), sessionKey: @escaping @Sendable () -> [UInt8]?) {
        self.revocations = revocations
        self.sessionKey = sessionKey
    }

    /// The caller of a request for a method with `access`, or the error to answer instead.
    public func admit(_ header: RequestHeader, from principal: ConnectionPrincipal, access: Access, now: Date = Date()) throws(ServiceError) -> Caller
    {
        let caller = try identify(header, from: principal, now: now)
        switch access {
        case .public:
            break
        case .user, .household, .friend:
            guard caller.user != nil else {
                throw ServiceError(
                    .unauthorized, "\(header.method) is for signed-in users: sign in (account.login) and send the session token",
                    field: "header.session")
            }
        case .operator:
            guard case .user(let claims) = caller else {
                throw ServiceError(.unauthorized, "\(header.method) is for operators: sign in with an operator's account", field: "header.session")
            }
            guard claims.role == .operator else {
                throw ServiceError(.forbidden, "\(header.method) changes what every user shares: only an operator may call it")
            }
        case .service:
            guard case .service = caller else {
                throw ServiceError(.forbidden, "\(header.method) is only for Sous services")
            }
        }
        return caller
    }

    private func identify(_ header: RequestHeader, from principal: ConnectionPrincipal, now: Date) throws(ServiceError) -> Caller {
        if let user = header.onBehalfOf {
            guard principal.isService else {
                throw ServiceError(
                    .unauthorized, "only Sous services may act for a user; clients send their session token", field: "header.onBehalfOf")
            }
            guard header.session == nil else {
                throw ServiceError.badRequest("a request names a session or a user to act for, not both", field: "header.onBehalfOf")
            }
            return .service(actingFor: user)
        }
        if let token = header.session {
            let claims = try verify(token, now: now)
            guard !revocations.isRevoked(claims.session) else {
                throw ServiceError(
                    .unauthorized, "this session was ended (signed out, password changed or account deleted); sign in again", field: "header.session")
            }
            return .user(claims)
        }
        return principal.isService ? .service(actingFor: nil) : .anonymous
    }

    private func verify(_ token: String, now: Date) throws(ServiceError) -> SessionClaims {
        if let claims = verified.withLock({ $0[token] }) {
            guard claims.expires > Int64(now.timeIntervalSince1970) else {
                throw ServiceError(.unauthorized, "the session expired; sign in again", field: "header.session")
            }
            return claims
        }
        guard let key = sessionKey() else {
            throw ServiceError.unavailable("sessions cannot be checked yet: the planner has not published its session key")
        }
        let claims = try SessionVerifier(publicKey: key).verify(token, now: now)
        verified.withLock { verified in
            if verified.count >= Self.rememberedTokens { verified.removeAll(keepingCapacity: true) }
            verified[token] = claims
        }
        return claims
    }
}
