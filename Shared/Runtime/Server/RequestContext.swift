import Foundation
public import Logging
public import SousWire

/// What a handler knows about the call it is answering.
public struct RequestContext: Sendable {
    public let requestID: String
    public let method: String
    /// Who made the request, as the server checked it (``Gate``).
    public let caller: Caller
    /// The user whose data the request may touch: from the verified session token, or the user
    /// a Sous service acts for. Never a field the client wrote unchecked.
    public var user: String? { caller.user }
    /// Who is at the other end of the connection (a client's IP address, a service).
    public let principal: ConnectionPrincipal
    /// Absolute deadline in Unix milliseconds, if the client set one.
    public let deadline: Int64?
    /// The key the client sent with a write; peer calls made for it carry keys derived from it.
    public let idempotencyKey: String?
    /// The keyed write this request is, when it carries an idempotency key and the method
    /// remembers its reply: handed to ``SousDatabase/write(idempotent:_:)`` by the write whose
    /// value is the reply, which then commits with the reply a retry is answered.
    public private(set) var idempotency: IdempotencyScope?
    /// The household the user belongs to, for a method whose data the household shares
    /// (``Access/household``): found by the server before the handler runs, never sent by the
    /// client. Nil for every other method.
    public private(set) var household: String?
    /// For a method that reads what friends share (``Access/friend``): the caller's friends and
    /// what each shares, found by the server before the handler runs. Nil for every other method,
    /// and when the request reads the caller's own data.
    public private(set) var friends: FriendsOf?
    /// Whose data a ``Access/friend`` method reads: the caller, or the friend the request named
    /// once the server found that friend shares with the caller.
    public private(set) var subject: String?
    /// The sessions this service knows have ended (``sessionEnded()``).
    let revocations: RevocationList?
    private let serviceLogger: Logger
    /// The service logger with `request`, `method` and (once known) `user` metadata. Built when a
    /// handler logs, not for every request: a stream log handler formats its metadata each time
    /// one is set.
    public var logger: Logger {
        var logger = serviceLogger
        logger[metadataKey: "request"] = "\(requestID)"
        logger[metadataKey: "method"] = "\(method)"
        if let user { logger[metadataKey: "user"] = "\(user)" }
        return logger
    }

    public init(
        requestID: String, method: String, caller: Caller, principal: ConnectionPrincipal = .inProcess, deadline: Int64?,
        idempotencyKey: String? = nil,
        logger: Logger, revocations: RevocationList? = nil
    ) {
        self.requestID = requestID
        self.method = method
        self.caller = caller
        self.principal = principal
        self.deadline = deadline
        self.idempotencyKey = idempotencyKey
        self.revocations = revocations
        serviceLogger = logger
    }

    /// What returns when the session this request was made with ends (signed out, ended
    /// elsewhere, the password changed); nil for a request made without one. A long poll races
    /// it, so a stream held open for an ended session ends at once.
    public var sessionEnd: (@Sendable () async -> Void)? {
        guard let session, let revocations else { return nil }
        return { await revocations.ended(session.session) }
    }

    /// The same context for the keyed write `scope`.
    func keyed(by scope: IdempotencyScope) -> RequestContext {
        var context = self
        context.idempotency = scope
        return context
    }

    /// The same context for a member of `household`.
    func member(of household: String) -> RequestContext {
        var context = self
        context.household = household
        return context
    }

    /// The same context reading `subject`'s data, for a caller whose friends are `friends` (nil
    /// when the request reads the caller's own and names nobody).
    func reading(_ subject: String, friends: FriendsOf?) -> RequestContext {
        var context = self
        context.subject = subject
        context.friends = friends
        return context
    }

    /// Whose data a ``Access/friend`` method's handler reads; the server chose it before the
    /// handler runs.
    public func requireSubject() throws(ServiceError) -> String {
        guard let subject else { throw ServiceError.internal("\(method) reads what friends share, but is not declared with friend access") }
        return subject
    }

    /// The caller's friends and what each shares, for a ``Access/friend`` method whose request
    /// names no friend (a board of them all).
    public func requireFriends() throws(ServiceError) -> FriendsOf {
        guard let friends else { throw ServiceError.internal("\(method) reads every friend's share, but is not declared with friend access") }
        return friends
    }

    /// The caller's household; the server found it before a ``Access/household`` method's
    /// handler runs.
    public func requireHousehold() throws(ServiceError) -> String {
        guard let household else {
            throw ServiceError.internal("\(method) reads a household, but is not declared with household access")
        }
        return household
    }

    /// The verified user; the server already refused `user` methods called without one.
    public func requireUser() throws(ServiceError) -> String {
        guard let user, !user.isEmpty else {
            throw ServiceError(.unauthorized, "\(method) acts for a signed-in user: send a session token", field: "header.session")
        }
        return user
    }

    /// The session the request was made with, if a signed-in user made it.
    public var session: SessionClaims? {
        if case .user(let claims) = caller { return claims }
        return nil
    }

    /// Time left before the deadline, or nil if the client set none.
    public var remainingTime: Duration? {
        guard let deadline else { return nil }
        let milliseconds = deadline - Int64(Date().timeIntervalSince1970 * 1000)
        return .milliseconds(max(milliseconds, 0))
    }
}
