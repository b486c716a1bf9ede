import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

// The coeliac diary's tables as records (see TrackerRecords.swift).

/// A journal entry (`coeliac_journal_entry`); its photo lives apart, in `coeliac_journal_photo`.
struct JournalEntryRecord: Sendable, FetchableRecord {
    enum Columns {
        static let id = Column("id")
        static let user = Column("user")
        static let date = Column("date")
        static let time = Column("time")
        static let title = Column("title")
        static let description = Column("description")
        static let photoBytes = Column("photo_bytes")
        static let createdAt = Column("created_at")
        static let updatedAt = Column("updated_at")
    }

    var user: String
    var entry: JournalEntry

    init(row: Row) throws {
        let id: Int64 = row[Columns.id]
        guard let date = LocalDate(row[Columns.date] as String), let time = TimeOfDay(row[Columns.time] as String) else {
            throw ServiceError.internal("journal entry \(id) has an unreadable date or time")
        }
        let photoBytes: Int = row[Columns.photoBytes]
        user = row[Columns.user]
        entry = JournalEntry(
            id: id, date: date, time: time, title: row[Columns.title], description: row[Columns.description], hasPhoto: photoBytes > 0,
            photoBytes: photoBytes, createdAt: Date(timeIntervalSince1970: row[Columns.createdAt]),
            updatedAt: Date(timeIntervalSince1970: row[Columns.updatedAt]))
    }

    /// Inserts a new entry (its id ignored) and returns its id.
    static func insert(_ entry: JournalEntry, user: String, _ session: any SQLSession) throws -> Int64 {
        let values: SQLArguments = [
            user, entry.date.description, entry.time.description, entry.title, entry.description, entry.photoBytes,
            entry.createdAt.timeIntervalSince1970, entry.updatedAt.timeIntervalSince1970,
        ]
        guard let id = try session.value(Int64.self, insertSQL, values) else { throw ServiceError.internal("a new journal entry got no id") }
        return id
    }

    static func update(_ entry: JournalEntry, user: String, _ session: any SQLSession) throws {
        try session.execute(
            updateSQL,
            [
                entry.date.description, entry.time.description, entry.title, entry.description, entry.photoBytes,
                entry.updatedAt.timeIntervalSince1970,
                entry.id, user,
            ])
    }

    private static let insertSQL = """
        INSERT INTO coeliac_journal_entry ("user", date, time, title, description, photo_bytes, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """
    private static let updateSQL = """
        UPDATE coeliac_journal_entry SET date = ?, time = ?, title = ?, description = ?, photo_bytes = ?, updated_at = ?
        WHERE id = ? AND "user" = ?
        """
}

/// A day of the gluten-test diary (`coeliac_gluten_day`): a prediction, a result, or both.
struct GlutenDayRecord: Sendable, FetchableRecord {

    enum Columns {
        static let user = Column("user")
        static let date = Column("date")
        static let expectsGluten = Column("expects_gluten")
        static let positive = Column("positive")
    }

    var day: GlutenDay

    init(row: Row) throws {
        let text: String = row[Columns.date]
        guard let date = LocalDate(text) else { throw ServiceError.internal("gluten day \"\(text)\" is not a date") }
        day = GlutenDay(date: date, expectsGluten: row[Columns.expectsGluten], positive: row[Columns.positive])
    }
}

/// A badge once earned (`coeliac_gluten_badge`); kept even if a back-dated result changes the history.
struct GlutenBadgeRecord: Sendable, SQLRecord {
    static let tableName = "coeliac_gluten_badge"
    static let primaryKey = ["user", "streak"]
    static let columnNames = [Columns.user, Columns.streak, Columns.reachedOn, Columns.earnedAt].map(\.name)

    enum Columns {
        static let user = Column("user")
        static let streak = Column("streak")
        static let reachedOn = Column("reached_on")
        static let earnedAt = Column("earned_at")
    }

    var user: String
    var badge: GlutenBadge
    var earnedAt: Date

    init(user: String, badge: GlutenBadge, earnedAt: Date) {
        self.user = user
        self.badge = badge
        self.earnedAt = earnedAt
    }

    init(row: Row) throws {
        let text: String = row[Columns.reachedOn]
        guard let date = LocalDate(text) else { throw ServiceError.internal("badge date \"\(text)\" is not a date") }
        user = row[Columns.user]
        badge = GlutenBadge(streak: row[Columns.streak], reachedOn: date)
        earnedAt = Date(timeIntervalSince1970: row[Columns.earnedAt])
    }

    var values: SQLArguments { [user, badge.streak, badge.reachedOn.description, earnedAt.timeIntervalSince1970] }
}
