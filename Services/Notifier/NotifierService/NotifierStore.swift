public import Foundation
import GRDB
public import SousRuntime
public import SousSchema
import SousWire

/// The profile fields the notifier keeps per user (the last ones the planner gave).
public struct ReminderProfile: Equatable, Sendable {
    public var timeZone: String
    public var reminderHour: Int
    public var enabled: Bool
    /// When the notifier last read or was told this profile (its clock).
    public var fetchedAt: Date

    public init(timeZone: String, reminderHour: Int, enabled: Bool, fetchedAt: Date) {
        self.timeZone = timeZone
        self.reminderHour = reminderHour
        self.enabled = enabled
        self.fetchedAt = fetchedAt
    }

    public init(_ profile: CookingProfile, fetchedAt: Date) {
        self.init(timeZone: profile.timeZone, reminderHour: profile.reminderHour, enabled: profile.remindersEnabled, fetchedAt: fetchedAt)
    }

    /// The planner's defaults, for a user whose profile could never be read.
    public static func defaults(at instant: Date) -> ReminderProfile {
        ReminderProfile(CookingProfile.defaults, fetchedAt: instant)
    }
}

/// A pending reminder: one user's next due instant.
public struct ScheduledReminder: Equatable, Sendable {
    public var user: String
    public var date: LocalDate
    public var dueAt: Date

    public init(user: String, date: LocalDate, dueAt: Date) {
        self.user = user
        self.date = date
        self.dueAt = dueAt
    }
}

/// What the scheduler decided for one due reminder, to be recorded in the delivery log.
public struct ReminderDecision: Equatable, Sendable {
    public var reminder: ScheduledReminder
    public var outcome: ReminderOutcome
    public var reason: String?
    public var kcal: Double?
    public var kcalGoal: Double?

    public init(reminder: ScheduledReminder, outcome: ReminderOutcome, reason: String? = nil, kcal: Double? = nil, kcalGoal: Double? = nil) {
        self.reminder = reminder
        self.outcome = outcome
        self.reason = reason
        self.kcal = kcal
        self.kcalGoal = kcalGoal
    }
}

/// The notifier's data: cached profiles, the schedule (indexed by due time) and the delivery
/// log. Every write is one transaction.
public final class NotifierStore: Sendable {
    public let database: SousDatabase
    private var writer: SousDatabase { database }

    public init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Profiles

    public func profile(of user: String) throws -> ReminderProfile? {
        try writer.read { db in try Self.profile(of: user, db) }
    }

    public func saveProfile(_ profile: ReminderProfile, of user: String) throws {
        try writer.write { db in try Self.saveProfile(profile, of: user, db) }
    }

    // MARK: Schedule

    /// Schedules (or moves) `user`'s reminder for activity at `now` under `profile`; cancels it
    /// when the profile opts out. Returns the pending reminder afterwards and whether it changed.
    @discardableResult
    public func reschedule(_ user: String, profile: ReminderProfile, now: Date) throws -> (pending: ScheduledReminder?, changed: Bool) {
        try writer.write { db in
            let existing = try Self.schedule(of: user, db)
            guard profile.enabled else {
                try db.execute(sql: "DELETE FROM schedule WHERE user = ?", arguments: [user])
                return (nil, existing != nil)
            }
            let lastHandled = try String.fetchOne(db, sql: "SELECT max(local_date) FROM delivery WHERE user = ?", arguments: [user]).flatMap(
                LocalDate.init)
            let next = ReminderRules.nextDue(
                after: now, timeZone: ReminderRules.timeZone(named: profile.timeZone), hour: profile.reminderHour, lastHandled: lastHandled
            )
            let pending = ScheduledReminder(user: user, date: next.date, dueAt: next.dueAt)
            guard pending != existing else { return (pending, false) }
            try db.execute(
                sql:
                    "INSERT INTO schedule (user, local_date, due_at) VALUES (?, ?, ?) ON CONFLICT (user) DO UPDATE SET local_date = excluded.local_date, due_at = excluded.due_at",
                arguments: [user, pending.date.description, pending.dueAt.timeIntervalSince1970]
            )
            return (pending, true)
        }
    }

    /// Applies a profile the planner announced: caches it and, if the user has a pending
    /// reminder, moves it to the new zone and hour (or cancels it on opt-out). A user without a
    /// pending reminder stays unscheduled: only activity schedules.
    @discardableResult
    public func applyProfileChange(_ user: String, profile: ReminderProfile, now: Date) throws -> Bool {
        try writer.write { db in
            try Self.saveProfile(profile, of: user, db)
            guard try Self.schedule(of: user, db) != nil else { return false }
            if !profile.enabled {
                try db.execute(sql: "DELETE FROM schedule WHERE user = ?", arguments: [user])
                return true
            }
            let lastHandled = try String.fetchOne(db, sql: "SELECT max(local_date) FROM delivery WHERE user = ?", arguments: [user]).flatMap(
                LocalDate.init)
            let next = ReminderRules.nextDue(
                after: now, timeZone: ReminderRules.timeZone(named: profile.timeZone), hour: profile.reminderHour, lastHandled: lastHandled
            )
            try db.execute(
                sql: "UPDATE schedule SET local_date = ?, due_at = ? WHERE user = ?",
                arguments: [next.date.description, next.dueAt.timeIntervalSince1970, user]
            )
            return true
        }
    }

    public func pending(of user: String) throws -> ScheduledReminder? {
        try writer.read { db in try Self.schedule(of: user, db) }
    }

    /// The earliest due instant of any pending reminder.
    public func earliestDue() throws -> Date? {
        try writer.read { db in
            try Double.fetchOne(db.cachedStatement(sql: "SELECT due_at FROM schedule ORDER BY due_at LIMIT 1")).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Up to `limit` reminders due at or before `now`, earliest first (walks the due index).
    public func due(through now: Date, limit: Int) throws -> [ScheduledReminder] {
        try writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT user, local_date, due_at FROM schedule WHERE due_at <= ? ORDER BY due_at LIMIT ?"),
                arguments: [now.timeIntervalSince1970, limit]
            ).map(Self.scheduled(row:))
        }
    }

    /// Records a batch of outcomes in one transaction and takes the reminders off the schedule.
    /// Returns the decisions actually recorded: one whose user-day is already in the log (a
    /// reminder handled before) is left out, so it can never be sent twice.
    public func record(_ decisions: [ReminderDecision], at now: Date) throws -> [ReminderDecision] {
        try writer.write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO delivery (user, local_date, due_at, outcome, recorded_at, reason, kcal, kcal_goal)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user, local_date) DO NOTHING
                    """)
            // Only the reminder that was due: activity may have moved it on meanwhile.
            let remove = try db.cachedStatement(sql: "DELETE FROM schedule WHERE user = ? AND due_at = ?")
            var recorded: [ReminderDecision] = []
            recorded.reserveCapacity(decisions.count)
            for decision in decisions {
                let reminder = decision.reminder
                try insert.execute(arguments: [
                    reminder.user, reminder.date.description, reminder.dueAt.timeIntervalSince1970, decision.outcome.rawValue,
                    now.timeIntervalSince1970, decision.reason, decision.kcal, decision.kcalGoal,
                ])
                if db.changesCount == 1 { recorded.append(decision) }
                try remove.execute(arguments: [reminder.user, reminder.dueAt.timeIntervalSince1970])
            }
            return recorded
        }
    }

    /// Adds pending reminders (and their profiles) in one transaction, bypassing activity: for
    /// the benchmark and maintenance tools.
    public func bulkSchedule(_ reminders: [ScheduledReminder], profile: ReminderProfile) throws {
        try writer.write { db in
            let schedule = try db.cachedStatement(
                sql: """
                    INSERT INTO schedule (user, local_date, due_at) VALUES (?, ?, ?)
                    ON CONFLICT (user) DO UPDATE SET local_date = excluded.local_date, due_at = excluded.due_at
                    """)
            for reminder in reminders {
                try Self.saveProfile(profile, of: reminder.user, db)
                try schedule.execute(arguments: [reminder.user, reminder.date.description, reminder.dueAt.timeIntervalSince1970])
            }
        }
    }

    public func scheduledCount() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM schedule") ?? 0 }
    }

    // MARK: Delivery log

    /// The newest `limit` entries of `user`'s delivery log, newest date first.
    public func log(of user: String, limit: Int) throws -> [ReminderLogEntry] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT local_date, outcome, due_at, recorded_at, reason, kcal, kcal_goal FROM delivery
                    WHERE user = ? ORDER BY local_date DESC LIMIT ?
                    """, arguments: [user, limit]
            ).map { row in
                ReminderLogEntry(
                    date: LocalDate(row["local_date"] as String)!,
                    outcome: ReminderOutcome(rawValue: row["outcome"]) ?? .sent,
                    dueAt: Date(timeIntervalSince1970: row["due_at"]),
                    recordedAt: Date(timeIntervalSince1970: row["recorded_at"]),
                    reason: row["reason"],
                    kcal: row["kcal"],
                    kcalGoal: row["kcal_goal"]
                )
            }
        }
    }

    /// `user`'s reminders sent after `after` (recording time), oldest first, with the cursor to
    /// continue from.
    public func sentReminders(of user: String, after: Date, limit: Int = 500) throws -> (reminders: [Reminder], cursor: Date) {
        try writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT local_date, due_at, recorded_at, kcal, kcal_goal FROM delivery
                    WHERE user = ? AND outcome = 'sent' AND recorded_at > ? ORDER BY recorded_at LIMIT ?
                    """, arguments: [user, after.timeIntervalSince1970, limit])
            let reminders = rows.compactMap { row -> Reminder? in
                guard let date = LocalDate(row["local_date"] as String) else { return nil }
                let kcal: Double? = row["kcal"]
                let goal: Double? = row["kcal_goal"]
                return Reminder(
                    user: user, date: date, message: ReminderRules.message(kcal: kcal, goal: goal), dueAt: Date(timeIntervalSince1970: row["due_at"]),
                    kcal: kcal, kcalGoal: goal
                )
            }
            let cursor = rows.last.map { Date(timeIntervalSince1970: $0["recorded_at"]) } ?? after
            return (reminders, cursor)
        }
    }

    /// The newest local date with a delivery log entry for `user`.
    public func lastHandledDate(of user: String) throws -> LocalDate? {
        try writer.read { db in
            try String.fetchOne(db, sql: "SELECT max(local_date) FROM delivery WHERE user = ?", arguments: [user]).flatMap(LocalDate.init)
        }
    }

    // MARK: Rows

    private static func profile(of user: String, _ db: Database) throws -> ReminderProfile? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT time_zone, reminder_hour, enabled, fetched_at FROM profile WHERE user = ?"), arguments: [user]
        ).map { row in
            ReminderProfile(
                timeZone: row["time_zone"], reminderHour: row["reminder_hour"], enabled: row["enabled"],
                fetchedAt: Date(timeIntervalSince1970: row["fetched_at"]))
        }
    }

    private static func saveProfile(_ profile: ReminderProfile, of user: String, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO profile (user, time_zone, reminder_hour, enabled, fetched_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user) DO UPDATE SET time_zone = excluded.time_zone, reminder_hour = excluded.reminder_hour,
                    enabled = excluded.enabled, fetched_at = excluded.fetched_at
                """
        ).execute(arguments: [user, profile.timeZone, profile.reminderHour, profile.enabled, profile.fetchedAt.timeIntervalSince1970])
    }

    private static func schedule(of user: String, _ db: Database) throws -> ScheduledReminder? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT user, local_date, due_at FROM schedule WHERE user = ?"), arguments: [user]).map(
            scheduled(row:))
    }

    private static func scheduled(row: Row) -> ScheduledReminder {
        ScheduledReminder(user: row["user"], date: LocalDate(row["local_date"] as String)!, dueAt: Date(timeIntervalSince1970: row["due_at"]))
    }
}
