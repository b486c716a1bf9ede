public import SousSchema

/// The gluten-test arithmetic, as plain functions over a user's history (no I/O).
///
/// A day is *scored* when it has both a prediction and a result. Streak rule: scored days are
/// taken in date order; a correct prediction extends the streak, a wrong one resets it to 0.
/// Days without a result (a prediction waiting for its test, or nothing) and results without a
/// prediction are skipped: they neither extend nor break the streak, so forgetting to predict or
/// to test on a day does not cost a streak.
public enum GlutenScoring {
    /// Hit rate, streaks and the badges `history` reaches. `history` may be in any order; a date
    /// should appear at most once. `earned` replaces the computed badges when given (the store
    /// keeps badges once earned, even if a back-dated result later changes the history).
    public static func stats(_ history: [GlutenDay], earned: [GlutenBadge]? = nil) -> GlutenStats {
        let days = history.sorted { $0.date < $1.date }
        var results = 0, scored = 0, correct = 0, current = 0, best = 0
        for day in days where day.positive != nil {
            results += 1
            guard let hit = day.correct else { continue }
            scored += 1
            if hit {
                correct += 1
                current += 1
                best = max(best, current)
            } else {
                current = 0
            }
        }
        let badges = (earned ?? badgesReached(days)).sorted { $0.streak < $1.streak }
        let held = Set(badges.map(\.streak))
        return GlutenStats(
            results: results, scored: scored, correct: correct,
            hitRate: scored == 0 ? nil : Double(correct) / Double(scored),
            currentStreak: current, bestStreak: best, badges: badges,
            nextBadge: GlutenBadge.thresholds.first { !held.contains($0) }
        )
    }

    /// The badges `history` earns: for each threshold, the first date the running streak reached it.
    public static func badgesReached(_ history: [GlutenDay]) -> [GlutenBadge] {
        var badges: [GlutenBadge] = []
        var current = 0
        for day in history.sorted(by: { $0.date < $1.date }) {
            guard let hit = day.correct else { continue }
            current = hit ? current + 1 : 0
            if GlutenBadge.thresholds.contains(current), !badges.contains(where: { $0.streak == current }) {
                badges.append(GlutenBadge(streak: current, reachedOn: day.date))
            }
        }
        return badges
    }

    /// The streak after the last scored day of `history`.
    public static func currentStreak(_ history: [GlutenDay]) -> Int {
        stats(history, earned: []).currentStreak
    }

    /// Every day of `month` of `year` with its status, from the days of `history` in that month.
    /// Returns nil for a month that does not exist.
    public static func calendar(year: Int, month: Int, history: [GlutenDay]) -> GlutenCalendar? {
        guard let first = LocalDate(year: year, month: month, day: 1) else { return nil }
        let byDate = Dictionary(history.map { ($0.date, $0) }, uniquingKeysWith: { _, last in last })
        let days = (0..<first.lastOfMonth.day).map { offset in
            let date = first.adding(days: offset)
            let day = byDate[date]
            return GlutenCalendarDay(date: date, status: status(of: day), expectsGluten: day?.expectsGluten, correct: day?.correct)
        }
        return GlutenCalendar(year: year, month: month, days: days)
    }

    /// A day's calendar status: its result if it has one, else whether it has a prediction.
    public static func status(of day: GlutenDay?) -> GlutenDayStatus {
        switch (day?.positive, day?.expectsGluten) {
        case (true?, _): .positive
        case (false?, _): .negative
        case (nil, _?): .predicted
        case (nil, nil): .nothing
        }
    }
}
