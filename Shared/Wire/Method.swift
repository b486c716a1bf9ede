/// A typed method of a service: its wire name, the types of its request and reply bodies, and
/// how the runtime treats it.
public struct Method<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable, CustomStringConvertible {
    public let name: String
    /// Reads are safe to repeat; writes are sent with an idempotency key so that a retried write
    /// is applied once.
    public let isWrite: Bool
    /// Where the server runs it (see ``MethodLane``).
    public let lane: MethodLane

    public init(_ name: String, write: Bool, lane: MethodLane = .standard) {
        self.name = name
        self.isWrite = write
        self.lane = lane
    }

    public static func read(_ name: String, lane: MethodLane = .standard) -> Method { Method(name, write: false, lane: lane) }
    public static func write(_ name: String, lane: MethodLane = .standard) -> Method { Method(name, write: true, lane: lane) }

    public var description: String { name }
}

/// The group of threads a server runs a method's handler on, each with its own bound on
/// requests in flight: work in one lane never holds up another.
public enum MethodLane: String, Sendable, CaseIterable {
    /// `health` and clock control: answered even while every other lane is full.
    case control
    /// Ordinary reads and writes.
    case standard
    /// Queries that may scan much of a table (searches over every recipe, long histories).
    case heavy
}

/// The body of a method that takes or returns nothing; encoded as an empty map.
public struct Empty: Codable, Equatable, Sendable {
    public init() {}
}
