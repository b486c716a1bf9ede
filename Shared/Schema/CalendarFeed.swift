public import Foundation
public import MessagePack
public import SousWire

// The week as a calendar that calendar apps subscribe to: a private address whose secret grants
// reading that calendar and nothing else, made, replaced and stopped by its owner.

/// `plan.feed`: turn the subscribable calendar on (a new secret each time, so the old address
/// stops working) or off.
@MessagePackCodable
public struct FeedSetting: Codable, Equatable, Sendable {
    public var on: Bool
    public init(on: Bool) { self.on = on }
}

@MessagePackCodable
public struct CalendarFeed: Codable, Equatable, Sendable {
    public var active: Bool
    /// Only in the reply of the `plan.feed` that made it: the secret of the feed's address (43
    /// characters). Only its digest is kept, so it cannot be shown again: turn the feed on again
    /// for a new one.
    public var token: String?
    public var createdAt: Date?

    public init(active: Bool, token: String? = nil, createdAt: Date? = nil) {
        self.active = active
        self.token = token
        self.createdAt = createdAt
    }
}

extension CalendarFeed {
    /// The address the web app at `base` (`https://sous.example.org`) serves the feed with
    /// secret `token` at.
    public static func address(token: String, at base: String) -> String {
        "\(base.hasSuffix("/") ? String(base.dropLast()) : base)/calendar/\(token).ics"
    }
}

/// `plan.feedCalendar`: what a calendar app's periodic fetch asks for, with the feed's secret
/// instead of a session.
@MessagePackCodable
public struct FeedRead: Codable, Equatable, Sendable {
    public var token: String
    public init(token: String) { self.token = token }
}

extension PlannerAPI {
    /// Makes (or replaces) the caller's calendar feed, or stops it.
    public static let setFeed = Method<Planner, FeedSetting, CalendarFeed>.write("plan.feed", .user)
    /// Whether the caller has a calendar feed, and since when (never its secret).
    public static let feed = Method<Planner, Empty, CalendarFeed>.read("plan.feedStatus", .user)
    /// The feed's calendar: the owner's household week and the four weeks before it, as
    /// `plan.ics` gives it. Public: the secret is the credential; an unknown or stopped one is
    /// `notFound` (field `token`).
    public static let feedCalendar = Method<Planner, FeedRead, CalendarExport>.read("plan.feedCalendar", .public, lane: .heavy)
}
