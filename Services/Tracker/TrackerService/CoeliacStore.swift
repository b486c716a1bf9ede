import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// The coeliac diary's reads and writes over the tracker's database; each write is one
/// transaction, and every row is scoped by user (another user's entry is simply not found).
final class CoeliacStore: Sendable {
    let database: SousDatabase
    private var writer: SousDatabase { database }

    init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Journal

    /// Adds a validated entry (with its photo, if any).
    func addEntry(_ entry: ValidJournalEntry, user: String, now: Date) throws -> JournalEntry {
        try writer.write { db in
            try TrackerQuotas.journalEntriesPerDay.check(
                current: Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM coeliac_journal_entry WHERE user = ? AND date = ?", arguments: [user, entry.date.description]) ?? 0
            )
            if let photo = entry.photo {
                try TrackerQuotas.photoBytes.check(
                    current: Int.fetchOne(
                        db, sql: "SELECT COALESCE(SUM(photo_bytes), 0) FROM coeliac_journal_entry WHERE user = ?", arguments: [user]) ?? 0,
                    adding: photo.count
                )
            }
            var record = JournalEntryRecord(
                user: user,
                entry: JournalEntry(
                    id: 0, date: entry.date, time: entry.time, title: entry.title, description: entry.description, hasPhoto: entry.photo != nil,
                    photoBytes: entry.photo?.count ?? 0, createdAt: now, updatedAt: now))
            try record.insert(db)
            let id = record.entry.id
            if let photo = entry.photo {
                try db.cachedStatement(sql: "INSERT INTO coeliac_journal_photo (entry_id, bytes) VALUES (?, ?)").execute(arguments: [id, photo])
            }
            return try Self.entry(id, user: user, db)
        }
    }

    /// Entries from `from` to `to` (both included), by date, time and id.
    func entries(user: String, from: LocalDate, to: LocalDate) throws -> [JournalEntry] {
        try writer.read { db in
            typealias Columns = JournalEntryRecord.Columns
            return try JournalEntryRecord.filter(Columns.user == user && (from.description...to.description).contains(Columns.date))
                .order(Columns.date, Columns.time, Columns.id).fetchAll(db).map(\.entry)
        }
    }

    /// One entry with its photo's bytes.
    func entryDetail(_ id: Int64, user: String) throws -> JournalEntryDetail {
        try writer.read { db in
            let entry = try Self.entry(id, user: user, db)
            let photo = try Data.fetchOne(db.cachedStatement(sql: "SELECT bytes FROM coeliac_journal_photo WHERE entry_id = ?"), arguments: [id])
            return JournalEntryDetail(entry: entry, photo: photo)
        }
    }

    /// Applies validated changes; returns the entry before and after.
    func edit(_ id: Int64, changes: ValidJournalEdit, user: String, now: Date) throws -> (before: JournalEntry, after: JournalEntry) {
        try writer.write { db in
            let before = try Self.entry(id, user: user, db)
            var after = before
            if let title = changes.title { after.title = title }
            if let description = changes.description { after.description = description.isEmpty ? nil : description }
            if let date = changes.date { after.date = date }
            if let time = changes.time { after.time = time }
            switch changes.photo {
            case .keep:
                break
            case .remove:
                try db.cachedStatement(sql: "DELETE FROM coeliac_journal_photo WHERE entry_id = ?").execute(arguments: [id])
                after.photoBytes = 0
            case .replace(let bytes):
                try TrackerQuotas.photoBytes.check(
                    current: (Int.fetchOne(
                        db, sql: "SELECT COALESCE(SUM(photo_bytes), 0) FROM coeliac_journal_entry WHERE user = ?", arguments: [user]) ?? 0)
                        - before.photoBytes,
                    adding: bytes.count
                )
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO coeliac_journal_photo (entry_id, bytes) VALUES (?, ?)").execute(arguments: [
                    id, bytes,
                ])
                after.photoBytes = bytes.count
            }
            after.hasPhoto = after.photoBytes > 0
            after.updatedAt = now
            try JournalEntryRecord(user: user, entry: after).update(db)
            return (before, try Self.entry(id, user: user, db))
        }
    }

    /// Deletes an entry and its photo; returns what was deleted.
    func deleteEntry(_ id: Int64, user: String) throws -> JournalEntry {
        try writer.write { db in
            let entry = try Self.entry(id, user: user, db)
            try JournalEntryRecord(user: user, entry: entry).delete(db)
            return entry
        }
    }

    private static func entry(_ id: Int64, user: String, _ db: Database) throws -> JournalEntry {
        guard let record = try JournalEntryRecord.owned(id, by: user).fetchOne(db) else {
            throw ServiceError.notFound("no journal entry \(id)", field: "id")
        }
        return record.entry
    }

    // MARK: Gluten tests

    /// Records or changes the prediction of `date`; a day with a result is a conflict.
    func predict(_ date: LocalDate, expectsGluten: Bool, user: String, now: Date) throws -> GlutenDay {
        try writer.write { db in
            if let existing = try Self.day(date, user: user, db), existing.positive != nil {
                throw ServiceError.conflict("\(date) already has a test result; its prediction can no longer change", field: "date")
            }
            try db.execute(
                sql: """
                    INSERT INTO coeliac_gluten_day (user, date, expects_gluten, predicted_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user, date) DO UPDATE SET expects_gluten = excluded.expects_gluten, predicted_at = excluded.predicted_at
                    """,
                arguments: [user, date.description, expectsGluten, now.timeIntervalSince1970]
            )
            return GlutenDay(date: date, expectsGluten: expectsGluten, positive: nil)
        }
    }

    /// Records the result of `date` (once, unless `replace` corrects it), and in the same
    /// transaction the badges the new history reaches for the first time.
    func recordResult(_ date: LocalDate, positive: Bool, replace: Bool, user: String, now: Date) throws -> GlutenResultRecorded {
        try writer.write { db in
            let existing = try Self.day(date, user: user, db)
            if existing?.positive != nil, !replace {
                throw ServiceError.conflict("\(date) already has a test result; send replace: true to correct it", field: "date")
            }
            try db.execute(
                sql: """
                    INSERT INTO coeliac_gluten_day (user, date, positive, result_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user, date) DO UPDATE SET positive = excluded.positive, result_at = excluded.result_at
                    """,
                arguments: [user, date.description, positive, now.timeIntervalSince1970]
            )
            let history = try Self.history(user: user, from: nil, to: nil, db)
            let held = Set(try Self.badges(user: user, db).map(\.streak))
            let newBadges = GlutenScoring.badgesReached(history).filter { !held.contains($0.streak) }
            for badge in newBadges {
                try GlutenBadgeRecord(user: user, badge: badge, earnedAt: now).insert(db)
            }
            return GlutenResultRecorded(
                day: GlutenDay(date: date, expectsGluten: existing?.expectsGluten, positive: positive),
                currentStreak: GlutenScoring.currentStreak(history),
                newBadges: newBadges
            )
        }
    }

    /// Withdraws the result of `date`; the day stays if it has a prediction. Badges are kept.
    func deleteResult(_ date: LocalDate, user: String) throws -> GlutenDay {
        try writer.write { db in
            guard let existing = try Self.day(date, user: user, db), existing.positive != nil else {
                throw ServiceError.notFound("\(date) has no test result", field: "date")
            }
            if existing.expectsGluten == nil {
                try db.cachedStatement(sql: "DELETE FROM coeliac_gluten_day WHERE user = ? AND date = ?").execute(arguments: [user, date.description])
            } else {
                try db.execute(
                    sql: "UPDATE coeliac_gluten_day SET positive = NULL, result_at = NULL WHERE user = ? AND date = ?",
                    arguments: [user, date.description]
                )
            }
            return GlutenDay(date: date, expectsGluten: existing.expectsGluten, positive: nil)
        }
    }

    /// The user's whole history and earned badges, read in one snapshot.
    func statsInputs(user: String) throws -> (history: [GlutenDay], badges: [GlutenBadge]) {
        try writer.read { db in (try Self.history(user: user, from: nil, to: nil, db), try Self.badges(user: user, db)) }
    }

    /// Days with a prediction or result between `from` and `to` (both included).
    func history(user: String, from: LocalDate, to: LocalDate) throws -> [GlutenDay] {
        try writer.read { db in try Self.history(user: user, from: from, to: to, db) }
    }

    private static func day(_ date: LocalDate, user: String, _ db: Database) throws -> GlutenDay? {
        try GlutenDayRecord.filter(GlutenDayRecord.Columns.user == user && GlutenDayRecord.Columns.date == date.description).fetchOne(db)?.day
    }

    private static func history(user: String, from: LocalDate?, to: LocalDate?, _ db: Database) throws -> [GlutenDay] {
        typealias Columns = GlutenDayRecord.Columns
        var days = GlutenDayRecord.filter(Columns.user == user)
        if let from { days = days.filter(Columns.date >= from.description) }
        if let to { days = days.filter(Columns.date <= to.description) }
        return try days.order(Columns.date).fetchAll(db).map(\.day)
    }

    private static func badges(user: String, _ db: Database) throws -> [GlutenBadge] {
        try GlutenBadgeRecord.filter(GlutenBadgeRecord.Columns.user == user).order(GlutenBadgeRecord.Columns.streak).fetchAll(db).map(\.badge)
    }
}
