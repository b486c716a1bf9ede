public import Foundation
public import MessagePack
public import SousWire

// The coeliac diary, served by the tracker: a food journal with photos, and gluten-test
// predictions with their results, hit rate, streaks, badges and a month calendar.

/// A wall-clock time of day in the user's time zone, carried on the wire as "HH:MM" (24-hour).
public struct TimeOfDay: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    /// A valid time (0–23 h, 0–59 min), or nil.
    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses exactly "HH:MM"; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard text.utf8.count == 5, parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return nil }
        self.init(hour: hour, minute: minute)
    }

    /// The time it is at `instant` on the wall clocks of `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        self.init(hour: parts.hour!, minute: parts.minute!)!
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let time = TimeOfDay(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text.prefix(40))\" is not a time in the form HH:MM")
        }
        self = time
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String { String(format: "%02d:%02d", hour, minute) }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        (lhs.hour, lhs.minute) < (rhs.hour, rhs.minute)
    }
}

// MARK: Food journal

/// Limits the journal enforces (a larger value is a `badRequest` naming the field).
public enum JournalLimits {
    /// Largest photo stored: 5 MiB.
    public static let maxPhotoBytes = 5 * 1024 * 1024
    public static let maxTitleCharacters = 200
    public static let maxDescriptionCharacters = 5_000
    /// Longest `from`…`to` range `journal.list` answers, in days (both ends included).
    public static let maxRangeDays = 366
}

/// A new journal entry. `date` and `time` default to now in the user's time zone.
@MessagePackCodable
public struct JournalEntryDraft: Codable, Equatable, Sendable {
    /// Required: 1–200 characters, not only spaces.
    public var title: String
    /// Optional, up to 5 000 characters.
    public var description: String?
    /// Image bytes (any format; the service does not decode them), 1 byte to 5 MiB.
    public var photo: Data?
    public var date: LocalDate?
    public var time: TimeOfDay?

    public init(title: String, description: String? = nil, photo: Data? = nil, date: LocalDate? = nil, time: TimeOfDay? = nil) {
        self.title = title
        self.description = description
        self.photo = photo
        self.date = date
        self.time = time
    }
}

/// A journal entry as lists show it: without the photo's bytes (`journal.get` returns them).
@MessagePackCodable
public struct JournalEntry: Codable, Equatable, Sendable {
    public var id: Int64
    public var date: LocalDate
    public var time: TimeOfDay
    public var title: String
    public var description: String?
    public var hasPhoto: Bool
    /// Size of the stored photo, 0 without one.
    public var photoBytes: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: Int64, date: LocalDate, time: TimeOfDay, title: String, description: String?, hasPhoto: Bool, photoBytes: Int, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.date = date
        self.time = time
        self.title = title
        self.description = description
        self.hasPhoto = hasPhoto
        self.photoBytes = photoBytes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Changes to an entry: nil fields stay as they are.
@MessagePackCodable
public struct JournalEdit: Codable, Equatable, Sendable {
    public var id: Int64
    public var title: String?
    /// An empty string removes the description.
    public var description: String?
    /// Replaces the photo (same limits as ``JournalEntryDraft/photo``).
    public var photo: Data?
    /// True removes the photo; cannot be combined with `photo`.
    public var removePhoto: Bool?
    public var date: LocalDate?
    public var time: TimeOfDay?

    public init(
        id: Int64, title: String? = nil, description: String? = nil, photo: Data? = nil, removePhoto: Bool? = nil, date: LocalDate? = nil,
        time: TimeOfDay? = nil
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.photo = photo
        self.removePhoto = removePhoto
        self.date = date
        self.time = time
    }
}

@MessagePackCodable
public struct JournalEntryID: Codable, Equatable, Sendable {
    public var id: Int64

    public init(id: Int64) { self.id = id }
}

/// Which entries to list: one `date`, or a `from`…`to` range (both included, at most 366 days),
/// or, with neither, today in the user's time zone.
@MessagePackCodable
public struct JournalQuery: Codable, Equatable, Sendable {
    public var date: LocalDate?
    public var from: LocalDate?
    public var to: LocalDate?

    public init(date: LocalDate? = nil, from: LocalDate? = nil, to: LocalDate? = nil) {
        self.date = date
        self.from = from
        self.to = to
    }
}

/// Entries ordered by date, time, then id.
@MessagePackCodable
public struct JournalList: Codable, Equatable, Sendable {
    public var from: LocalDate
    public var to: LocalDate
    public var entries: [JournalEntry]

    public init(from: LocalDate, to: LocalDate, entries: [JournalEntry]) {
        self.from = from
        self.to = to
        self.entries = entries
    }
}

/// One entry with its photo's bytes.
@MessagePackCodable
public struct JournalEntryDetail: Codable, Equatable, Sendable {
    public var entry: JournalEntry
    public var photo: Data?

    public init(entry: JournalEntry, photo: Data?) {
        self.entry = entry
        self.photo = photo
    }
}

// MARK: Gluten tests

/// "I expect the test of `date` to show gluten": may be changed until the day has a result.
@MessagePackCodable
public struct GlutenPredictionRequest: Codable, Equatable, Sendable {
    /// Defaults to today in the user's time zone.
    public var date: LocalDate?
    public var expectsGluten: Bool

    public init(date: LocalDate? = nil, expectsGluten: Bool) {
        self.date = date
        self.expectsGluten = expectsGluten
    }
}

/// The test result of `date`: recorded once (a second result for the day is a `conflict`).
@MessagePackCodable
public struct GlutenResultRequest: Codable, Equatable, Sendable {
    /// Defaults to today in the user's time zone; not after it.
    public var date: LocalDate?
    public var positive: Bool
    /// True corrects a result already recorded for the day (without it, a second result is a
    /// conflict). Badges already earned are kept.
    public var replace: Bool?

    public init(date: LocalDate? = nil, positive: Bool, replace: Bool? = nil) {
        self.date = date
        self.positive = positive
        self.replace = replace
    }
}

/// A day whose recorded result is withdrawn.
@MessagePackCodable
public struct GlutenResultRemoval: Codable, Equatable, Sendable {
    public var date: LocalDate

    public init(date: LocalDate) { self.date = date }
}

/// What a day holds: its prediction and/or result.
@MessagePackCodable
public struct GlutenDay: Codable, Equatable, Sendable {
    public var date: LocalDate
    /// The prediction, nil if none was made.
    public var expectsGluten: Bool?
    /// The test result (true = gluten found), nil until recorded.
    public var positive: Bool?
    /// Whether the prediction matched the result; nil unless the day has both.
    public var correct: Bool? {
        guard let expectsGluten, let positive else { return nil }
        return expectsGluten == positive
    }

    public init(date: LocalDate, expectsGluten: Bool?, positive: Bool?) {
        self.date = date
        self.expectsGluten = expectsGluten
        self.positive = positive
    }

    private enum CodingKeys: String, CodingKey { case date, expectsGluten, positive, correct }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        date = try container.decode(LocalDate.self, forKey: .date)
        expectsGluten = try container.decodeIfPresent(Bool.self, forKey: .expectsGluten)
        positive = try container.decodeIfPresent(Bool.self, forKey: .positive)
        // Computed from the two above; read (and ignored) so that `describe` lists it.
        _ = try container.decodeIfPresent(Bool.self, forKey: .correct)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(expectsGluten, forKey: .expectsGluten)
        try container.encode(positive, forKey: .positive)
        try container.encode(correct, forKey: .correct)
    }
}

/// A badge for a streak of correct predictions (3, 7 or 30), earned once.
@MessagePackCodable
public struct GlutenBadge: Codable, Equatable, Sendable {
    /// The streak length: one of ``GlutenBadge/thresholds``.
    public var streak: Int
    /// The test date on which the streak reached that length.
    public var reachedOn: LocalDate

    public init(streak: Int, reachedOn: LocalDate) {
        self.streak = streak
        self.reachedOn = reachedOn
    }

    public static let thresholds = [3, 7, 30]
}

/// The reply to `gluten.result`: the day, the streak after it, and badges it earned.
@MessagePackCodable
public struct GlutenResultRecorded: Codable, Equatable, Sendable {
    public var day: GlutenDay
    public var currentStreak: Int
    /// Badges first earned by this result (usually empty).
    public var newBadges: [GlutenBadge]

    public init(day: GlutenDay, currentStreak: Int, newBadges: [GlutenBadge]) {
        self.day = day
        self.currentStreak = currentStreak
        self.newBadges = newBadges
    }
}

/// How well a user predicts their tests.
///
/// A streak counts consecutive *scored* days (a result and a prediction) in date order whose
/// prediction matched; a wrong prediction resets it to 0. Days without a result, and results
/// without a prediction, neither extend nor break it.
@MessagePackCodable
public struct GlutenStats: Codable, Equatable, Sendable {
    /// Days with a result.
    public var results: Int
    /// Days with a result and a prediction: the hit rate's denominator.
    public var scored: Int
    /// Scored days whose prediction matched.
    public var correct: Int
    /// correct ÷ scored, 0…1; nil before the first scored day.
    public var hitRate: Double?
    public var currentStreak: Int
    public var bestStreak: Int
    /// Earned badges, smallest streak first.
    public var badges: [GlutenBadge]
    /// The next badge's streak, nil once all are earned.
    public var nextBadge: Int?

    public init(
        results: Int, scored: Int, correct: Int, hitRate: Double?, currentStreak: Int, bestStreak: Int, badges: [GlutenBadge], nextBadge: Int?
    ) {
        self.results = results
        self.scored = scored
        self.correct = correct
        self.hitRate = hitRate
        self.currentStreak = currentStreak
        self.bestStreak = bestStreak
        self.badges = badges
        self.nextBadge = nextBadge
    }
}

/// A month to show; defaults to the current month in the user's time zone.
@MessagePackCodable
public struct GlutenCalendarRequest: Codable, Equatable, Sendable {
    /// 1–9999.
    public var year: Int?
    /// 1–12; given together with `year`.
    public var month: Int?

    public init(year: Int? = nil, month: Int? = nil) {
        self.year = year
        self.month = month
    }
}

/// A calendar day's state.
@MessagePackCodable
public enum GlutenDayStatus: String, Codable, Sendable, CaseIterable {
    /// Neither a prediction nor a result.
    case nothing
    /// A prediction, no result yet.
    case predicted
    /// The test found no gluten.
    case negative
    /// The test found gluten.
    case positive
}

@MessagePackCodable
public struct GlutenCalendarDay: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var status: GlutenDayStatus
    public var expectsGluten: Bool?
    /// Whether the prediction matched; nil unless the day has both.
    public var correct: Bool?

    public init(date: LocalDate, status: GlutenDayStatus, expectsGluten: Bool?, correct: Bool?) {
        self.date = date
        self.status = status
        self.expectsGluten = expectsGluten
        self.correct = correct
    }
}

/// Every day of a month, first to last.
@MessagePackCodable
public struct GlutenCalendar: Codable, Equatable, Sendable {
    public var year: Int
    public var month: Int
    public var days: [GlutenCalendarDay]

    public init(year: Int, month: Int, days: [GlutenCalendarDay]) {
        self.year = year
        self.month = month
        self.days = days
    }
}

// MARK: Events and methods

/// What happened to a journal entry.
@MessagePackCodable
public enum JournalChange: String, Codable, Sendable, CaseIterable {
    case added, edited, deleted
}

/// Published under ``CoeliacTopics/journalChanged``.
@MessagePackCodable
public struct JournalEvent: Codable, Equatable, Sendable {
    public var user: String
    public var entry: Int64
    public var date: LocalDate
    public var change: JournalChange

    public init(user: String, entry: Int64, date: LocalDate, change: JournalChange) {
        self.user = user
        self.entry = entry
        self.date = date
        self.change = change
    }
}

/// Published under ``CoeliacTopics/glutenRecorded`` (a prediction or result was written) and
/// ``CoeliacTopics/badgeEarned`` (with `badge` set).
@MessagePackCodable
public struct GlutenEvent: Codable, Equatable, Sendable {
    public var user: String
    public var day: GlutenDay
    public var badge: GlutenBadge?

    public init(user: String, day: GlutenDay, badge: GlutenBadge? = nil) {
        self.user = user
        self.day = day
        self.badge = badge
    }
}

public enum CoeliacTopics {
    /// ``JournalEvent``: an entry was added, edited or deleted.
    public static let journalChanged = Topic<JournalEvent>("tracker.journal.changed")
    /// ``GlutenEvent``: a prediction or a result was recorded.
    public static let glutenRecorded = Topic<GlutenEvent>("tracker.gluten.recorded")
    /// ``GlutenEvent`` with its badge: a streak badge was earned.
    public static let badgeEarned = Topic<GlutenEvent>("tracker.gluten.badge")
}

/// The coeliac diary's methods, served by the tracker. Every method acts for the header's user.
public enum CoeliacAPI {
    public static let addEntry = Method<Tracker, JournalEntryDraft, JournalEntry>.write("journal.add", .user, keyCheck: .atCommit)
    public static let listEntries = Method<Tracker, JournalQuery, JournalList>.read("journal.list", .user)
    /// One entry with its photo.
    public static let getEntry = Method<Tracker, JournalEntryID, JournalEntryDetail>.read("journal.get", .user)
    public static let editEntry = Method<Tracker, JournalEdit, JournalEntry>.write("journal.edit", .user, keyCheck: .atCommit)
    public static let deleteEntry = Method<Tracker, JournalEntryID, Empty>.write("journal.delete", .user, keyCheck: .atCommit)

    public static let predict = Method<Tracker, GlutenPredictionRequest, GlutenDay>.write("gluten.predict", .user, keyCheck: .atCommit)
    public static let recordResult = Method<Tracker, GlutenResultRequest, GlutenResultRecorded>.write("gluten.result", .user, keyCheck: .atCommit)
    /// Withdraws the day's result, keeping its prediction; notFound when it has none.
    public static let deleteResult = Method<Tracker, GlutenResultRemoval, GlutenDay>.write("gluten.deleteResult", .user, keyCheck: .atCommit)
    public static let stats = Method<Tracker, Empty, GlutenStats>.read("gluten.stats", .user)
    public static let calendar = Method<Tracker, GlutenCalendarRequest, GlutenCalendar>.read("gluten.calendar", .user)
}

extension TimeOfDay: WireShaped {
    public static var wireShape: WireShape { .time }
    public static var wireSample: TimeOfDay { TimeOfDay(hour: 12, minute: 0)! }
}

/// Its string form, as `encode(to:)` writes it; anything `init(from:)` would refuse misses the
/// direct path, and `Decodable` reports it.
extension TimeOfDay: MessagePackEncodable, MessagePackDecodable {
    public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(description) }

    public init(messagePack reader: inout MessagePackFastReader) throws {
        guard let value = TimeOfDay(try reader.readString()) else { throw MessagePackFastPathMiss("not a time") }
        self = value
    }
}
