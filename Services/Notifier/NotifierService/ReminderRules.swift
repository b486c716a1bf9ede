public import Foundation
public import SousSchema

/// The notifier's rules as plain functions of time, without storage or sockets.
public enum ReminderRules {
    /// A reminder found due this late (e.g. on start after downtime) is recorded missed, not sent.
    public static let lateLimit: TimeInterval = 2 * 60 * 60

    /// The reminder hour when a profile's is out of range.
    public static let defaultHour = 19

    /// The next reminder for a user active at `now`: the first local date whose `hour` o'clock in
    /// `timeZone` is at or after `now` and that comes after `lastHandled` (the newest date already
    /// sent, skipped or missed), so a user gets at most one reminder per local date even when
    /// their time zone moves them back a day.
    ///
    /// The instant is computed per date on the wall clock of `timeZone`, so it stays at `hour`
    /// o'clock across daylight-saving changes (and after the gap on a day that skips that hour).
    public static func nextDue(after now: Date, timeZone: TimeZone, hour: Int, lastHandled: LocalDate?) -> (date: LocalDate, dueAt: Date) {
        let hour = (0...23).contains(hour) ? hour : defaultHour
        var date = LocalDate(now, in: timeZone)
        if let lastHandled, lastHandled >= date {
            date = lastHandled.adding(days: 1)
        }
        var dueAt = date.instant(hour: hour, in: timeZone)
        // Today's hour may have passed: then tomorrow's (two steps cover any zone's offset).
        // Bounded, so a clock at the end of the calendar cannot spin here.
        for _ in 0..<3 where dueAt < now {
            date = date.adding(days: 1)
            dueAt = date.instant(hour: hour, in: timeZone)
        }
        return (date, dueAt)
    }

    /// What to do with a reminder due at `dueAt` that the scheduler handles at `now`.
    public enum Delivery: Equatable, Sendable {
        case send
        case missed
    }

    /// Less than ``lateLimit`` late: still send it; otherwise record it missed.
    public static func delivery(dueAt: Date, now: Date) -> Delivery {
        now.timeIntervalSince(dueAt) < lateLimit ? .send : .missed
    }

    /// The time zone of an IANA name, or UTC for a name this system does not know.
    public static func timeZone(named name: String) -> TimeZone {
        TimeZone(identifier: name) ?? TimeZone(identifier: "UTC")!
    }

    /// User ids the notifier serves: non-empty, at most 128 bytes, without NUL (the reminder
    /// topic's terminator, see ``NotifierTopics/reminder(for:)``).
    public static func isServable(user: String) -> Bool {
        !user.isEmpty && user.utf8.count <= 128 && !user.utf8.contains(0)
    }

    /// The reminder's text, with the day's energy when the tracker gave it.
    public static func message(kcal: Double?, goal: Double?) -> String {
        guard let kcal, let goal, kcal.isFinite, goal.isFinite else { return "Time to log today's meals" }
        return "Time to log today's meals: \(kcal.roundedInt) of \(goal.roundedInt) kcal so far"
    }
}
