import Foundation
import GRDB
import SousSchema
import SousWire

// The coeliac diary's tables as GRDB records.

/// A journal entry (`coeliac_journal_entry`); its photo lives apart, in `coeliac_journal_photo`.
struct JournalEntryRecord: Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "coeliac_journal_entry"

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
    /// The entry as served (id 0 until inserted).
    var entry: JournalEntry

    init(user: String, entry: JournalEntry) {
        self.user = user
        self.entry = entry
    }

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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = entry.id == 0 ? nil : entry.id
        container[Columns.user] = user
        container[Columns.date] = entry.date.description
        container[Columns.time] = entry.time.description
        container[Columns.title] = entry.title
        container[Columns.description] = entry.description
        container[Columns.photoBytes] = entry.photoBytes
        container[Columns.createdAt] = entry.createdAt.timeIntervalSince1970
        container[Columns.updatedAt] = entry.updatedAt.timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        entry.id = inserted.rowID
    }

    /// The user's entry `id`; another user's entry is not theirs to see.
    static func owned(_ id: Int64, by user: String) -> QueryInterfaceRequest<Self> {
        filter(Columns.id == id && Columns.user == user)
    }
}

/// A day of the gluten-test diary (`coeliac_gluten_day`): a prediction, a result, or both.
struct GlutenDayRecord: Sendable, FetchableRecord, TableRecord {
    static let databaseTableName = "coeliac_gluten_day"

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
struct GlutenBadgeRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "coeliac_gluten_badge"

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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.streak] = badge.streak
        container[Columns.reachedOn] = badge.reachedOn.description
        container[Columns.earnedAt] = earnedAt.timeIntervalSince1970
    }
}
