public import Foundation
public import MessagePack
public import SousWire

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
            day <= Self.daysInMonth(year: year, month: month)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses exactly "YYYY-MM-DD" (ASCII digits); nil for anything else.
    public init?(_ text: String) {
        var text = text
        guard let date = text.withUTF8({ LocalDate(utf8: $0) }) else { return nil }
        self = date
    }

    /// Parses exactly the ten bytes "YYYY-MM-DD". By hand, byte by byte: every date read from a
    /// database row or a message goes through here (splitting and `Character` checks showed in
    /// profiles of the week read).
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
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
        // By hand, into one small string: every stored and sent date goes through here, and
        // String(format:) or concatenation costs microseconds (they showed in profiles). Every
        // date is within earliest ... latest (each initialiser checks or clamps): four digits.
        return String(unsafeUninitializedCapacity: 10) { buffer in
            func put(_ value: Int, width: Int, at start: Int) {
                var value = value
                for index in stride(from: start + width - 1, through: start, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, width: 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, width: 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, width: 2, at: 8)
            return 10
        }
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

    /// The first and last dates the wire carries.
    public static let earliest = LocalDate(uncheckedYear: 1, month: 1, day: 1)
    public static let latest = LocalDate(uncheckedYear: 9999, month: 12, day: 31)

    private init(uncheckedYear year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date it is at `instant` in `timeZone`, kept within ``earliest`` ... ``latest``.
    public init(_ instant: Date, in timeZone: TimeZone) {
        let localSeconds = instant.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: instant))
        guard localSeconds >= Double(Self.earliest.dayNumber) * 86_400 else {
            self = Self.earliest
            return
        }
        guard localSeconds < Double(Self.latest.dayNumber + 1) * 86_400 else {
            self = Self.latest
            return
        }
        let parts = Self.gregorian(timeZone).dateComponents([.year, .month, .day], from: instant)
        if let year = parts.year, let month = parts.month, let day = parts.day, let date = LocalDate(year: year, month: month, day: day) {
            self = date
        } else {
            self = instant.timeIntervalSince1970 < 0 ? Self.earliest : Self.latest
        }
    }

    // Day numbers (days since 1970-01-01) by Howard Hinnant's civil-calendar algorithms: pure
    // integer arithmetic on bounded values, so date arithmetic can never trap.

    /// Days since 1970-01-01 (negative before).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `dayNumber` days after 1970-01-01, or nil outside ``earliest`` ... ``latest``.
    public init?(dayNumber: Int) {
        guard (Self.earliest.dayNumber...Self.latest.dayNumber).contains(dayNumber) else { return nil }
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        self.init(uncheckedYear: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// This date moved by `days` (negative goes back), or nil past ``earliest`` or ``latest``.
    public func offset(by days: Int) -> LocalDate? {
        let (moved, overflow) = dayNumber.addingReportingOverflow(days)
        return overflow ? nil : LocalDate(dayNumber: moved)
    }

    /// This date moved by `days`, stopping at ``earliest`` or ``latest``. Dates that come from
    /// outside are range-checked before they get here; this never traps whatever it is given.
    public func adding(days: Int) -> LocalDate {
        offset(by: days) ?? (days < 0 ? Self.earliest : Self.latest)
    }

    /// Whole days from this date to `other` (positive when `other` is later).
    public func days(to other: LocalDate) -> Int {
        other.dayNumber - dayNumber
    }

    /// The last day of this date's month.
    public var lastOfMonth: LocalDate {
        LocalDate(uncheckedYear: year, month: month, day: Self.daysInMonth(year: year, month: month))
    }

    /// The instant this date shows `hour`:`minute` on the wall clocks of `timeZone`. On a day
    /// whose clocks skip that time (a DST gap) it is the first instant after the gap.
    public func instant(hour: Int, minute: Int = 0, in timeZone: TimeZone) -> Date {
        let calendar = Self.gregorian(timeZone)
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        if let exact = calendar.date(from: components), calendar.component(.hour, from: exact) == hour {
            return exact
        }
        if let midnight = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            let after = calendar.nextDate(after: midnight, matching: DateComponents(hour: hour, minute: minute), matchingPolicy: .nextTime)
        {
            return after
        }
        // Only for a zone without that day at all: the UTC reading of the same wall time.
        return Date(timeIntervalSince1970: Double(dayNumber) * 86_400 + Double(hour * 3600 + minute * 60) - Double(timeZone.secondsFromGMT()))
    }

    /// 1 = Monday … 7 = Sunday (ISO 8601).
    public var isoWeekday: Int {
        // 1970-01-01 was a Thursday (4).
        let fromMonday = (dayNumber + 3) % 7
        return (fromMonday < 0 ? fromMonday + 7 : fromMonday) + 1
    }
}

extension LocalDate: WireShaped {
    public static var wireShape: WireShape { .date }
    public static var wireSample: LocalDate { LocalDate(year: 2026, month: 1, day: 1)! }
}

/// Its string form, as `encode(to:)` writes it; anything `init(from:)` would refuse misses the
/// direct path, and `Decodable` reports it.
extension LocalDate: MessagePackEncodable, MessagePackDecodable {
    public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(description) }

    public init(messagePack reader: inout MessagePackFastReader) throws {
        guard let value = try reader.withStringBytes({ LocalDate(utf8: $0) }) else { throw MessagePackFastPathMiss("not a date") }
        self = value
    }
}
