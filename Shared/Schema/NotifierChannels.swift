public import Foundation
public import MessagePack
public import SousWire

// Where a user's reminders go besides the event bus: mail, an ntfy topic, a webhook, Web Push.

/// The kinds of channel a reminder can be delivered to.
@MessagePackCodable
public enum ReminderChannelKind: String, Codable, Sendable, CaseIterable {
    /// A mail through the operator's relay, to ``ChannelAdd/address``.
    case email
    /// An HTTP POST of the message to an ntfy topic URL (`https://ntfy.sh/my-topic`).
    case ntfy
    /// An HTTPS POST of a JSON body signed with HMAC-SHA256 (docs/PROTOCOL.md, "Reminder channels").
    case webhook
    /// Web Push to a browser's push subscription (RFC 8030, encrypted per RFC 8291, VAPID).
    case push
}

/// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
@MessagePackCodable
public struct PushSubscriptionKeys: Codable, Equatable, Sendable {
    /// The push service's URL for this browser.
    public var endpoint: String
    /// The browser's P-256 public key, uncompressed (65 bytes), base64url.
    public var p256dh: String
    /// The browser's 16-byte authentication secret, base64url.
    public var auth: String

    public init(endpoint: String, p256dh: String, auth: String) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// `reminders.addChannel`: a new place for the caller's reminders.
@MessagePackCodable
public struct ChannelAdd: Codable, Equatable, Sendable {
    public var kind: ReminderChannelKind
    /// The mail address (email), the topic URL (ntfy) or the HTTPS URL (webhook); not for push.
    public var address: String?
    /// The browser's subscription (push only).
    public var subscription: PushSubscriptionKeys?
    /// A name the user knows it by ("my phone"); at most 60 characters.
    public var label: String?

    public init(kind: ReminderChannelKind, address: String? = nil, subscription: PushSubscriptionKeys? = nil, label: String? = nil) {
        self.kind = kind
        self.address = address
        self.subscription = subscription
        self.label = label
    }
}

/// One of the user's channels.
@MessagePackCodable
public struct ReminderChannel: Codable, Equatable, Sendable {
    public var id: String
    public var kind: ReminderChannelKind
    /// Where it goes: the mail address, the topic or webhook URL, or the push endpoint.
    public var address: String
    public var label: String?
    public var createdAt: Date
    /// False once a delivery failed for good (an address refused, a webhook or subscription
    /// gone): nothing more is sent to it until it is added again.
    public var enabled: Bool
    /// Why it was switched off.
    public var disabledReason: String?

    public init(
        id: String, kind: ReminderChannelKind, address: String, label: String?, createdAt: Date, enabled: Bool, disabledReason: String?
    ) {
        self.id = id
        self.kind = kind
        self.address = address
        self.label = label
        self.createdAt = createdAt
        self.enabled = enabled
        self.disabledReason = disabledReason
    }
}

/// The hours in which channels stay silent, on the user's own clock: a reminder due in them
/// is delivered when they end. `from` 22 and `to` 7 is 22:00 to 07:00.
@MessagePackCodable
public struct QuietHours: Codable, Equatable, Sendable {
    /// The first quiet hour, 0–23.
    public var from: Int
    /// The first hour that is not quiet, 0–23 (not equal to `from`).
    public var to: Int

    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }

    /// Whether `hour` (0–23) is quiet.
    public func contains(hour: Int) -> Bool {
        from < to ? (from..<to).contains(hour) : (hour >= from || hour < to)
    }
}

/// `reminders.channels`: the caller's channels and quiet hours.
@MessagePackCodable
public struct ChannelList: Codable, Equatable, Sendable {
    public var channels: [ReminderChannel]
    public var quietHours: QuietHours?
    /// The notifier's VAPID public key (uncompressed P-256, base64url): a browser subscribes
    /// with it as `applicationServerKey`.
    public var pushKey: String
    /// Whether the operator configured a mail relay (without one, email channels are refused).
    public var mailConfigured: Bool

    public init(channels: [ReminderChannel], quietHours: QuietHours?, pushKey: String, mailConfigured: Bool) {
        self.channels = channels
        self.quietHours = quietHours
        self.pushKey = pushKey
        self.mailConfigured = mailConfigured
    }
}

/// The answer of `reminders.addChannel`.
@MessagePackCodable
public struct ChannelAdded: Codable, Equatable, Sendable {
    public var channel: ReminderChannel
    /// A webhook's signing secret (base64url, 32 bytes): shown once, here. The receiver checks
    /// each delivery's `Sous-Signature` with it.
    public var secret: String?

    public init(channel: ReminderChannel, secret: String?) {
        self.channel = channel
        self.secret = secret
    }
}

/// Names one of the caller's channels.
@MessagePackCodable
public struct ChannelRef: Codable, Equatable, Sendable {
    public var id: String

    public init(id: String) { self.id = id }
}

/// `reminders.setQuietHours`: nil switches them off.
@MessagePackCodable
public struct QuietHoursChange: Codable, Equatable, Sendable {
    public var quietHours: QuietHours?

    public init(quietHours: QuietHours?) { self.quietHours = quietHours }
}

/// Where a delivery stands.
@MessagePackCodable
public enum DeliveryState: String, Codable, Sendable, CaseIterable {
    /// Not delivered yet: waiting for its time (quiet hours), or being retried.
    case pending
    case sent
    /// Given up: refused for good, or undelivered for a day.
    case failed
}

/// One reminder's delivery to one channel.
@MessagePackCodable
public struct ChannelDelivery: Codable, Equatable, Sendable {
    public var channel: String
    public var kind: ReminderChannelKind
    public var state: DeliveryState
    /// When it was sent or given up.
    public var at: Date?
    public var attempts: Int
    /// The last failure (while retrying, or why it failed).
    public var reason: String?

    public init(channel: String, kind: ReminderChannelKind, state: DeliveryState, at: Date?, attempts: Int, reason: String?) {
        self.channel = channel
        self.kind = kind
        self.state = state
        self.at = at
        self.attempts = attempts
        self.reason = reason
    }
}

/// The answer of `reminders.testChannel`: a test message went through the same delivery path
/// as reminders; this is how it stood when the call returned (at most about 15 s later).
@MessagePackCodable
public struct ChannelTestResult: Codable, Equatable, Sendable {
    public var delivery: ChannelDelivery

    public init(delivery: ChannelDelivery) { self.delivery = delivery }
}

/// What a channel receives (the webhook's JSON body; the push payload; ntfy's title and text).
public struct ChannelMessage: Codable, Equatable, Sendable {
    /// `reminder`, `test` or `channelDisabled`.
    public var event: String
    public var user: String
    /// The local date a reminder is for.
    public var date: String?
    public var title: String
    public var body: String
    /// Where the web app shows the day (when the operator set `SOUS_WEB_URL`).
    public var url: String?
    public var kcal: Double?
    public var kcalGoal: Double?

    public init(
        event: String, user: String, date: String?, title: String, body: String, url: String?, kcal: Double? = nil, kcalGoal: Double? = nil
    ) {
        self.event = event
        self.user = user
        self.date = date
        self.title = title
        self.body = body
        self.url = url
        self.kcal = kcal
        self.kcalGoal = kcalGoal
    }
}

extension NotifierAPI {
    /// The caller's channels, quiet hours, and the key a browser subscribes to push with.
    public static let channels = Method<Notifier, Empty, ChannelList>.read("reminders.channels", .user, activity: false)
    /// Adds a channel (at most 10 per user). Checked on the way in: the address's form, and for
    /// push the subscription's keys; a webhook gets its signing secret in the answer.
    public static let addChannel = Method<Notifier, ChannelAdd, ChannelAdded>.write("reminders.addChannel", .user, activity: false)
    public static let removeChannel = Method<Notifier, ChannelRef, ChannelList>.write("reminders.removeChannel", .user, activity: false)
    /// Sends a test message to the channel now, through the same outbox as reminders (a
    /// disabled channel is tried too, and switched back on if it works).
    public static let testChannel = Method<Notifier, ChannelRef, ChannelTestResult>.write(
        "reminders.testChannel", .user, activity: false)
    public static let setQuietHours = Method<Notifier, QuietHoursChange, ChannelList>.write("reminders.setQuietHours", .user, activity: false)
}
