public import MessagePack

/// A stable, machine-readable error class carried on the wire.
///
/// A struct rather than an enum so a client can still read a code added by a newer server.
@MessagePackCodable
public struct ErrorCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The input was wrong; ``ServiceError/field`` names the offending field.
    public static let badRequest = ErrorCode(rawValue: "badRequest")
    /// An id named in the request does not exist.
    public static let notFound = ErrorCode(rawValue: "notFound")
    /// The request contradicts the current state (e.g. a duplicate).
    public static let conflict = ErrorCode(rawValue: "conflict")
    /// The caller is not signed in, or the credential is wrong, expired or revoked; or the
    /// record named belongs to someone else.
    public static let unauthorized = ErrorCode(rawValue: "unauthorized")
    /// The caller is signed in but may not do this (an operator's method).
    public static let forbidden = ErrorCode(rawValue: "forbidden")
    /// Too many failed sign-ins for this account or from this address; the message says when
    /// to try again.
    public static let rateLimited = ErrorCode(rawValue: "rateLimited")
    /// The user already stores as much of this as one user may (docs/PROTOCOL.md, "Quotas");
    /// ``ServiceError/field`` names what.
    public static let quotaExceeded = ErrorCode(rawValue: "quotaExceeded")
    /// The service, or one it depends on, cannot answer now; retrying later may succeed.
    public static let unavailable = ErrorCode(rawValue: "unavailable")
    /// The request's deadline passed before the service could start it.
    public static let timeout = ErrorCode(rawValue: "timeout")
    /// A bug or an unexpected failure on the server.
    public static let `internal` = ErrorCode(rawValue: "internal")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The body of an error reply, and the error every Sous API throws.
@MessagePackCodable
public struct ServiceError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    /// One human-readable sentence.
    public var message: String
    /// The input field the error is about (dotted path, e.g. "steps.2.minutes"): always set for
    /// ``ErrorCode/badRequest``, and set for other codes where one field is to blame (e.g. the
    /// unknown id of a notFound).
    public var field: String?

    public init(_ code: ErrorCode, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public static func badRequest(_ message: String, field: String?) -> ServiceError {
        ServiceError(.badRequest, message, field: field)
    }

    public static func notFound(_ message: String, field: String? = nil) -> ServiceError {
        ServiceError(.notFound, message, field: field)
    }

    public static func conflict(_ message: String, field: String? = nil) -> ServiceError {
        ServiceError(.conflict, message, field: field)
    }

    public static func unavailable(_ message: String) -> ServiceError {
        ServiceError(.unavailable, message)
    }

    public static func `internal`(_ message: String) -> ServiceError {
        ServiceError(.internal, message)
    }

    /// The same error with its field placed under `parent` ("name" under "changes" is
    /// "changes.name"): for a part of a request validated on its own.
    public func nested(under parent: String) -> ServiceError {
        guard let field else { return self }
        return ServiceError(code, message, field: "\(parent).\(field)")
    }

    public var description: String {
        if let field { return "\(code): \(message) (field \(field))" }
        return "\(code): \(message)"
    }
}
