import ArgumentParser
import Foundation
import SousCharts
import SousClient
import SousSchema
import SousWire

/// `sous diary`: the food diary with macros (tracker service).
struct DiaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary",
        abstract: "Log what you eat and compare your day with your goals.",
        discussion: """
            Dates are YYYY-MM-DD; without --date a command means today in the time zone of your planner \
            profile (UTC if the planner cannot be reached). Meals: breakfast, lunch, dinner, snack. \
            Nutrition is per 100 g: kcal, carbohydrates (--carbs), protein and fat in grams.
            """,
        subcommands: [
            Add.self, LogRecipe.self, List.self, Edit.self, Delete.self, Summary.self, Status.self, History.self, Analysis.self, Yesterday.self,
            Export.self, Chart.self,
        ]
    )

    struct Add: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Log a food: typed in (name and --kcal/--carbs/--protein/--fat), --ingredient ID or --barcode CODE.",
            discussion: """
                Give --grams, or for an ingredient one of its household measures (sous ingredients show ID \
                lists them) with --portion and --count. Examples:
                  sous diary add "Porridge" --meal breakfast --grams 250 --kcal 70 --carbs 12 --protein 2.5 --fat 1.4
                  sous diary add --ingredient egg --meal breakfast --grams 60
                  sous diary add --ingredient banana --portion medium --meal snack
                  sous diary add --ingredient usda-18239 --portion "croissant, large" --count 2 --meal breakfast
                  sous diary add --barcode 2100000000005 --meal dinner --grams 125
                """
        )

        @Argument(help: "The food's name (required for typed-in food; overrides the source's name otherwise).") var food: String?
        @Option(help: "breakfast, lunch, dinner or snack.") var meal: String
        @Option(help: "Grams eaten, more than 0 and at most 5000.") var grams: Double?
        @Option(help: "A household measure of the --ingredient (\"medium\", \"cup, chopped\"): its first one starting so.") var portion: String?
        @Option(help: "How many of the --portion (default 1).") var count: Double = 1
        @Option(help: "A catalog ingredient id, e.g. egg.") var ingredient: String?
        @Option(help: "A product barcode (EAN-13, EAN-8 or UPC-A).") var barcode: String?
        @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?
        @OptionGroup var nutrition: NutritionOptions
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = NutritionOptions.flagsForFields

        func run() async throws {
            let request = DiaryAdd(
                date: try date.map { try trackerDate($0) }, meal: try trackerMeal(meal), grams: try await gramsEaten(), food: food,
                per100g: try nutrition.macros(), ingredient: ingredient, barcode: barcode
            )
            let entry = try await global.client(Tracker.self).call(TrackerAPI.addEntry, request, session: global.token)
            if global.json { return try printJSON(entry) }
            Console.current.out(
                "Logged #\(entry.id) \(entry.food), \(number(entry.grams)) g at \(entry.meal.rawValue) on \(entry.date): \(number(entry.totals.kcal, decimals: 0)) kcal."
            )
        }

        /// --grams, or --count of the ingredient's --portion in grams.
        func gramsEaten() async throws -> Double {
            switch (grams, portion) {
            case (let grams?, nil): return grams
            case (nil, let portion?):
                guard let ingredient else { throw ValidationError("--portion is a measure of an --ingredient") }
                guard count > 0, count <= 100 else { throw ValidationError("--count is more than 0 and at most 100") }
                let found = try await global.client(Catalog.self).call(
                    CatalogAPI.getIngredients, IngredientIDs(ids: [ingredient]), session: global.token)
                let measures = found.ingredients.first?.portions ?? []
                let wanted = portion.lowercased()
                guard
                    let measure = measures.first(where: { $0.name.lowercased() == wanted })
                        ?? measures.first(where: { $0.name.lowercased().hasPrefix(wanted) })
                else {
                    let known = measures.map(\.name).joined(separator: "; ")
                    throw ValidationError(
                        measures.isEmpty
                            ? "\(ingredient) has no household measures: give --grams" : "\(ingredient) has no \"\(portion)\"; it has: \(known)")
                }
                return count * measure.grams / measure.amount
            case (nil, nil): throw ValidationError("give --grams, or --portion of an --ingredient")
            case (.some, .some): throw ValidationError("give --grams or --portion, not both")
            }
        }
    }

    struct LogRecipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log-recipe",
            abstract: "Log servings of a catalog recipe with its nutrition per serving (what is eaten: a frying bath is not).",
            discussion: "`sous plan cooked` does this for a planned meal and marks it cooked; this logs any recipe."
        )

        @Argument(help: "Recipe id.") var recipe: String
        @Option(help: "breakfast, lunch, dinner or snack.") var meal: String
        @Option(help: "Servings eaten, more than 0 and at most 50.") var servings: Double = 1
        @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = RecipeServingLog(
                date: try date.map { try trackerDate($0) }, meal: try trackerMeal(meal), recipe: recipe, servings: servings)
            let entry = try await global.client(Tracker.self).call(TrackerAPI.logRecipeServing, request, session: global.token)
            if global.json { return try printJSON(entry) }
            Console.current.out(
                "Logged #\(entry.id) \(entry.food), \(number(entry.grams)) g at \(entry.meal.rawValue) on \(entry.date): \(number(entry.totals.kcal, decimals: 0)) kcal."
            )
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Which meals a day has entries for, and its kcal against the goal (what the 19:00 reminder checks).")

        @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let status = try await global.client(Tracker.self).call(
                TrackerAPI.diaryStatus, DiaryStatusRequest(date: try date.map { try trackerDate($0) }), session: global.token)
            if global.json { return try printJSON(status) }
            let meals = status.mealsLogged.isEmpty ? "nothing logged" : "logged: " + status.mealsLogged.map(\.rawValue).joined(separator: ", ")
            Console.current.out("\(status.date): \(meals); \(number(status.kcal, decimals: 0)) of \(number(status.kcalGoal, decimals: 0)) kcal.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a day's entries.")

        @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let day = try await global.client(Tracker.self).call(
                TrackerAPI.listEntries, DayRequest(date: try date.map { try trackerDate($0) }), session: global.token)
            if global.json { return try printJSON(day) }
            Console.current.out(dayHeading(day.day))
            guard !day.entries.isEmpty else { return Console.current.out("Nothing logged.") }
            Console.current.out(entryTable(day.entries))
        }
    }

    struct Edit: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Change an entry; options left out keep their value.",
            discussion: "Nutrition is replaced as a whole: give all of --kcal, --carbs, --protein and --fat, or none."
        )

        @Argument(help: "The entry id (see `sous diary list`).") var id: Int64
        @Option(help: "Move it to this day, YYYY-MM-DD.") var date: String?
        @Option(help: "breakfast, lunch, dinner or snack.") var meal: String?
        @Option(help: "A new name.") var food: String?
        @Option(help: "Grams eaten.") var grams: Double?
        @OptionGroup var nutrition: NutritionOptions
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = NutritionOptions.flagsForFields

        func run() async throws {
            let request = DiaryEdit(
                id: id, date: try date.map { try trackerDate($0) }, meal: try meal.map { try trackerMeal($0) }, food: food, grams: grams,
                per100g: try nutrition.macros()
            )
            let entry = try await global.client(Tracker.self).call(TrackerAPI.editEntry, request, session: global.token)
            if global.json { return try printJSON(entry) }
            Console.current.out("Updated #\(entry.id) \(entry.food), \(number(entry.grams)) g at \(entry.meal.rawValue) on \(entry.date).")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an entry.")

        @Argument(help: "The entry id.") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.client(Tracker.self).call(TrackerAPI.deleteEntry, EntryID(id: id), session: global.token)
            if global.json { return try printJSON(["deleted": id]) }
            Console.current.out("Deleted entry #\(id).")
        }
    }

    struct Summary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A day against your goals: a bar per macro, then the entries by meal.")

        @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let summary = try await global.client(Tracker.self).call(
                TrackerAPI.summary, DayRequest(date: try date.map { try trackerDate($0) }), session: global.token)
            if global.json { return try printJSON(summary) }
            let console = Console.current
            console.out(dayHeading(summary.day))
            let rows: [(String, Double, Double, Double, String)] = [
                ("kcal", summary.totals.kcal, summary.goals.kcal, summary.percent.kcal, ""),
                ("carbs", summary.totals.carbohydrates, summary.goals.carbohydrates, summary.percent.carbohydrates, " g"),
                ("protein", summary.totals.protein, summary.goals.protein, summary.percent.protein, " g"),
                ("fat", summary.totals.fat, summary.goals.fat, summary.percent.fat, " g"),
            ]
            for (name, total, goal, percent, unit) in rows {
                let label = name.padding(toLength: 8, withPad: " ", startingAt: 0)
                let amounts = "\(number(total, decimals: 0))/\(number(goal, decimals: 0))\(unit)"
                console.out("\(label)\(progressBar(percent))\(String(format: "%3.0f", percent))%  \(amounts)")
            }
            console.out(
                "water   \(summary.water) glass\(summary.water == 1 ? "" : "es")   coffee \(summary.coffee) cup\(summary.coffee == 1 ? "" : "s")")
            console.out(
                "Goals \(summary.goalsFrom.map { "since \($0)" } ?? "(defaults)"); remaining \(number(summary.remaining.kcal, decimals: 0)) kcal.")
            for group in summary.meals {
                console.out("\n\(group.meal.rawValue.capitalized) — \(number(group.totals.kcal, decimals: 0)) kcal")
                console.out(entryTable(group.entries))
            }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Totals per day over a range (at most 366 days), with a kcal bar against each day's goal.")

        @Option(help: "First day, YYYY-MM-DD.") var from: String
        @Option(help: "Last day, YYYY-MM-DD.") var to: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let range = DateRange(from: try trackerDate(from, option: "--from"), to: try trackerDate(to, option: "--to"))
            let history = try await global.client(Tracker.self).call(TrackerAPI.history, range, session: global.token)
            if global.json { return try printJSON(history) }
            var table = Table([
                ("Date", .left), ("kcal", .right), ("Goal", .right), ("", .left), ("Carbs", .right), ("Protein", .right), ("Fat", .right),
            ])
            for day in history.days {
                let percent = day.kcalGoal > 0 ? day.totals.kcal / day.kcalGoal * 100 : 0
                table.add([
                    day.date.description, number(day.totals.kcal, decimals: 0), number(day.kcalGoal, decimals: 0), progressBar(percent, width: 10),
                    number(day.totals.carbohydrates), number(day.totals.protein), number(day.totals.fat),
                ])
            }
            Console.current.out(table.render())
        }
    }

    struct Analysis: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Weekly averages, macro split and days within ±10 % of the kcal goal, over logged days.")

        @Option(help: "First day, YYYY-MM-DD.") var from: String
        @Option(help: "Last day, YYYY-MM-DD.") var to: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let range = DateRange(from: try trackerDate(from, option: "--from"), to: try trackerDate(to, option: "--to"))
            let analysis = try await global.client(Tracker.self).call(TrackerAPI.analysis, range, session: global.token)
            if global.json { return try printJSON(analysis) }
            let console = Console.current
            console.out("\(analysis.daysLogged) day\(analysis.daysLogged == 1 ? "" : "s") logged from \(range.from) to \(range.to).")
            guard analysis.daysLogged > 0 else { return }
            var table = Table([("Week of", .left), ("Days", .right), ("kcal/day", .right), ("Carbs", .right), ("Protein", .right), ("Fat", .right)])
            for week in analysis.weeks {
                table.add([
                    week.weekStart.description, String(week.daysLogged), number(week.average.kcal, decimals: 0), number(week.average.carbohydrates),
                    number(week.average.protein), number(week.average.fat),
                ])
            }
            console.out(table.render())
            let split = analysis.macroSplit
            console.out(
                String(format: "\nEnergy split: carbohydrates %.0f%%, protein %.0f%%, fat %.0f%%.", split.carbohydrates, split.protein, split.fat))
            console.out("Within ±10 % of the kcal goal on \(analysis.daysWithinKcalGoal) of \(analysis.daysLogged) logged days.")
        }
    }

    struct Yesterday: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Foods logged the day before, numbered; --add re-adds some of them.",
            discussion: "Example: `sous diary yesterday --add 1 --add 3` logs foods 1 and 3 again today, same meal and grams."
        )

        @Option(help: "The day to fill (default today); foods come from the day before.") var date: String?
        @Option(help: "Re-add food number N (repeatable).") var add: [Int] = []
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Tracker.self)
            let target = try date.map { try trackerDate($0) }
            let recent = try await client.call(TrackerAPI.yesterday, DayRequest(date: target), session: global.token)
            if let wrong = add.first(where: { $0 < 1 || $0 > recent.foods.count }) {
                throw ValidationError("--add \(wrong): there are \(recent.foods.count) foods from \(recent.date)")
            }
            var added: [DiaryEntry] = []
            for index in add {
                let food = recent.foods[index - 1]
                added.append(
                    try await client.call(
                        TrackerAPI.addEntry,
                        DiaryAdd(date: recent.date.adding(days: 1), meal: food.meal, grams: food.grams, food: food.food, per100g: food.per100g),
                        session: global.token
                    ))
            }
            if global.json { return try printJSON(add.isEmpty ? AnyReply.foods(recent) : AnyReply.added(added)) }
            if !added.isEmpty {
                return Console.current.out(
                    added.map { "Logged #\($0.id) \($0.food) (\(number($0.grams)) g, \($0.meal.rawValue)) on \($0.date)." }.joined(separator: "\n"))
            }
            guard !recent.foods.isEmpty else { return Console.current.out("Nothing was logged on \(recent.date).") }
            var table = Table([("#", .right), ("Meal", .left), ("Food", .left), ("Grams", .right), ("kcal", .right)])
            for (index, food) in recent.foods.enumerated() {
                table.add([
                    String(index + 1), food.meal.rawValue, food.food.truncated(40), number(food.grams),
                    number(food.per100g.kcal * food.grams / 100, decimals: 0),
                ])
            }
            Console.current.out("Logged on \(recent.date):\n" + table.render())
        }

        /// The JSON reply: the list, or the entries added from it.
        enum AnyReply: Encodable {
            case foods(RecentFoods)
            case added([DiaryEntry])

            func encode(to encoder: any Encoder) throws {
                switch self {
                case .foods(let foods): try foods.encode(to: encoder)
                case .added(let entries): try ["added": entries].encode(to: encoder)
                }
            }
        }
    }

    struct Chart: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "kcal and each macro per day over a range (at most 366 days), against the goal in force that day, as an SVG file.",
            discussion: """
                Bars are what you logged (a day with nothing logged has none), the line is the goal in force \
                that day; days over their goal are drawn in another colour. Open the file in a browser, or \
                convert it with rsvg-convert.
                  sous diary chart --from 2026-03-01 --to 2026-03-31 --output march.svg
                """)

        @Option(help: "First day, YYYY-MM-DD.") var from: String
        @Option(help: "Last day, YYYY-MM-DD.") var to: String
        @Option(help: "The SVG file to write (default: diary-FROM-TO.svg).") var output: String?
        @Option(help: "Only this one: kcal, carbohydrates, protein or fat (default: all four).") var only: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let range = DateRange(from: try trackerDate(from, option: "--from"), to: try trackerDate(to, option: "--to"))
            let series = try only.map { name in
                guard let series = MacroSeries(rawValue: name.lowercased()) else {
                    throw ValidationError("--only must be one of \(MacroSeries.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"")
                }
                return series
            }
            let history = try await global.client(Tracker.self).call(TrackerAPI.history, range, session: global.token)
            let svg = DiaryChart.svg(history, range: range, only: series)
            let file = output ?? "diary-\(range.from)-\(range.to).svg"
            try writeChart(svg, to: file)
            if global.json { return try printJSON(["file": file, "days": String(history.days.count)]) }
            Console.current.out("Wrote \(file): \(history.days.count) days, \(history.days.filter { $0.entries > 0 }.count) with entries.")
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The diary of a range as CSV (RFC 4180), to stdout or --output FILE.")

        @Option(help: "First day, YYYY-MM-DD.") var from: String
        @Option(help: "Last day, YYYY-MM-DD.") var to: String
        @Option(help: "Write the CSV to this file instead of printing it.") var output: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let range = DateRange(from: try trackerDate(from, option: "--from"), to: try trackerDate(to, option: "--to"))
            let export = try await global.client(Tracker.self).call(TrackerAPI.export, range, session: global.token)
            if let output {
                try Data(export.csv.utf8).write(to: URL(fileURLWithPath: output))
                if global.json { return try printJSON(["file": output, "rows": String(export.rows)]) }
                return Console.current.out("Wrote \(export.rows) entries to \(output).")
            }
            if global.json { return try printJSON(export) }
            // Byte for byte what the file gets: the CSV ends with its own CRLF.
            Console.current.out(export.csv, terminator: "")
        }
    }
}

/// --kcal, --carbs, --protein, --fat per 100 g: all four or none.
struct NutritionOptions: ParsableArguments {
    @Option(help: "kcal per 100 g (a note is printed when it is more than 25 % + 20 kcal from the 4/4/9 kcal per gram of the macros).")
    var kcal: Double?
    @Option(name: .customLong("carbs"), help: "Carbohydrates per 100 g, grams.") var carbohydrates: Double?
    @Option(help: "Protein per 100 g, grams.") var protein: Double?
    @Option(help: "Fat per 100 g, grams.") var fat: Double?

    /// The request fields these options fill, for the commands using them (``FlagsForFields``).
    static let flagsForFields = [
        "per100g.kcal": "--kcal", "per100g.carbohydrates": "--carbs", "per100g.protein": "--protein", "per100g.fat": "--fat",
    ]

    /// The macros given, or nil for none. Values far from what they add up to (see
    /// ``energyWarning(_:)``) are taken, with a note on stderr: labels round, and fibre or
    /// alcohol change the sum, but a typo usually shows here.
    func macros() throws -> Macros? {
        let given = [kcal, carbohydrates, protein, fat]
        if given.allSatisfy({ $0 == nil }) { return nil }
        guard let kcal, let carbohydrates, let protein, let fat else {
            throw ValidationError("give all of --kcal, --carbs, --protein and --fat (per 100 g), or none")
        }
        let macros = Macros(kcal: kcal, carbohydrates: carbohydrates, protein: protein, fat: fat)
        if let warning = Self.energyWarning(macros) { Console.current.err("sous: note: \(warning)") }
        return macros
    }

    /// How far --kcal may be from the 4/4/9 kcal per gram of carbohydrates, protein and fat
    /// before the command says so: a quarter of the larger of the two, plus 20 kcal.
    static func energyWarning(_ macros: Macros) -> String? {
        let energy = 4 * macros.carbohydrates + 4 * macros.protein + 9 * macros.fat
        guard abs(macros.kcal - energy) > 0.25 * max(macros.kcal, energy) + 20 else { return nil }
        return "--kcal \(number(macros.kcal, decimals: 0)) is far from the \(number(energy, decimals: 0)) kcal its carbohydrates, protein "
            + "and fat make at 4/4/9 kcal per gram; logged as given (check the label)"
    }
}

/// A YYYY-MM-DD option, or a usage error naming it.
func trackerDate(_ text: String, option: String = "--date") throws -> LocalDate {
    guard let date = LocalDate(text) else { throw ValidationError("\(option) must be a date as YYYY-MM-DD, not \"\(text)\"") }
    return date
}

func trackerMeal(_ text: String) throws -> Meal {
    guard let meal = Meal(rawValue: text.lowercased()) else {
        throw ValidationError("unknown meal \"\(text)\"; meals: \(Meal.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return meal
}

/// "[█████░░░░░]": filled to `percent` (capped at the width; a "+" marks going over 100 %).
func progressBar(_ percent: Double, width: Int = 20) -> String {
    let clamped = max(0, min(percent, 100))
    let filled = Int((clamped / 100 * Double(width)).rounded())
    return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "]" + (percent > 100 ? "+" : " ")
}

func dayHeading(_ day: ResolvedDay) -> String {
    var heading = "\(day.date)"
    if let zone = day.timeZone { heading += " (today in \(zone))" }
    if let note = day.note { heading += "\nNote: \(note)" }
    return heading
}

func entryTable(_ entries: [DiaryEntry]) -> String {
    var table = Table([
        ("#", .right), ("Meal", .left), ("Food", .left), ("Grams", .right), ("kcal", .right), ("Carbs", .right), ("Protein", .right), ("Fat", .right),
    ])
    for entry in entries {
        let totals = entry.totals
        table.add([
            String(entry.id), entry.meal.rawValue, entry.food.truncated(40), number(entry.grams), number(totals.kcal, decimals: 0),
            number(totals.carbohydrates), number(totals.protein), number(totals.fat),
        ])
    }
    return table.render()
}

/// Writes a chart's SVG text to `path`, saying which file could not be written and why.
func writeChart(_ svg: String, to path: String) throws {
    do {
        try Data(svg.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw ValidationError("could not write \(path): \(error.localizedDescription)")
    }
}
