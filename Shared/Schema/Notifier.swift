public import Foundation
public import MessagePack
public import SousWire

// The notifier's schema: the daily reminder it publishes, its delivery log and its schedule.

/// The reminder the notifier publishes under ``NotifierTopics/reminder(for:)`` when a user's
/// reminder comes due.
@MessagePackCodable
public struct Reminder: Codable, Equatable, Sendable {
    public var user: String
    /// The user's local date the reminder is for.
    public var date: LocalDate
    /// What to show, e.g. "Time to log today's meals".
    public var message: String
    /// The instant it was due (the reminder hour on the user's wall clock).
    public var dueAt: Date
    /// Energy logged so far that day and its goal (kcal), when the tracker answered.
    public var kcal: Double?
    public var kcalGoal: Double?

    public init(user: String, date: LocalDate, message: String, dueAt: Date, kcal: Double? = nil, kcalGoal: Double? = nil) {
        self.user = user
        self.date = date
        self.message = message
        self.dueAt = dueAt
        self.kcal = kcal
        self.kcalGoal = kcalGoal
    }
}

/// What became of one user-day's reminder.
@MessagePackCodable
public enum ReminderOutcome: String, Codable, Sendable, CaseIterable {
    /// Recorded, then published.
    case sent
    /// Not sent: the user had already logged a dinner for that day.
    case skipped
    /// Not sent: it came due while the notifier was down and was 2 hours or more late on start.
    case missed
}

/// One row of the delivery log: at most one per user and local date.
@MessagePackCodable
public struct ReminderLogEntry: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var outcome: ReminderOutcome
    public var dueAt: Date
    /// When the notifier recorded the outcome.
    public var recordedAt: Date
    /// Why it was skipped or missed; nil for sent reminders.
    public var reason: String?
    public var kcal: Double?
    public var kcalGoal: Double?
    /// A sent reminder's delivery to each of the user's channels (sent, when, or why not);
    /// kept 30 days. Absent in archives.
    public var deliveries: [ChannelDelivery]?

    public init(
        date: LocalDate, outcome: ReminderOutcome, dueAt: Date, recordedAt: Date, reason: String? = nil, kcal: Double? = nil, kcalGoal: Double? = nil,
        deliveries: [ChannelDelivery]? = nil
    ) {
        self.date = date
        self.outcome = outcome
        self.dueAt = dueAt
        self.recordedAt = recordedAt
        self.reason = reason
        self.kcal = kcal
        self.kcalGoal = kcalGoal
        self.deliveries = deliveries
    }
}

@MessagePackCodable
public struct ReminderLogRequest: Codable, Equatable, Sendable {
    /// Newest entries to return, 1–365 (default 30).
    public var limit: Int?

    public init(limit: Int? = nil) { self.limit = limit }
}

/// The caller's delivery log, newest date first.
@MessagePackCodable
public struct ReminderLog: Codable, Equatable, Sendable {
    public var user: String
    public var entries: [ReminderLogEntry]

    public init(user: String, entries: [ReminderLogEntry]) {
        self.user = user
        self.entries = entries
    }
}

/// Whether a user has a reminder coming, and if not, why.
@MessagePackCodable
public enum NextReminderStatus: String, Codable, Sendable, CaseIterable {
    /// A reminder is scheduled at ``NextReminder/dueAt``.
    case scheduled
    /// The profile has reminders switched off.
    case optedOut
    /// Today's reminder was already handled (sent, skipped or missed); the next is scheduled by
    /// the user's next activity.
    case handledToday
    /// No activity since the last reminder (or ever): reminders follow use of Sous.
    case notActive
}

/// The answer of `reminders.next`.
@MessagePackCodable
public struct NextReminder: Codable, Equatable, Sendable {
    public var user: String
    public var status: NextReminderStatus
    /// When the reminder is due (only when scheduled).
    public var dueAt: Date?
    /// The user's local date it is for (only when scheduled).
    public var date: LocalDate?
    /// The profile the schedule follows (the last one known to the notifier).
    public var timeZone: String
    public var reminderHour: Int
    /// One sentence for people, e.g. "not active since the last reminder".
    public var explanation: String

    public init(user: String, status: NextReminderStatus, dueAt: Date?, date: LocalDate?, timeZone: String, reminderHour: Int, explanation: String) {
        self.user = user
        self.status = status
        self.dueAt = dueAt
        self.date = date
        self.timeZone = timeZone
        self.reminderHour = reminderHour
        self.explanation = explanation
    }
}

/// Waits for the caller's reminders: what `sous reminders watch` calls in a loop.
@MessagePackCodable
public struct ReminderWait: Codable, Sendable {
    /// The `cursor` of the previous answer; nil to start from now (the answer has no reminders
    /// and a cursor to wait from).
    public var after: Date?
    /// How long to wait for one when none is there yet: 0 to 25 seconds (default 20).
    public var waitSeconds: Double?

    public init(after: Date? = nil, waitSeconds: Double? = nil) {
        self.after = after
        self.waitSeconds = waitSeconds
    }
}

@MessagePackCodable
public struct ReminderFeed: Codable, Sendable {
    /// The caller's reminders sent after `after`, oldest first (none if the wait ran out).
    public var reminders: [Reminder]
    /// Pass it as `after` next time.
    public var cursor: Date

    public init(reminders: [Reminder], cursor: Date) {
        self.reminders = reminders
        self.cursor = cursor
    }
}

public enum NotifierAPI {
    /// The caller's own reminders as they are sent (a long poll): the only way reminders leave
    /// the services, so nobody can watch someone else's.
    public static let wait = Method<Notifier, ReminderWait, ReminderFeed>.read("reminders.wait", .user, activity: false)
    /// The caller's delivery log (sent, skipped and missed reminders). Asking about reminders is
    /// not activity: it must not schedule the reminder it asks about.
    public static let list = Method<Notifier, ReminderLogRequest, ReminderLog>.read("reminders.list", .user, activity: false)
    /// When the caller's next reminder is due, or why none is (not activity, as `list`).
    public static let next = Method<Notifier, Empty, NextReminder>.read("reminders.next", .user, activity: false)
}

public enum NotifierTopics {
    /// The prefix of every reminder topic.
    public static let reminderPrefix = "reminder."

    /// The topic of `user`'s reminders: `reminder.<user>` followed by a NUL byte. Subscribers
    /// match topics by prefix, so without the terminator `reminder.ada` would also receive
    /// `reminder.adam`; the notifier ignores user ids containing NUL, so the terminator cannot
    /// occur inside one.
    public static func reminder(for user: String) -> Topic<Reminder> {
        Topic(reminderPrefix + user + "\u{0}")
    }
}
