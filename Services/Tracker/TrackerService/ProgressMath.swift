import Foundation
import SousSchema

/// What friends see of a diary: percentages of the goals, logged days, runs of them. Pure
/// arithmetic over entries and logged dates.
enum ProgressMath {
    /// The run of logged days ending on `date`, or on the day before while `date` has nothing
    /// logged yet (a day still under way does not break a run).
    static func streak(_ logged: Set<LocalDate>, endingOn date: LocalDate) -> Int {
        var day = logged.contains(date) ? date : date.adding(days: -1)
        var run = 0
        while logged.contains(day) {
            run += 1
            day = day.adding(days: -1)
        }
        return run
    }

    /// The longest run of consecutive dates in `dates` (oldest first).
    static func bestStreak(_ dates: [LocalDate]) -> Int {
        var best = 0
        var run = 0
        var previous: LocalDate?
        for date in dates {
            run = previous.map { $0.adding(days: 1) == date } == true ? run + 1 : 1
            best = max(best, run)
            previous = date
        }
        return best
    }

    static func summary(user: String, date: LocalDate, entries: [DiaryEntry], goals: Goals, loggedDates: [LocalDate]) -> ProgressSummary {
        let totals = DiaryMath.totals(entries)
        func percent(_ value: Double, of goal: Double) -> Int {
            guard goal > 0 else { return 0 }
            // Bounded before the conversion: a goal of 1 kcal and a huge entry stay a number.
            return Int((min(value / goal * 100, 1_000_000)).rounded())
        }
        let logged = Set(loggedDates)
        let best = bestStreak(loggedDates)
        return ProgressSummary(
            user: user, date: date, logged: !entries.isEmpty,
            percent: MacroPercent(
                kcal: percent(totals.kcal, of: goals.kcal), carbohydrates: percent(totals.carbohydrates, of: goals.carbohydrates),
                protein: percent(totals.protein, of: goals.protein), fat: percent(totals.fat, of: goals.fat)),
            daysLogged7: (0..<7).count { logged.contains(date.adding(days: -$0)) },
            daysLogged30: (0..<30).count { logged.contains(date.adding(days: -$0)) },
            streak: streak(logged, endingOn: date), bestStreak: best, badges: ProgressSummary.badgeStreaks.filter { $0 <= best })
    }

    /// One person's figures for the week `start`…`end`, counted up to `last` (today, for a week
    /// still running).
    static func boardFigures(
        entries: [DiaryEntry], goals: GoalHistory, loggedDates: [LocalDate], last: LocalDate
    ) -> (daysLogged: Int, daysWithinGoal: Int, streak: Int) {
        let byDate = Dictionary(grouping: entries, by: \.date)
        let within = byDate.count { date, dayEntries in
            let goal = goals.inForce(on: date).goals.kcal
            return abs(DiaryMath.totals(dayEntries).kcal - goal) <= 0.1 * goal
        }
        return (byDate.count, within, streak(Set(loggedDates), endingOn: last))
    }

    /// Days within the goal, then days logged, then streak, each more first; rows equal on all
    /// three share a rank and are listed by name, then user id.
    static func ranked(_ rows: [BoardRow]) -> [BoardRow] {
        let ordered = rows.sorted { a, b in
            if a.daysWithinGoal != b.daysWithinGoal { return a.daysWithinGoal > b.daysWithinGoal }
            if a.daysLogged != b.daysLogged { return a.daysLogged > b.daysLogged }
            if a.streak != b.streak { return a.streak > b.streak }
            return (a.name, a.user) < (b.name, b.user)
        }
        var ranked: [BoardRow] = []
        for (index, var row) in ordered.enumerated() {
            if let previous = ranked.last,
                (previous.daysWithinGoal, previous.daysLogged, previous.streak) == (row.daysWithinGoal, row.daysLogged, row.streak)
            {
                row.rank = previous.rank
            } else {
                row.rank = index + 1
            }
            ranked.append(row)
        }
        return ranked
    }
}
