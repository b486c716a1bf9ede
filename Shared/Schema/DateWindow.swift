public import Foundation
public import SousWire

/// The dates a user may record something on (docs/PROTOCOL.md, "Dates"): nothing before 1900,
/// nothing that happened after the user's today, no plan more than a year ahead. Reads accept any
/// date (there is simply nothing there).
public enum DateWindow {
    /// The first day anything may be recorded on.
    public static let earliest = LocalDate(year: 1900, month: 1, day: 1)!

    public enum Kind: Sendable {
        /// What happened (a diary entry, a drink, a journal entry, a test result): up to today.
        case happened
        /// What is planned (goals from a date, a gluten prediction): up to 366 days after today.
        case planned

        /// Days after the user's today the date may be.
        public var daysAhead: Int {
            switch self {
            case .happened: 0
            case .planned: 366
            }
        }
    }

    /// Checks `date` for `kind`. `today` (the user's today, which needs their time zone) is only
    /// asked when the date is after today somewhere on Earth, so most back-dated writes cost
    /// nothing. A badRequest names `field`.
    public static func check(
        _ date: LocalDate, _ kind: Kind, field: String, now: Date, today: () async -> LocalDate
    ) async throws(ServiceError) {
        guard date >= earliest else {
            throw .badRequest("\(date) is before \(earliest), the earliest date Sous records", field: field)
        }
        // UTC-12 is the last zone to reach a date: anything up to its today is past everywhere.
        let earliestToday = LocalDate(now, in: TimeZone(secondsFromGMT: -12 * 3600) ?? .gmt)
        if date <= earliestToday.adding(days: kind.daysAhead) { return }
        let latest = await today().adding(days: kind.daysAhead)
        guard date <= latest else {
            switch kind {
            case .happened: throw .badRequest("\(date) is after today (\(latest)); record what has already happened", field: field)
            case .planned: throw .badRequest("\(date) is more than \(kind.daysAhead) days ahead (the latest is \(latest))", field: field)
            }
        }
    }
}
