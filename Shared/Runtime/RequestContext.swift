import Foundation
public import Logging
public import SousWire

/// What a handler knows about the call it is answering.
public struct RequestContext: Sendable {
    public let requestID: String
    public let method: String
    /// The caller's user id from the request header, if any.
    public let user: String?
    /// Absolute deadline in Unix milliseconds, if the client set one.
    public let deadline: Int64?
    /// The key the client sent with a write; peer calls made for it carry keys derived from it.
    public let idempotencyKey: String?
    /// The service logger with `request` and `method` metadata.
    public let logger: Logger

    public init(requestID: String, method: String, user: String?, deadline: Int64?, idempotencyKey: String? = nil, logger: Logger) {
        self.requestID = requestID
        self.method = method
        self.user = user
        self.deadline = deadline
        self.idempotencyKey = idempotencyKey
        self.logger = logger
    }

    /// The caller's user id; methods that act for a user refuse calls without one.
    public func requireUser() throws(ServiceError) -> String {
        guard let user, !user.isEmpty else {
            throw ServiceError(.unauthorized, "\(method) acts for a user: set the user in the request header", field: "header.user")
        }
        guard user.utf8.count <= 128 else {
            throw ServiceError.badRequest("user id is longer than 128 bytes", field: "header.user")
        }
        return user
    }

    /// Time left before the deadline, or nil if the client set none.
    public var remainingTime: Duration? {
        guard let deadline else { return nil }
        let milliseconds = deadline - Int64(Date().timeIntervalSince1970 * 1000)
        return .milliseconds(max(milliseconds, 0))
    }
}
