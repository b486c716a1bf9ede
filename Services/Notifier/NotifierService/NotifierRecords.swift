import Foundation
import GRDB
import SousRuntime
import SousSchema

// The notifier's tables as records: each names its columns once and reads and writes itself,
// with the same statements on SQLite and PostgreSQL (``SQLRecord``).

/// The last profile the planner gave (or announced) per user (`profile`).
struct ProfileRecord: Sendable, SQLRecord {
    static let tableName = "profile"
    static let primaryKey = ["user"]

    enum Columns {
        static let user = Column("user")
        static let timeZone = Column("time_zone")
        static let reminderHour = Column("reminder_hour")
        static let enabled = Column("enabled")
        static let fetchedAt = Column("fetched_at")
    }

    var user: String
    var profile: ReminderProfile

    init(user: String, profile: ReminderProfile) {
        self.user = user
        self.profile = profile
    }

    init(row: Row) {
        user = row[Columns.user]
        profile = ReminderProfile(
            timeZone: row[Columns.timeZone], reminderHour: row[Columns.reminderHour], enabled: row[Columns.enabled],
            fetchedAt: Date(timeIntervalSince1970: row[Columns.fetchedAt]))
    }

    static let columnNames = [Columns.user, Columns.timeZone, Columns.reminderHour, Columns.enabled, Columns.fetchedAt].map(\.name)

    var values: SQLArguments {
        [
            user, profile.timeZone, profile.reminderHour, profile.enabled,
            profile.fetchedAt.timeIntervalSince1970,
        ]
    }
}

/// A user's pending reminder (`schedule`): at most one per user, walked in due order.
struct ScheduleRecord: Sendable, SQLRecord {
    static let tableName = "schedule"
    static let primaryKey = ["user"]

    enum Columns {
        static let user = Column("user")
        static let date = Column("local_date")
        static let dueAt = Column("due_at")
        static let wakeAt = Column("wake_at")
    }

    var reminder: ScheduledReminder

    init(_ reminder: ScheduledReminder) {
        self.reminder = reminder
    }

    init(row: Row) throws {
        let text: String = row[Columns.date]
        guard let date = LocalDate(text) else { throw DatabaseError(message: "schedule date \(text) is not a date") }
        reminder = ScheduledReminder(user: row[Columns.user], date: date, dueAt: Date(timeIntervalSince1970: row[Columns.dueAt]))
    }

    static let columnNames = [Columns.user, Columns.date, Columns.dueAt, Columns.wakeAt].map(\.name)

    /// Written unclaimed: the scheduler looks at it when it is due.
    var values: SQLArguments {
        [reminder.user, reminder.date.description, reminder.dueAt.timeIntervalSince1970, reminder.dueAt.timeIntervalSince1970]
    }
}

/// One handled reminder in the delivery log (`delivery`): at most one per user and local date,
/// written before the reminder is published.
struct DeliveryRecord: Sendable, SQLRecord {
    static let tableName = "delivery"
    static let primaryKey = ["user", "local_date"]

    enum Columns {
        static let user = Column("user")
        static let date = Column("local_date")
        static let dueAt = Column("due_at")
        static let outcome = Column("outcome")
        static let recordedAt = Column("recorded_at")
        static let reason = Column("reason")
        static let kcal = Column("kcal")
        static let kcalGoal = Column("kcal_goal")
    }

    var user: String
    var date: LocalDate
    var dueAt: Date
    var outcome: ReminderOutcome
    var recordedAt: Date
    var reason: String?
    var kcal: Double?
    var kcalGoal: Double?

    init(_ decision: ReminderDecision, recordedAt: Date) {
        user = decision.reminder.user
        date = decision.reminder.date
        dueAt = decision.reminder.dueAt
        outcome = decision.outcome
        self.recordedAt = recordedAt
        reason = decision.reason
        kcal = decision.kcal
        kcalGoal = decision.kcalGoal
    }

    init(row: Row) throws {
        let text: String = row[Columns.date]
        guard let date = LocalDate(text) else { throw DatabaseError(message: "delivery date \(text) is not a date") }
        user = row[Columns.user]
        self.date = date
        dueAt = Date(timeIntervalSince1970: row[Columns.dueAt])
        outcome = ReminderOutcome(rawValue: row[Columns.outcome]) ?? .sent
        recordedAt = Date(timeIntervalSince1970: row[Columns.recordedAt])
        reason = row[Columns.reason]
        kcal = row[Columns.kcal]
        kcalGoal = row[Columns.kcalGoal]
    }

    static let columnNames = [
        Columns.user, Columns.date, Columns.dueAt, Columns.outcome, Columns.recordedAt, Columns.reason, Columns.kcal, Columns.kcalGoal,
    ].map(\.name)

    var values: SQLArguments {
        [
            user, date.description, dueAt.timeIntervalSince1970, outcome.rawValue,
            recordedAt.timeIntervalSince1970, reason, kcal, kcalGoal,
        ]
    }

    var logEntry: ReminderLogEntry {
        ReminderLogEntry(date: date, outcome: outcome, dueAt: dueAt, recordedAt: recordedAt, reason: reason, kcal: kcal, kcalGoal: kcalGoal)
    }

    /// The reminder as it was published (for a sent one).
    var reminder: Reminder {
        Reminder(
            user: user, date: date, message: ReminderRules.message(kcal: kcal, goal: kcalGoal), dueAt: dueAt, kcal: kcal, kcalGoal: kcalGoal)
    }

    /// The due instant of the newest reminder in `user`'s delivery log.
    static func lastHandledDueAt(of user: String, _ session: any SQLSession) throws -> Date? {
        try session.value(Double.self, #"SELECT MAX(due_at) FROM delivery WHERE "user" = ?"#, [user]).map(Date.init(timeIntervalSince1970:))
    }

    /// The newest local date in `user`'s delivery log.
    static func lastHandledDate(of user: String, _ session: any SQLSession) throws -> LocalDate? {
        try session.value(String.self, #"SELECT MAX(local_date) FROM delivery WHERE "user" = ?"#, [user]).flatMap(LocalDate.init)
    }
}
