public import Foundation
public import MessagePack

/// What every service answers to `health`.
@MessagePackCodable
public struct HealthReport: Codable, Equatable, Sendable {
    /// "catalog", "planner", …
    public var service: String
    /// The service build's version, e.g. "0.1.0".
    public var version: String
    /// The wire protocol version the service speaks.
    public var protocolVersion: Int
    public var startedAt: Date
    public var uptimeSeconds: Double
    public var database: DatabaseHealth

    public init(service: String, version: String, protocolVersion: Int, startedAt: Date, uptimeSeconds: Double, database: DatabaseHealth) {
        self.service = service
        self.version = version
        self.protocolVersion = protocolVersion
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.database = database
    }
}

@MessagePackCodable
public struct DatabaseHealth: Codable, Equatable, Sendable {
    /// "ok", "error", or "none" for a service without a database.
    public var status: String
    /// The database file, or ":memory:".
    public var path: String?
    /// The applied migrations, or the error text.
    public var detail: String?
    /// When the service last checked its database: every second, off the request path, so
    /// `health` answers from memory.
    public var checkedAt: Date?

    public init(status: String, path: String? = nil, detail: String? = nil, checkedAt: Date? = nil) {
        self.status = status
        self.path = path
        self.detail = detail
        self.checkedAt = checkedAt
    }
}

public enum CommonAPI {
    /// Answered by every service.
    public static let health = Method<AnyService, Empty, HealthReport>.read(SousProtocol.healthMethod, .public, lane: .control)
    /// Every method the service serves, with the shapes of its request and reply and the types
    /// they use: enough to write a client in another language. Answered by every service.
    public static let describe = Method<AnyService, Empty, ServiceDescription>.read("describe", .public, lane: .control)
    /// The service's current time; answered by every service.
    public static let clock = Method<AnyService, Empty, ClockReading>.read("clock.get", .public, lane: .control)
    /// Moves a manual clock (a service started with `SOUS_CLOCK=manual…`); badRequest on the
    /// system clock. For end-to-end tests, never for production.
    public static let setClock = Method<AnyService, ClockSetting, ClockReading>.write("clock.set", .operator, lane: .control)
}

@MessagePackCodable
public struct ClockReading: Codable, Equatable, Sendable {
    public var now: Date
    /// True when the clock only moves through `clock.set`.
    public var manual: Bool

    public init(now: Date, manual: Bool) {
        self.now = now
        self.manual = manual
    }
}

@MessagePackCodable
public struct ClockSetting: Codable, Equatable, Sendable {
    public var now: Date

    public init(now: Date) { self.now = now }
}
