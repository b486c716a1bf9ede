import Foundation
import NotifierService
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// The scheduling rules as plain functions: next due instant per zone and hour, DST days, one
/// reminder per local day, and the late/missed limit.
@Suite(.closesItsSockets)
struct ReminderRulesTests {
    static let rome = TimeZone(identifier: "Europe/Rome")!
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    static func instant(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func activityBeforeTheHourSchedulesTodayAndAfterItTomorrow() {
        let morning = ReminderRules.nextDue(after: Self.instant("2026-01-15T09:00:00Z"), timeZone: Self.rome, hour: 19, lastHandled: nil)
        #expect(morning.date == LocalDate("2026-01-15"))
        #expect(morning.dueAt == Self.instant("2026-01-15T18:00:00Z"), "19:00 in Rome in winter is 18:00 UTC")
        let evening = ReminderRules.nextDue(after: Self.instant("2026-01-15T18:00:01Z"), timeZone: Self.rome, hour: 19, lastHandled: nil)
        #expect(evening.date == LocalDate("2026-01-16"))
        #expect(evening.dueAt == Self.instant("2026-01-16T18:00:00Z"))
        let exactly = ReminderRules.nextDue(after: Self.instant("2026-01-15T18:00:00Z"), timeZone: Self.rome, hour: 19, lastHandled: nil)
        #expect(exactly.date == LocalDate("2026-01-15"), "at the very instant it is still today's")
    }

    @Test func aDayAlreadyHandledIsNeverScheduledAgain() {
        let next = ReminderRules.nextDue(
            after: Self.instant("2026-01-15T09:00:00Z"), timeZone: Self.rome, hour: 19, lastHandled: LocalDate("2026-01-15"))
        #expect(next.date == LocalDate("2026-01-16"))
        // Flying west after today's reminder: in Los Angeles it is still the 15th, yet no second
        // reminder for the 15th.
        let west = ReminderRules.nextDue(
            after: Self.instant("2026-01-15T19:00:00Z"), timeZone: TimeZone(identifier: "America/Los_Angeles")!, hour: 19,
            lastHandled: LocalDate("2026-01-15")
        )
        #expect(west.date == LocalDate("2026-01-16"))
        #expect(west.dueAt == Self.instant("2026-01-17T03:00:00Z"))
    }

    @Test func romeKeeps19OnItsWallClockOnBothDaylightSavingSundays() {
        // 2026-03-29: clocks go 02:00 → 03:00 (UTC+1 → UTC+2).
        let before = ReminderRules.nextDue(after: Self.instant("2026-03-28T08:00:00Z"), timeZone: Self.rome, hour: 19, lastHandled: nil)
        #expect(before.dueAt == Self.instant("2026-03-28T18:00:00Z"))
        let spring = ReminderRules.nextDue(
            after: Self.instant("2026-03-28T18:30:00Z"), timeZone: Self.rome, hour: 19, lastHandled: LocalDate("2026-03-28"))
        #expect(spring.date == LocalDate("2026-03-29"))
        #expect(spring.dueAt == Self.instant("2026-03-29T17:00:00Z"), "23 hours after the day before's")
        // 2026-10-25: clocks go 03:00 → 02:00 (UTC+2 → UTC+1).
        let saturday = ReminderRules.nextDue(after: Self.instant("2026-10-24T08:00:00Z"), timeZone: Self.rome, hour: 19, lastHandled: nil)
        #expect(saturday.dueAt == Self.instant("2026-10-24T17:00:00Z"))
        let autumn = ReminderRules.nextDue(
            after: Self.instant("2026-10-24T17:30:00Z"), timeZone: Self.rome, hour: 19, lastHandled: LocalDate("2026-10-24"))
        #expect(autumn.date == LocalDate("2026-10-25"))
        #expect(autumn.dueAt == Self.instant("2026-10-25T18:00:00Z"), "25 hours after the day before's")
    }

    @Test func aZoneWithoutDaylightSavingIsTheSameEveryDay() {
        for day in ["2026-03-29", "2026-06-21", "2026-10-25", "2026-12-31"] {
            let start = LocalDate(day)!.instant(hour: 8, in: Self.tokyo)
            let next = ReminderRules.nextDue(after: start, timeZone: Self.tokyo, hour: 19, lastHandled: nil)
            #expect(next.date == LocalDate(day))
            #expect(next.dueAt == Self.instant("\(day)T10:00:00Z"))
        }
    }

    @Test func anHourInTheSpringGapFallsJustAfterIt() {
        let next = ReminderRules.nextDue(after: Self.instant("2026-03-28T22:00:00Z"), timeZone: Self.rome, hour: 2, lastHandled: nil)
        #expect(next.date == LocalDate("2026-03-29"))
        #expect(next.dueAt == Self.instant("2026-03-29T01:00:00Z"), "02:00 does not exist that night; 03:00 CEST does")
    }

    @Test func anOutOfRangeHourFallsBackTo19() {
        let next = ReminderRules.nextDue(
            after: Self.instant("2026-01-15T09:00:00Z"), timeZone: TimeZone(identifier: "UTC")!, hour: 31, lastHandled: nil)
        #expect(next.dueAt == Self.instant("2026-01-15T19:00:00Z"))
    }

    @Test func lessThanTwoHoursLateIsSentTwoOrMoreIsMissed() {
        let due = Self.instant("2026-01-15T18:00:00Z")
        #expect(ReminderRules.delivery(dueAt: due, now: due) == .send)
        #expect(ReminderRules.delivery(dueAt: due, now: due.addingTimeInterval(119 * 60)) == .send)
        #expect(ReminderRules.delivery(dueAt: due, now: due.addingTimeInterval(120 * 60)) == .missed)
        #expect(ReminderRules.delivery(dueAt: due, now: due.addingTimeInterval(3 * 3600)) == .missed)
    }

    @Test func topicsCannotPrefixAnotherUsers() {
        #expect(!NotifierTopics.reminder(for: "adam").name.hasPrefix(NotifierTopics.reminder(for: "ada").name))
        #expect(NotifierTopics.reminder(for: "ada").name.hasPrefix(NotifierTopics.reminderPrefix))
        #expect(ReminderRules.isServable(user: "ada"))
        #expect(!ReminderRules.isServable(user: "ada\u{0}m"))
        #expect(!ReminderRules.isServable(user: ""))
        #expect(!ReminderRules.isServable(user: String(repeating: "x", count: 129)))
    }
}
