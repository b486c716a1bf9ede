import ArgumentParser
import Foundation
import SousCharts
import SousClient
import SousSchema
import SousWire

/// `sous gluten`: predict your gluten tests, record their results, see how well you predict.
struct GlutenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gluten",
        abstract: "Predict gluten tests, record results, see your hit rate, streaks, badges and calendar.",
        discussion: """
            Before testing, predict: `sous gluten predict yes` (you expect the test to find gluten) or `no`. \
            After testing, record the result: `sous gluten result positive` or `negative`. A prediction can \
            change until the day has a result; a result is recorded once (`--replace` corrects it, `sous gluten \
            withdraw` removes it). The hit rate counts results that \
            had a prediction. A streak is consecutive correct predictions by date: a wrong one resets it, \
            days without a test or without a prediction do not. Badges at streaks of 3, 7 and 30. \
            Dates are YYYY-MM-DD, default today in the time zone of your cooking profile.
            """,
        subcommands: [Predict.self, Result.self, Withdraw.self, Stats.self, CalendarView.self, Chart.self]
    )

    enum Expectation: String, ExpressibleByArgument, CaseIterable {
        case yes, no
    }

    enum Outcome: String, ExpressibleByArgument, CaseIterable {
        case positive, negative
    }

    struct Predict: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Record what you expect a day's test to show: yes (gluten) or no.")

        @Argument(help: "yes: you expect the test to show gluten; no: you expect it not to.") var expectation: Expectation
        @Option(help: "The test day, YYYY-MM-DD (default: today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = GlutenPredictionRequest(date: try date.map { try parseJournalDate($0, option: "date") }, expectsGluten: expectation == .yes)
            let day = try await global.client(Tracker.self).call(CoeliacAPI.predict, request, session: global.token)
            if global.json { return try printJSON(day) }
            Console.current.out("Predicted for \(day.date): \(day.expectsGluten == true ? "gluten" : "no gluten").")
        }
    }

    struct Result: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(abstract: "Record a day's test result: positive (gluten found) or negative.")

        @Argument(help: "positive: the test found gluten; negative: it did not.") var outcome: Outcome
        @Option(help: "The test day, YYYY-MM-DD (default: today).") var date: String?
        @Flag(help: "Correct a result already recorded for the day.") var replace = false
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = ["replace": "--replace"]

        func run() async throws {
            let request = GlutenResultRequest(
                date: try date.map { try parseJournalDate($0, option: "date") }, positive: outcome == .positive, replace: replace ? true : nil
            )
            let recorded = try await global.client(Tracker.self).call(CoeliacAPI.recordResult, request, session: global.token)
            if global.json { return try printJSON(recorded) }
            let day = recorded.day
            let verdict =
                switch day.correct {
                case true?: "Your prediction was right."
                case false?: "Your prediction was wrong."
                case nil: "There was no prediction for this day."
                }
            Console.current.out(
                "Recorded \(day.positive == true ? "positive" : "negative") for \(day.date). \(verdict) Current streak: \(recorded.currentStreak).")
            for badge in recorded.newBadges {
                Console.current.out("Badge earned: \(badge.streak) correct predictions in a row!")
            }
        }
    }

    struct Withdraw: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Withdraw a day's recorded result (its prediction stays).")

        @Option(help: "The test day, YYYY-MM-DD.") var date: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = GlutenResultRemoval(date: try parseJournalDate(date, option: "date"))
            let day = try await global.client(Tracker.self).call(CoeliacAPI.deleteResult, request, session: global.token)
            if global.json { return try printJSON(day) }
            let prediction = day.expectsGluten.map { " Its prediction (\($0 ? "gluten" : "no gluten")) stays." } ?? ""
            Console.current.out("Withdrew the result of \(day.date).\(prediction)")
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show your hit rate, current and best streak, and badges.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let stats = try await global.client(Tracker.self).call(CoeliacAPI.stats, Empty(), session: global.token)
            if global.json { return try printJSON(stats) }
            Console.current.out(GlutenText.stats(stats))
        }
    }

    struct CalendarView: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "calendar", abstract: "Show a month as a grid with each day's test status.")

        @Argument(help: "The month, YYYY-MM (default: this month).") var month: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let calendar = try await global.client(Tracker.self).call(CoeliacAPI.calendar, try GlutenText.request(month), session: global.token)
            if global.json { return try printJSON(calendar) }
            Console.current.out(GlutenText.grid(calendar))
        }
    }

    struct Chart: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A month of predictions and test results as an SVG file.",
            discussion: """
                Each day's cell is tinted by its prediction (gluten expected or not); a filled dot is a \
                positive test, a ring a negative one, and a tick or cross says whether the prediction was right.
                  sous gluten chart 2026-03 --output march-gluten.svg
                """)

        @Argument(help: "The month, YYYY-MM (default: this month).") var month: String?
        @Option(help: "The SVG file to write (default: gluten-YYYY-MM.svg).") var output: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let calendar = try await global.client(Tracker.self).call(CoeliacAPI.calendar, try GlutenText.request(month), session: global.token)
            let name = String(format: "%04d-%02d", calendar.year, calendar.month)
            let chart = GlutenMonthChart(calendar, title: "Gluten tests, \(name)")
            let file = output ?? "gluten-\(name).svg"
            try writeChart(chart.render(), to: file)
            if global.json { return try printJSON(["file": file, "month": name]) }
            let tested = calendar.days.filter { $0.status == .positive || $0.status == .negative }.count
            Console.current.out("Wrote \(file): \(name), \(tested) days with a test result.")
        }
    }
}

/// Human renderings of gluten replies.
enum GlutenText {
    /// The calendar request for `month` (YYYY-MM), or for this month without one.
    static func request(_ month: String?) throws -> GlutenCalendarRequest {
        guard let month else { return GlutenCalendarRequest() }
        let parts = month.split(separator: "-")
        guard month.count == 7, parts.count == 2, let year = Int(parts[0]), let number = Int(parts[1]) else {
            throw ValidationError("the month must be in the form YYYY-MM, not \"\(month)\"")
        }
        return GlutenCalendarRequest(year: year, month: number)
    }

    static let symbols: [GlutenDayStatus: String] = [.nothing: "·", .predicted: "?", .negative: "-", .positive: "+"]
    static let legend = "+ positive   - negative   ? predicted, no result yet   · nothing"
    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December",
    ]

    /// The month as a Monday-first grid: each cell is the day number and its status symbol.
    static func grid(_ calendar: GlutenCalendar) -> String {
        let title = "\(monthNames[calendar.month - 1]) \(calendar.year)"
        let width = 7 * 3 + 6 * 2
        var lines = [
            String(repeating: " ", count: max(0, (width - title.count) / 2)) + title,
            ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].map { " \($0)" }.joined(separator: "  "),
        ]
        var cells = Array(repeating: "   ", count: (calendar.days.first?.date.isoWeekday ?? 1) - 1)
        for day in calendar.days {
            cells.append(String(format: "%2d", day.date.day) + symbols[day.status, default: "·"])
        }
        while !cells.isEmpty {
            lines.append(cells.prefix(7).joined(separator: "  ").trimmingTrailingSpaces())
            cells.removeFirst(min(7, cells.count))
        }
        let scored = calendar.days.filter { $0.correct != nil }
        lines.append("")
        lines.append(legend)
        if !scored.isEmpty {
            lines.append("This month: \(scored.filter { $0.correct == true }.count) of \(scored.count) predictions right.")
        }
        return lines.joined(separator: "\n")
    }

    static func stats(_ stats: GlutenStats) -> String {
        let hitRate =
            stats.hitRate.map { "\(($0 * 100).roundedInt)% (\(stats.correct) of \(stats.scored) predictions right)" }
            ?? "no predicted results yet"
        var rows = [
            ("Hit rate", hitRate),
            ("Results", "\(stats.results)"),
            ("Current streak", "\(stats.currentStreak)"),
            ("Best streak", "\(stats.bestStreak)"),
            ("Badges", stats.badges.isEmpty ? "none yet" : stats.badges.map { "\($0.streak) in a row (\($0.reachedOn))" }.joined(separator: ", ")),
        ]
        if let next = stats.nextBadge {
            rows.append(("Next badge", "\(next) in a row (\(max(0, next - stats.currentStreak)) to go)"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { label, value in label + String(repeating: " ", count: width - label.count + 2) + value }.joined(separator: "\n")
    }
}
