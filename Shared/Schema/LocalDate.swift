public import Foundation

/// A calendar date in a user's own time zone, carried on the wire as the string "YYYY-MM-DD".
///
/// Diaries and plans are kept by local date, never by instant: "today" is the date at the user's
/// time zone, so a user in Auckland and one in Los Angeles can see different days at once.
public struct LocalDate: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A valid Gregorian date, or nil (e.g. 2026-02-30).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= Self.daysInMonth(year: year, month: month) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses exactly "YYYY-MM-DD"; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = LocalDate(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text.prefix(40))\" is not a date in the form YYYY-MM-DD")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: Calendar arithmetic

    private static func gregorian(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    private static let utc = TimeZone(identifier: "UTC")!

    /// The date it is at `instant` in `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        let parts = Self.gregorian(timeZone).dateComponents([.year, .month, .day], from: instant)
        self.init(year: parts.year!, month: parts.month!, day: parts.day!)!
    }

    /// This date moved by `days` (negative goes back).
    public func adding(days: Int) -> LocalDate {
        let calendar = Self.gregorian(Self.utc)
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
        return LocalDate(calendar.date(byAdding: .day, value: days, to: noon)!, in: Self.utc)
    }

    /// Whole days from this date to `other` (positive when `other` is later).
    public func days(to other: LocalDate) -> Int {
        let calendar = Self.gregorian(Self.utc)
        let from = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
        let to = calendar.date(from: DateComponents(year: other.year, month: other.month, day: other.day, hour: 12))!
        return calendar.dateComponents([.day], from: from, to: to).day!
    }

    /// The instant this date shows `hour`:`minute` on the wall clocks of `timeZone`. On a day
    /// whose clocks skip that time (a DST gap) it is the first instant after the gap.
    public func instant(hour: Int, minute: Int = 0, in timeZone: TimeZone) -> Date {
        let calendar = Self.gregorian(timeZone)
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        if let exact = calendar.date(from: components), calendar.component(.hour, from: exact) == hour {
            return exact
        }
        return calendar.nextDate(after: calendar.date(from: DateComponents(year: year, month: month, day: day))!,
                                 matching: DateComponents(hour: hour, minute: minute), matchingPolicy: .nextTime)!
    }

    /// 1 = Monday … 7 = Sunday (ISO 8601).
    public var isoWeekday: Int {
        let weekday = Self.gregorian(Self.utc).component(.weekday, from: instant(hour: 12, in: Self.utc))
        return (weekday + 5) % 7 + 1
    }
}
