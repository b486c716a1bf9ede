import Foundation
import SousSchema

/// A user's goal changes; the goals in force on a day are those of the latest change on or
/// before it, or ``Goals/default`` before the first.
struct GoalHistory: Sendable {
    struct Change: Sendable {
        var from: LocalDate
        var goals: Goals
    }

    /// Oldest first.
    var changes: [Change]

    func inForce(on date: LocalDate) -> (goals: Goals, from: LocalDate?) {
        guard let change = changes.last(where: { $0.from <= date }) else { return (.default, nil) }
        return (change.goals, change.from)
    }
}

/// Pure arithmetic over diary entries: summaries, history, analysis, presets and CSV.
enum DiaryMath {
    static func totals(_ entries: [DiaryEntry]) -> Macros {
        entries.reduce(into: Macros.zero) { sum, entry in
            let add = entry.totals
            sum.kcal += add.kcal
            sum.carbohydrates += add.carbohydrates
            sum.protein += add.protein
            sum.fat += add.fat
        }
    }

    static func summary(day: ResolvedDay, entries: [DiaryEntry], goals: (goals: Goals, from: LocalDate?), drinks: DrinkCounts) -> DailySummary {
        let totals = totals(entries)
        let goal = goals.goals
        func percent(_ value: Double, of target: Double) -> Double { target > 0 ? value / target * 100 : 0 }
        let meals = Meal.allCases.compactMap { meal -> MealGroup? in
            let inMeal = entries.filter { $0.meal == meal }
            return inMeal.isEmpty ? nil : MealGroup(meal: meal, entries: inMeal, totals: Self.totals(inMeal))
        }
        return DailySummary(
            day: day, goals: goal, goalsFrom: goals.from, totals: totals,
            remaining: Macros(
                kcal: goal.kcal - totals.kcal, carbohydrates: goal.carbohydrates - totals.carbohydrates,
                protein: goal.protein - totals.protein, fat: goal.fat - totals.fat),
            percent: Macros(
                kcal: percent(totals.kcal, of: goal.kcal), carbohydrates: percent(totals.carbohydrates, of: goal.carbohydrates),
                protein: percent(totals.protein, of: goal.protein), fat: percent(totals.fat, of: goal.fat)),
            meals: meals, water: drinks.water, coffee: drinks.coffee
        )
    }

    /// Every day from `range.from` to `range.to`, empty days with zero totals.
    static func history(_ range: DateRange, entries: [DiaryEntry], goals: GoalHistory) -> DiaryHistory {
        let byDate = Dictionary(grouping: entries, by: \.date)
        let days = (0...range.from.days(to: range.to)).map { offset -> DayTotals in
            let date = range.from.adding(days: offset)
            let dayEntries = byDate[date] ?? []
            let inForce = goals.inForce(on: date).goals
            return DayTotals(date: date, totals: totals(dayEntries), kcalGoal: inForce.kcal, entries: dayEntries.count, goals: inForce)
        }
        return DiaryHistory(days: days)
    }

    /// Weekly averages, energy split and days near the kcal goal, over days with entries only
    /// (an unlogged day is missing data, not a day of fasting).
    static func analysis(_ range: DateRange, entries: [DiaryEntry], goals: GoalHistory) -> DiaryAnalysis {
        let logged = history(range, entries: entries, goals: goals).days.filter { $0.entries > 0 }
        let byWeek = Dictionary(grouping: logged) { $0.date.adding(days: 1 - $0.date.isoWeekday) }
        let weeks = byWeek.keys.sorted().map { start -> WeekAverage in
            let days = byWeek[start]!
            let count = Double(days.count)
            let sum = days.reduce(into: Macros.zero) { sum, day in
                sum.kcal += day.totals.kcal
                sum.carbohydrates += day.totals.carbohydrates
                sum.protein += day.totals.protein
                sum.fat += day.totals.fat
            }
            return WeekAverage(
                weekStart: start, daysLogged: days.count,
                average: Macros(kcal: sum.kcal / count, carbohydrates: sum.carbohydrates / count, protein: sum.protein / count, fat: sum.fat / count)
            )
        }
        let all = totals(entries.filter { $0.date >= range.from && $0.date <= range.to })
        let within = logged.filter { abs($0.totals.kcal - $0.kcalGoal) <= 0.1 * $0.kcalGoal }.count
        return DiaryAnalysis(range: range, daysLogged: logged.count, weeks: weeks, macroSplit: split(all), daysWithinKcalGoal: within)
    }

    /// Percent of macro energy from each macro: 4 kcal/g carbohydrates and protein, 9 kcal/g fat.
    static func split(_ macros: Macros) -> MacroSplit {
        let carbohydrates = macros.carbohydrates * 4
        let protein = macros.protein * 4
        let fat = macros.fat * 9
        let energy = carbohydrates + protein + fat
        guard energy > 0 else { return MacroSplit(carbohydrates: 0, protein: 0, fat: 0) }
        return MacroSplit(carbohydrates: carbohydrates / energy * 100, protein: protein / energy * 100, fat: fat / energy * 100)
    }

    /// Grams of each macro that give `split` of `kcal`, rounded to whole grams.
    static func goals(kcal: Double, split: MacroSplit) -> Goals {
        Goals(
            kcal: kcal.rounded(), carbohydrates: (kcal * split.carbohydrates / 100 / 4).rounded(),
            protein: (kcal * split.protein / 100 / 4).rounded(), fat: (kcal * split.fat / 100 / 9).rounded()
        )
    }

    static let presets: [GoalPreset] = [
        preset(
            "maintenance", 2000, (50, 20, 30),
            "Balanced split to hold your weight: half the energy from carbohydrates, a fifth from protein, the rest from fat."),
        preset("cutting", 1600, (40, 35, 25), "An energy deficit with high protein, to keep muscle while losing fat."),
        preset("bulking", 2800, (50, 25, 25), "An energy surplus with plenty of carbohydrates and protein, to fuel training and build muscle."),
        preset("endurance", 2600, (60, 15, 25), "Carbohydrate-heavy, to refill glycogen for long runs, rides and swims."),
        preset("low-carb", 1800, (20, 30, 50), "Few starches and sugars, energy mostly from fat and protein."),
    ]

    private static func preset(_ name: String, _ kcal: Double, _ split: (Double, Double, Double), _ explanation: String) -> GoalPreset {
        let macroSplit = MacroSplit(carbohydrates: split.0, protein: split.1, fat: split.2)
        return GoalPreset(name: name, explanation: explanation, split: macroSplit, goals: goals(kcal: kcal, split: macroSplit))
    }

    // MARK: CSV

    static let csvHeader = [
        "date", "meal", "food", "grams", "kcal_per_100g", "carbohydrates_per_100g", "protein_per_100g", "fat_per_100g",
        "kcal", "carbohydrates", "protein", "fat", "source", "reference", "logged_at",
    ]

    /// RFC 4180: comma-separated, CRLF line ends, fields with commas, quotes or line breaks in
    /// double quotes with inner quotes doubled. Numbers with at most 2 decimals, times in ISO 8601 UTC.
    static func csv(_ entries: [DiaryEntry]) -> String {
        let time = ISO8601DateFormatter()
        var lines = [csvHeader.map(csvField).joined(separator: ",")]
        for entry in entries {
            let totals = entry.totals
            let fields = [
                entry.date.description, entry.meal.rawValue, entry.food, plain(entry.grams),
                plain(entry.per100g.kcal), plain(entry.per100g.carbohydrates), plain(entry.per100g.protein), plain(entry.per100g.fat),
                plain(totals.kcal), plain(totals.carbohydrates), plain(totals.protein), plain(totals.fat),
                entry.source.kind.rawValue, entry.source.reference ?? "", time.string(from: entry.loggedAt),
            ]
            lines.append(fields.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// At most two decimals, no trailing zeros ("12.5", "100").
    static func plain(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        // Beyond 2^53 every Double is whole, and Int64 would trap past 2^63: print those as they are.
        guard rounded.isFinite, abs(rounded) < 9e15 else { return String(format: "%.0f", rounded) }
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
