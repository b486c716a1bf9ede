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
    let deliveries: ReminderDeliveries

    /// `webURL`: the web app's address, for the link a reminder carries to its channels.
    public init(database: SousDatabase, webURL: String? = nil) {
        self.database = database
        deliveries = ReminderDeliveries(webURL: webURL)
    }

    // MARK: Profiles

    public func profile(of user: String) throws -> ReminderProfile? {
        try database.read { session in try Self.profile(of: user, session) }
    }

    public func saveProfile(_ profile: ReminderProfile, of user: String) throws {
        try database.write { session in try Self.saveProfile(profile, of: user, session) }
    }

    // MARK: Schedule

    /// Schedules (or moves) `user`'s reminder for activity at `now` under `profile`; cancels it
    /// when the profile opts out. Returns the pending reminder afterwards and whether it changed.
    @discardableResult
    public func reschedule(
        _ user: String, profile: ReminderProfile, activeAt: Date, now: Date
    ) throws -> (
        pending: ScheduledReminder?, changed: Bool
    ) {
        try database.write { session in
            let existing = try Self.schedule(of: user, session)
            // Activity older than the reminder last handled was already answered by it: a late
            // or repeated event (a subscriber catching up, another replica's copy) must not
            // schedule tomorrow's for a user who has not been back since.
            if let handled = try DeliveryRecord.lastHandledDueAt(of: user, session), activeAt < handled {
                return (existing, false)
            }
            guard profile.enabled else {
                try session.execute(Self.unschedule, [user])
                return (nil, existing != nil)
            }
            let pending = try Self.nextReminder(of: user, profile: profile, now: now, session)
            guard pending != existing else { return (pending, false) }
            try session.insert(ScheduleRecord(pending), onConflict: .replace)
            return (pending, true)
        }
    }

    /// Applies a profile the planner announced: caches it and, if the user has a pending
    /// reminder, moves it to the new zone and hour (or cancels it on opt-out). A user without a
    /// pending reminder stays unscheduled: only activity schedules.
    @discardableResult
    public func applyProfileChange(_ user: String, profile: ReminderProfile, now: Date) throws -> Bool {
        try database.write { session in
            try Self.saveProfile(profile, of: user, session)
            guard try Self.schedule(of: user, session) != nil else { return false }
            if !profile.enabled {
                try session.execute(Self.unschedule, [user])
                return true
            }
            try session.insert(ScheduleRecord(try Self.nextReminder(of: user, profile: profile, now: now, session)), onConflict: .replace)
            return true
        }
    }

    public func pending(of user: String) throws -> ScheduledReminder? {
        try database.read { session in try Self.schedule(of: user, session) }
    }

    /// When the scheduler should look again: the earliest due time of a pending reminder, or the
    /// end of another replica's claim on one (the scheduler asks after every pass; the
    /// statement stays prepared, docs/BENCHMARKS.md, next-due lookup).
    public func earliestDue() throws -> Date? {
        try database.read { session in
            try session.value(Double.self, "SELECT wake_at FROM schedule ORDER BY wake_at LIMIT 1").map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Up to `limit` reminders due at or before `now` and claimed by no one (or by a replica
    /// whose claim ran out), earliest first, claimed for this replica until `until`.
    ///
    /// On PostgreSQL replicas share the schedule: the rows are locked as they are taken and
    /// others skip them (`FOR UPDATE SKIP LOCKED`), so each batch goes to one replica, and a claim
    /// moves the row's wake time to its end, so a replica that dies mid-batch leaves the batch to
    /// the others when the claim runs out. The delivery log's key still decides: a reminder whose
    /// user-day is logged is never sent again, whoever claims it. On SQLite one process handles
    /// every reminder, so nothing is claimed (the walk stays a read).
    public func claimDue(through now: Date, limit: Int, until: Date) throws -> [ScheduledReminder] {
        switch database.engine {
        case .sqlite:
            return try database.read { session in
                try session.fetchAll(
                    ScheduleRecord.self, "SELECT * FROM schedule WHERE wake_at <= ? ORDER BY wake_at LIMIT ?", [now.timeIntervalSince1970, limit]
                )
                .map(\.reminder)
            }
        case .postgres:
            return try database.claiming { session in
                try session.fetchAll(
                    ScheduleRecord.self,
                    """
                    UPDATE schedule SET wake_at = ?
                    WHERE "user" IN (SELECT "user" FROM schedule WHERE wake_at <= ? ORDER BY wake_at LIMIT ? FOR UPDATE SKIP LOCKED)
                    RETURNING *
                    """,
                    [until.timeIntervalSince1970, now.timeIntervalSince1970, limit]
                )
                .map(\.reminder)
                .sorted { ($0.dueAt, $0.user) < ($1.dueAt, $1.user) }
            }
        }
    }

    /// Records a batch of outcomes in one transaction and takes the reminders off the schedule;
    /// queues, in the same transaction, a delivery per sent reminder and enabled channel.
    /// Returns the decisions actually recorded: one whose user-day is already in the log (a
    /// reminder handled before) is left out, so it can never be sent twice.
    public func record(_ decisions: [ReminderDecision], at now: Date) throws -> [ReminderDecision] {
        // A user's second decision in one call would share the first one's row: only the first
        // can be recorded.
        var users = Set<String>()
        let decisions = decisions.filter { users.insert($0.reminder.user).inserted }
        return try database.write { session in
            var recorded: [ReminderDecision] = []
            recorded.reserveCapacity(decisions.count)
            // A hundred rows per statement: a statement per row cost more than the rows.
            var start = 0
            while start < decisions.count {
                let chunk = decisions[start..<min(start + Self.rowsPerStatement, decisions.count)]
                start += chunk.count
                // The log's key is the user-day and no other constraint can fail (the outcome is one
                // the CHECK allows, every NOT NULL column has a value): the insert skips only a repeat,
                // and returns the users whose rows it wrote.
                let inserted = Set(
                    try session.values(
                        String.self, chunk.count == Self.rowsPerStatement ? Self.insertFullChunk : Self.insertDeliveries(chunk.count),
                        chunk.flatMap { DeliveryRecord($0, recordedAt: now).values }))
                let written = chunk.filter { inserted.contains($0.reminder.user) }
                recorded += written
                let sent = written.filter { $0.outcome == .sent }
                if !sent.isEmpty {
                    try session.execute(
                        #"INSERT INTO outbox ("user", local_date) VALUES "# + Array(repeating: "(?, ?)", count: sent.count).joined(separator: ", "),
                        sent.flatMap { [$0.reminder.user, $0.reminder.date.description] as SQLArguments })
                    try Outbox.enqueue(try deliveries.messages(for: sent, now: now, session), now: now, session)
                }
                // Only the reminder that was due: activity may have moved it on meanwhile.
                try session.execute(
                    chunk.count == Self.rowsPerStatement ? Self.deleteFullChunk : Self.deleteDue(chunk.count),
                    chunk.flatMap { [$0.reminder.user, $0.reminder.dueAt.timeIntervalSince1970] as SQLArguments })
            }
            return recorded
        }
    }

    /// Sent reminders recorded but not yet published (a notifier stopped in between), oldest
    /// first, at most `limit`.
    public func unpublished(limit: Int) throws -> [Reminder] {
        try database.read { session in
            try session.fetchAll(
                DeliveryRecord.self,
                """
                SELECT d.* FROM outbox o JOIN delivery d ON d."user" = o."user" AND d.local_date = o.local_date
                ORDER BY d.recorded_at, d."user" LIMIT ?
                """, [limit]
            ).map(\.reminder)
        }
    }

    /// Takes published reminders out of the outbox.
    public func published(_ reminders: [Reminder]) throws {
        guard !reminders.isEmpty else { return }
        try database.write { session in
            var start = 0
            while start < reminders.count {
                let chunk = reminders[start..<min(start + Self.rowsPerStatement, reminders.count)]
                start += chunk.count
                try session.execute(
                    #"DELETE FROM outbox WHERE "#
                        + Array(repeating: #"("user" = ? AND local_date = ?)"#, count: chunk.count).joined(separator: " OR "),
                    chunk.flatMap { [$0.user, $0.date.description] as SQLArguments })
            }
        }
    }

    static let rowsPerStatement = 100
    private static let insertFullChunk = insertDeliveries(rowsPerStatement)
    private static let deleteFullChunk = deleteDue(rowsPerStatement)

    /// `count` delivery rows at once, each skipped if its user-day is logged; returns the users
    /// of the rows written.
    static func insertDeliveries(_ count: Int) -> String {
        let placeholders = "(" + Array(repeating: "?", count: DeliveryRecord.columnNames.count).joined(separator: ", ") + ")"
        return """
            INSERT INTO delivery (\(DeliveryRecord.columnNames.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))
            VALUES \(Array(repeating: placeholders, count: count).joined(separator: ", "))
            ON CONFLICT ("user", local_date) DO NOTHING RETURNING "user"
            """
    }

    /// Takes `count` (user, due instant) reminders off the schedule.
    static func deleteDue(_ count: Int) -> String {
        #"DELETE FROM schedule WHERE "# + Array(repeating: #"("user" = ? AND due_at = ?)"#, count: count).joined(separator: " OR ")
    }

    /// Adds pending reminders (and their profiles) in one transaction, bypassing activity: for
    /// the benchmark and maintenance tools.
    public func bulkSchedule(_ reminders: [ScheduledReminder], profile: ReminderProfile) throws {
        try database.write { session in
            for reminder in reminders {
                try session.insert(ProfileRecord(user: reminder.user, profile: profile), onConflict: .replace)
                try session.insert(ScheduleRecord(reminder), onConflict: .replace)
            }
        }
    }

    public func scheduledCount() throws -> Int {
        try database.read { session in try session.value(Int.self, "SELECT COUNT(*) FROM schedule") ?? 0 }
    }

    // MARK: Delivery log

    /// The newest `limit` entries of `user`'s delivery log, newest date first.
    public func log(of user: String, limit: Int) throws -> [ReminderLogEntry] {
        try database.read { session in
            try session.fetchAll(DeliveryRecord.self, #"SELECT * FROM delivery WHERE "user" = ? ORDER BY local_date DESC LIMIT ?"#, [user, limit])
                .map(\.logEntry)
        }
    }

    /// `user`'s reminders sent after `after` (recording time), oldest first, with the cursor to
    /// continue from.
    public func sentReminders(of user: String, after: Date, limit: Int = 500) throws -> (reminders: [Reminder], cursor: Date) {
        try database.read { session in
            let records = try session.fetchAll(
                DeliveryRecord.self,
                #"SELECT * FROM delivery WHERE "user" = ? AND outcome = ? AND recorded_at > ? ORDER BY recorded_at LIMIT ?"#,
                [user, ReminderOutcome.sent.rawValue, after.timeIntervalSince1970, limit])
            return (records.map(\.reminder), records.last?.recordedAt ?? after)
        }
    }

    /// The newest local date with a delivery log entry for `user`.
    public func lastHandledDate(of user: String) throws -> LocalDate? {
        try database.read { session in try DeliveryRecord.lastHandledDate(of: user, session) }
    }

    // MARK: Rows

    private static let unschedule = #"DELETE FROM schedule WHERE "user" = ?"#

    private static func profile(of user: String, _ session: any SQLSession) throws -> ReminderProfile? {
        try session.fetchOne(ProfileRecord.self, #"SELECT * FROM profile WHERE "user" = ?"#, [user])?.profile
    }

    private static func saveProfile(_ profile: ReminderProfile, of user: String, _ session: any SQLSession) throws {
        try session.insert(ProfileRecord(user: user, profile: profile), onConflict: .replace)
    }

    private static func schedule(of user: String, _ session: any SQLSession) throws -> ScheduledReminder? {
        try session.fetchOne(ScheduleRecord.self, #"SELECT * FROM schedule WHERE "user" = ?"#, [user])?.reminder
    }

    /// `user`'s next reminder under `profile` after `now`, past the last day already handled.
    private static func nextReminder(of user: String, profile: ReminderProfile, now: Date, _ session: any SQLSession) throws -> ScheduledReminder {
        let next = ReminderRules.nextDue(
            after: now, timeZone: ReminderRules.timeZone(named: profile.timeZone), hour: profile.reminderHour,
            lastHandled: try DeliveryRecord.lastHandledDate(of: user, session)
        )
        return ScheduledReminder(user: user, date: next.date, dueAt: next.dueAt)
    }
}
