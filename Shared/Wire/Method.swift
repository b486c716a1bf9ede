/// A typed method of a service: its wire name and the types of its request and reply bodies.
public struct Method<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable, CustomStringConvertible {
    public let name: String
    /// Reads are safe to repeat; writes are sent with an idempotency key so that a retried write
    /// is applied once.
    public let isWrite: Bool

    public init(_ name: String, write: Bool) {
        self.name = name
        self.isWrite = write
    }

    public static func read(_ name: String) -> Method { Method(name, write: false) }
    public static func write(_ name: String) -> Method { Method(name, write: true) }

    public var description: String { name }
}

/// The body of a method that takes or returns nothing; encoded as an empty map.
public struct Empty: Codable, Equatable, Sendable {
    public init() {}
}
