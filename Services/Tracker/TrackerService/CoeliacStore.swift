import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// The coeliac diary's reads and writes over the tracker's database; each write is one
/// transaction, and every row is scoped by user (another user's entry is simply not found).
final class CoeliacStore: Sendable {
    let database: SousDatabase

    init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Journal

    /// Adds a validated entry (with its photo, if any).
    func addEntry(_ entry: ValidJournalEntry, user: String, now: Date) throws -> JournalEntry {
        try database.write { session in
            try TrackerQuotas.journalEntriesPerDay.check(
                current: session.value(
                    Int.self, #"SELECT COUNT(*) FROM coeliac_journal_entry WHERE "user" = ? AND date = ?"#, [user, entry.date.description]) ?? 0
            )
            if let photo = entry.photo {
                try TrackerQuotas.photoBytes.check(current: Self.photoBytes(of: user, session), adding: photo.count)
            }
            let id = try JournalEntryRecord.insert(
                JournalEntry(
                    id: 0, date: entry.date, time: entry.time, title: entry.title, description: entry.description, hasPhoto: entry.photo != nil,
                    photoBytes: entry.photo?.count ?? 0, createdAt: now, updatedAt: now),
                user: user, session)
            if let photo = entry.photo {
                try session.execute("INSERT INTO coeliac_journal_photo (entry_id, bytes) VALUES (?, ?)", [id, photo])
            }
            return try Self.entry(id, user: user, session)
        }
    }

    /// Entries from `from` to `to` (both included), by date, time and id.
    func entries(user: String, from: LocalDate, to: LocalDate) throws -> [JournalEntry] {
        try database.read { session in
            try session.fetchAll(
                JournalEntryRecord.self,
                #"SELECT * FROM coeliac_journal_entry WHERE "user" = ? AND date BETWEEN ? AND ? ORDER BY date, time, id"#,
                [user, from.description, to.description]
            ).map(\.entry)
        }
    }

    /// One entry with its photo's bytes.
    func entryDetail(_ id: Int64, user: String) throws -> JournalEntryDetail {
        try database.read { session in
            let entry = try Self.entry(id, user: user, session)
            let photo = try session.value(Data.self, "SELECT bytes FROM coeliac_journal_photo WHERE entry_id = ?", [id])
            return JournalEntryDetail(entry: entry, photo: photo)
        }
    }

    /// Applies validated changes; returns the entry before and after.
    func edit(_ id: Int64, changes: ValidJournalEdit, user: String, now: Date) throws -> (before: JournalEntry, after: JournalEntry) {
        try database.write { session in
            let before = try Self.entry(id, user: user, session)
            var after = before
            if let title = changes.title { after.title = title }
            if let description = changes.description { after.description = description.isEmpty ? nil : description }
            if let date = changes.date { after.date = date }
            if let time = changes.time { after.time = time }
            switch changes.photo {
            case .keep:
                break
            case .remove:
                try session.execute("DELETE FROM coeliac_journal_photo WHERE entry_id = ?", [id])
                after.photoBytes = 0
            case .replace(let bytes):
                try TrackerQuotas.photoBytes.check(current: Self.photoBytes(of: user, session) - before.photoBytes, adding: bytes.count)
                try session.execute(
                    "INSERT INTO coeliac_journal_photo (entry_id, bytes) VALUES (?, ?) ON CONFLICT (entry_id) DO UPDATE SET bytes = excluded.bytes",
                    [id, bytes])
                after.photoBytes = bytes.count
            }
            after.hasPhoto = after.photoBytes > 0
            after.updatedAt = now
            try JournalEntryRecord.update(after, user: user, session)
            return (before, try Self.entry(id, user: user, session))
        }
    }

    /// Deletes an entry and its photo; returns what was deleted.
    func deleteEntry(_ id: Int64, user: String) throws -> JournalEntry {
        try database.write { session in
            let entry = try Self.entry(id, user: user, session)
            try session.execute(#"DELETE FROM coeliac_journal_entry WHERE id = ? AND "user" = ?"#, [id, user])
            return entry
        }
    }

    private static func entry(_ id: Int64, user: String, _ session: any SQLSession) throws -> JournalEntry {
        guard
            let record = try session.fetchOne(
                JournalEntryRecord.self, #"SELECT * FROM coeliac_journal_entry WHERE id = ? AND "user" = ?"#, [id, user])
        else {
            throw ServiceError.notFound("no journal entry \(id)", field: "id")
        }
        return record.entry
    }

    /// The bytes of all of `user`'s photos.
    private static func photoBytes(of user: String, _ session: any SQLSession) throws -> Int {
        try session.value(Int.self, #"SELECT CAST(COALESCE(SUM(photo_bytes), 0) AS BIGINT) FROM coeliac_journal_entry WHERE "user" = ?"#, [user])
            ?? 0
    }

    // MARK: Gluten tests

    /// Records or changes the prediction of `date`; a day with a result is a conflict.
    func predict(_ date: LocalDate, expectsGluten: Bool, user: String, now: Date) throws -> GlutenDay {
        try database.write { session in
            if let existing = try Self.day(date, user: user, session), existing.positive != nil {
                throw ServiceError.conflict("\(date) already has a test result; its prediction can no longer change", field: "date")
            }
            try session.execute(
                """
                INSERT INTO coeliac_gluten_day ("user", date, expects_gluten, predicted_at) VALUES (?, ?, ?, ?)
                ON CONFLICT ("user", date) DO UPDATE SET expects_gluten = excluded.expects_gluten, predicted_at = excluded.predicted_at
                """,
                [user, date.description, expectsGluten, now.timeIntervalSince1970]
            )
            return GlutenDay(date: date, expectsGluten: expectsGluten, positive: nil)
        }
    }

    /// Records the result of `date` (once, unless `replace` corrects it), and in the same
    /// transaction the badges the new history reaches for the first time.
    func recordResult(_ date: LocalDate, positive: Bool, replace: Bool, user: String, now: Date) throws -> GlutenResultRecorded {
        try database.write { session in
            let existing = try Self.day(date, user: user, session)
            if existing?.positive != nil, !replace {
                throw ServiceError.conflict("\(date) already has a test result; send replace: true to correct it", field: "date")
            }
            try session.execute(
                """
                INSERT INTO coeliac_gluten_day ("user", date, positive, result_at) VALUES (?, ?, ?, ?)
                ON CONFLICT ("user", date) DO UPDATE SET positive = excluded.positive, result_at = excluded.result_at
                """,
                [user, date.description, positive, now.timeIntervalSince1970]
            )
            let history = try Self.history(user: user, from: nil, to: nil, session)
            let held = Set(try Self.badges(user: user, session).map(\.streak))
            let newBadges = GlutenScoring.badgesReached(history).filter { !held.contains($0.streak) }
            for badge in newBadges {
                try session.insert(GlutenBadgeRecord(user: user, badge: badge, earnedAt: now))
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
        try database.write { session in
            guard let existing = try Self.day(date, user: user, session), existing.positive != nil else {
                throw ServiceError.notFound("\(date) has no test result", field: "date")
            }
            if existing.expectsGluten == nil {
                try session.execute(#"DELETE FROM coeliac_gluten_day WHERE "user" = ? AND date = ?"#, [user, date.description])
            } else {
                try session.execute(
                    #"UPDATE coeliac_gluten_day SET positive = NULL, result_at = NULL WHERE "user" = ? AND date = ?"#, [user, date.description])
            }
            return GlutenDay(date: date, expectsGluten: existing.expectsGluten, positive: nil)
        }
    }

    /// The user's whole history and earned badges, read in one snapshot.
    func statsInputs(user: String) throws -> (history: [GlutenDay], badges: [GlutenBadge]) {
        try database.read { session in (try Self.history(user: user, from: nil, to: nil, session), try Self.badges(user: user, session)) }
    }

    /// Days with a prediction or result between `from` and `to` (both included).
    func history(user: String, from: LocalDate, to: LocalDate) throws -> [GlutenDay] {
        try database.read { session in try Self.history(user: user, from: from, to: to, session) }
    }

    private static func day(_ date: LocalDate, user: String, _ session: any SQLSession) throws -> GlutenDay? {
        try session.fetchOne(GlutenDayRecord.self, #"SELECT * FROM coeliac_gluten_day WHERE "user" = ? AND date = ?"#, [user, date.description])?
            .day
    }

    /// Days from `from` to `to` (either open), oldest first: '' and '~' bound what an open end
    /// leaves (dates are digits and dashes, which sort between them).
    private static func history(user: String, from: LocalDate?, to: LocalDate?, _ session: any SQLSession) throws -> [GlutenDay] {
        try session.fetchAll(
            GlutenDayRecord.self, #"SELECT * FROM coeliac_gluten_day WHERE "user" = ? AND date BETWEEN ? AND ? ORDER BY date"#,
            [user, from?.description ?? "", to?.description ?? "~"]
        ).map(\.day)
    }

    private static func badges(user: String, _ session: any SQLSession) throws -> [GlutenBadge] {
        try session.fetchAll(GlutenBadgeRecord.self, #"SELECT * FROM coeliac_gluten_badge WHERE "user" = ? ORDER BY streak"#, [user]).map(\.badge)
    }
}
