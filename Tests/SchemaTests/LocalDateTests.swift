import Foundation
import SousSchema
import Testing

struct LocalDateTests {
    @Test func dayNumbersAgreeWithFoundationsCalendarAndRoundTrip() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        // Every day from 1900 to 2100 (Foundation's Gregorian calendar is proleptic from 1582).
        let start = try #require(LocalDate(year: 1900, month: 1, day: 1))
        for offset in stride(from: 0, through: 73_414, by: 1) {
            let date = start.adding(days: offset)
            let midnight = try #require(calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day)))
            #expect(date.dayNumber == Int((midnight.timeIntervalSince1970 / 86_400).rounded()), "\(date)")
            #expect(LocalDate(dayNumber: date.dayNumber) == date)
            if offset % 997 == 0 {
                let weekday = calendar.component(.weekday, from: midnight)
                #expect(date.isoWeekday == (weekday + 5) % 7 + 1, "\(date)")
            }
        }
        #expect(try #require(LocalDate("2026-03-09")).isoWeekday == 1)
        #expect(try #require(LocalDate("2024-02-28")).adding(days: 1) == LocalDate("2024-02-29"))
        #expect(try #require(LocalDate("2026-03-31")).days(to: try #require(LocalDate("2026-03-01"))) == -30)
    }

    @Test func arithmeticAtTheEndsOfTheCalendarNeverTraps() throws {
        let last = LocalDate.latest
        #expect(last.description == "9999-12-31" && LocalDate.earliest.description == "0001-01-01")
        #expect(last.offset(by: 1) == nil && last.offset(by: Int.max) == nil && LocalDate.earliest.offset(by: Int.min) == nil)
        #expect(last.adding(days: 1) == last && last.adding(days: 999_999_999) == last)
        #expect(LocalDate.earliest.adding(days: -1) == .earliest && LocalDate.earliest.adding(days: Int.min) == .earliest)
        #expect(last.lastOfMonth == last && last.offset(by: -30) == LocalDate("9999-12-01"))
        #expect(LocalDate.earliest.days(to: last) == 3_652_058)
        #expect(LocalDate(dayNumber: Int.max) == nil && LocalDate(dayNumber: Int.min) == nil)
        // Instants beyond the calendar read as its ends instead of trapping.
        #expect(LocalDate(Date(timeIntervalSince1970: 1e15), in: .gmt) == last)
        #expect(LocalDate(Date(timeIntervalSince1970: -1e15), in: .gmt) == .earliest)
        _ = last.instant(hour: 19, in: .gmt)
        _ = last.isoWeekday
    }
}
