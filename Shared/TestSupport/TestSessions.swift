import Foundation
public import SousRuntime
public import SousWire
import Synchronization

/// Session tokens for in-process tests, signed with the key every service configured with
/// `ServiceConfiguration.inProcess` shares (``SessionSigner/inProcess``): real tokens, checked
/// by the real gate, for users named by the test.
public enum TestSessions {
    private static let tokens = Mutex<[String: String]>([:])

    /// A token for `user` (the user id is the name itself), valid for a day. The user named
    /// "operator" is an operator.
    public static func token(for user: String, role: AccountRole? = nil) -> String {
        let role = role ?? (user == "operator" ? .operator : .user)
        let key = "\(role.rawValue):\(user)"
        return tokens.withLock { tokens in
            if let token = tokens[key] { return token }
            let claims = SessionClaims(session: "test-\(key)", user: user, role: role, expires: Int64(Date().timeIntervalSince1970) + 86_400)
            let token = SessionSigner.inProcess.token(for: claims)
            tokens[key] = token
            return token
        }
    }

    /// The operator tests act as for shared-catalog methods.
    public static var operatorToken: String { token(for: "operator") }
}

extension ServiceClient {
    /// Calls `method` as `user`, signed in with a ``TestSessions`` token.
    @discardableResult
    public func call<Request, Response>(
        _ method: Method<Scope, Request, Response>,
        _ request: Request,
        user: String,
        timeout: Duration? = nil,
        idempotencyKey: String? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(ServiceError) -> Response {
        try await call(method, request, session: TestSessions.token(for: user), timeout: timeout, idempotencyKey: idempotencyKey, deadline: deadline)
    }

    /// ``callBlocking(_:_:session:timeout:)`` as `user`.
    @discardableResult
    public func callBlocking<Request, Response>(
        _ method: Method<Scope, Request, Response>, _ request: Request, user: String, timeout: Duration? = nil
    ) throws(ServiceError) -> Response {
        try callBlocking(method, request, session: TestSessions.token(for: user), timeout: timeout)
    }
}

extension ServiceClient where Scope: ServiceKind {
    /// Calls one of the methods every service answers as `user`.
    @discardableResult
    public func call<Request, Response>(
        _ method: Method<AnyService, Request, Response>,
        _ request: Request,
        user: String,
        timeout: Duration? = nil
    ) async throws(ServiceError) -> Response {
        try await call(method, request, session: TestSessions.token(for: user), timeout: timeout)
    }
}
