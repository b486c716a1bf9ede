public import Foundation

/// Frame 2 of a request.
public struct RequestHeader: Codable, Equatable, Sendable {
    /// The method to call, e.g. "recipes.search".
    public var method: String
    /// Chosen by the client, echoed in the reply, at most ``SousProtocol/maxTokenBytes`` long.
    public var id: String
    /// The caller's user id, or nil for calls made on nobody's behalf (health, operators).
    public var user: String?
    /// Absolute deadline in Unix milliseconds; a server that starts the call later answers `timeout`.
    public var deadline: Int64?
    /// Set on writes. A server that already answered this key for this user replays that reply.
    public var idempotencyKey: String?

    public init(method: String, id: String, user: String? = nil, deadline: Int64? = nil, idempotencyKey: String? = nil) {
        self.method = method
        self.id = id
        self.user = user
        self.deadline = deadline
        self.idempotencyKey = idempotencyKey
    }
}

/// Frame 2 of a reply.
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
