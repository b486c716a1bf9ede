/// The topic of a published event with the type of its body: a publisher sends only that body
/// under it, and a subscriber reads the body as that type (docs/PROTOCOL.md, "Events").
public struct Topic<Body: Codable & Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The topic frame's text; subscriptions match it by prefix.
    public let name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }
}

extension Envelope.Event {
    /// This event's body if it was published under `topic`, else nil; throws when the body
    /// does not decode as the topic's type.
    public func body<Body>(of topic: Topic<Body>) throws -> Body? {
        guard header.topic == topic.name else { return nil }
        return try decode(Body.self)
    }

    /// Whether this event was published under `topic`.
    public func `is`<Body>(_ topic: Topic<Body>) -> Bool { header.topic == topic.name }
}
