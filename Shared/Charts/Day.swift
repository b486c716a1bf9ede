/// A calendar date, as the charts lay days out: the same "YYYY-MM-DD" dates as the schema's
/// `LocalDate`, kept separate so that this module depends on nothing but the standard library.
public struct Day: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A valid Gregorian date in years 1–9999, or nil (e.g. 2026-02-30).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month) else { return nil }
        self.init(validYear: year, month: month, day: day)
    }

    /// Parses exactly "YYYY-MM-DD"; nil for anything else.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// For dates already known to be valid.
    init(validYear year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// "YYYY-MM-DD".
    public var description: String {
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))"
    }

    public static func < (lhs: Day, rhs: Day) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Days in `month` of `year` (0 for a month outside 1–12).
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        case 1, 3, 5, 7, 8, 10, 12: 31
        default: 0
        }
    }

    /// The ISO 8601 day of the week: 1 = Monday … 7 = Sunday.
    public var weekday: Int {
        // 1970-01-01 was a Thursday (4).
        let remainder = ((dayNumber % 7) + 7) % 7
        return (remainder + 3) % 7 + 1
    }

    /// The date `days` days later (earlier when negative), or nil outside years 1–9999.
    public func adding(days: Int) -> Day? {
        let (target, overflow) = dayNumber.addingReportingOverflow(days)
        guard !overflow, target >= Self.firstDayNumber, target <= Self.lastDayNumber else { return nil }
        return Day(dayNumber: target)
    }

    // Day numbers (days since 1970-01-01) by Howard Hinnant's civil-calendar algorithms, as the
    // schema's `LocalDate` does: integer arithmetic on bounded values.

    /// Days since 1970-01-01 (negative before).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 0001-01-01 and 9999-12-31 as day numbers.
    static let firstDayNumber = Day(validYear: 1, month: 1, day: 1).dayNumber
    static let lastDayNumber = Day(validYear: 9999, month: 12, day: 31).dayNumber

    /// The date of a day number within ``firstDayNumber`` ... ``lastDayNumber``.
    init(dayNumber: Int) {
        let shifted = dayNumber + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.init(validYear: year, month: month, day: day)
    }

    static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    /// "Mar 5": a day's label under a bar.
    var shortLabel: String { "\(Self.monthAbbreviation(month)) \(day)" }

    static func monthAbbreviation(_ month: Int) -> String {
        (1...12).contains(month) ? monthAbbreviations[month - 1] : ""
    }

    static func monthName(_ month: Int) -> String {
        (1...12).contains(month) ? monthNames[month - 1] : ""
    }
}
