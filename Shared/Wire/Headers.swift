public import Foundation
public import MessagePack

/// Frame 2 of a request.
@MessagePackCodable
public struct RequestHeader: Codable, Equatable, Sendable {
    /// The method to call, e.g. "recipes.search".
    public var method: String
    /// Chosen by the client, echoed in the reply, at most ``SousProtocol/maxTokenBytes`` long.
    public var id: String
    /// The session token `account.login` returned: who is calling, signed by the planner.
    /// Nil for public methods.
    public var session: String?
    /// The user a Sous service acts for when it calls another one. Honoured only from a
    /// connection whose CURVE key is a Sous service's; from anyone else the request is refused.
    public var onBehalfOf: String?
    /// Absolute deadline in Unix milliseconds; a server that starts the call later answers `timeout`.
    public var deadline: Int64?
    /// Set on writes. A server that already answered this key for this user replays that reply.
    public var idempotencyKey: String?
    /// The address of the person the web app serves, for the limits a service keeps per address
    /// (failed sign-ins, recovery requests). Honoured only from the web app's published key;
    /// from anyone else it is ignored, and they are counted at their own address.
    public var forwardedFor: String?

    public init(
        method: String, id: String, session: String? = nil, onBehalfOf: String? = nil, deadline: Int64? = nil, idempotencyKey: String? = nil,
        forwardedFor: String? = nil
    ) {
        self.method = method
        self.id = id
        self.session = session
        self.onBehalfOf = onBehalfOf
        self.deadline = deadline
        self.idempotencyKey = idempotencyKey
        self.forwardedFor = forwardedFor
    }
}

/// The address the web app names for the person it serves (`header.forwardedFor`).
public enum ForwardedAddress {
    /// 1 to 64 printable ASCII characters: an IPv4 or IPv6 address as a proxy writes it.
    public static func isValid(_ address: String) -> Bool {
        !address.isEmpty && address.utf8.count <= 64 && address.unicodeScalars.allSatisfy { (0x21...0x7e).contains($0.value) }
    }
}

/// Frame 2 of a reply.
@MessagePackCodable
public struct ReplyHeader: Codable, Equatable, Sendable {
    /// The request id this answers ("" when the request was too damaged to read one).
    public var id: String
    public var status: ReplyStatus

    public init(id: String, status: ReplyStatus) {
        self.id = id
        self.status = status
    }
}

/// Frame 2 of an event.
@MessagePackCodable
public struct EventHeader: Codable, Equatable, Sendable {
    /// The same topic as frame 0, e.g. "activity" or "catalog.recipe.created".
    public var topic: String
    /// The publishing service, e.g. "catalog".
    public var source: String
    /// When the event happened.
    public var time: Date

    public init(topic: String, source: String, time: Date) {
        self.topic = topic
        self.source = source
        self.time = time
    }
}
