import Foundation
import GRDB
import SousSchema

// The notifier's tables as GRDB records: each names its columns once and reads and writes itself.
//
// All three tables are WITHOUT ROWID: GRDB 7.10's `upsert` appends `RETURNING rowid` and fails on
// them, so a user's row is replaced whole with `insert(db, onConflict: .replace)` (one statement;
// the tables have no triggers, foreign keys or other unique keys for REPLACE to disturb).

/// The last profile the planner gave (or announced) per user (`profile`).
struct ProfileRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "profile"

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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.timeZone] = profile.timeZone
        container[Columns.reminderHour] = profile.reminderHour
        container[Columns.enabled] = profile.enabled
        container[Columns.fetchedAt] = profile.fetchedAt.timeIntervalSince1970
    }
}

/// A user's pending reminder (`schedule`): at most one per user, walked in due order.
struct ScheduleRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "schedule"

    enum Columns {
        static let user = Column("user")
        static let date = Column("local_date")
        static let dueAt = Column("due_at")
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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = reminder.user
        container[Columns.date] = reminder.date.description
        container[Columns.dueAt] = reminder.dueAt.timeIntervalSince1970
    }
}

/// One handled reminder in the delivery log (`delivery`): at most one per user and local date,
/// written before the reminder is published.
struct DeliveryRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "delivery"

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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.date] = date.description
        container[Columns.dueAt] = dueAt.timeIntervalSince1970
        container[Columns.outcome] = outcome.rawValue
        container[Columns.recordedAt] = recordedAt.timeIntervalSince1970
        container[Columns.reason] = reason
        container[Columns.kcal] = kcal
        container[Columns.kcalGoal] = kcalGoal
    }

    var logEntry: ReminderLogEntry {
        ReminderLogEntry(date: date, outcome: outcome, dueAt: dueAt, recordedAt: recordedAt, reason: reason, kcal: kcal, kcalGoal: kcalGoal)
    }

    /// The reminder as it was published (for a sent one).
    var reminder: Reminder {
        Reminder(
            user: user, date: date, message: ReminderRules.message(kcal: kcal, goal: kcalGoal), dueAt: dueAt, kcal: kcal, kcalGoal: kcalGoal)
    }

    /// The newest local date in `user`'s delivery log.
    static func lastHandledDate(of user: String, _ db: Database) throws -> LocalDate? {
        try filter(Columns.user == user).select(max(Columns.date), as: String.self).fetchOne(db).flatMap(LocalDate.init)
    }
}
