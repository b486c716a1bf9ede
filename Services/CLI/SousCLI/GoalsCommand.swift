import ArgumentParser
import SousClient
import SousSchema
import SousWire

/// `sous goals`: daily kcal and macro goals, effective from a date.
struct GoalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "goals",
        abstract: "Show or set your daily kcal, carbohydrate, protein and fat goals.",
        discussion: """
            A change takes effect from a date (default today); earlier days keep the goals they had. \
            Before any change the defaults are 2000 kcal, 250 g carbohydrates, 75 g protein, 65 g fat.
            """,
        subcommands: [Show.self, SetGoals.self, Presets.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The goals in force on a day.")

        @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let goals = try await global.client(Tracker.self).call(
                TrackerAPI.goals, DayRequest(date: try date.map { try trackerDate($0) }), session: global.token)
            if global.json { return try printJSON(goals) }
            Console.current.out("Goals on \(goals.date) (\(goals.from.map { "since \($0)" } ?? "defaults")):")
            Console.current.out(goalLines(goals.goals))
        }
    }

    struct SetGoals: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set goals from a date: all of --kcal --carbs --protein --fat, or --preset NAME (with an optional --kcal).",
            discussion: """
                Examples:
                  sous goals set --kcal 1800 --carbs 200 --protein 110 --fat 60
                  sous goals set --preset cutting --kcal 1700 --from 2026-03-16
                """
        )

        @Option(help: "kcal per day.") var kcal: Double?
        @Option(name: .customLong("carbs"), help: "Carbohydrates per day, grams.") var carbohydrates: Double?
        @Option(help: "Protein per day, grams.") var protein: Double?
        @Option(help: "Fat per day, grams.") var fat: Double?
        @Option(help: "A preset name (see `sous goals presets`).") var preset: String?
        @Option(help: "First day the goals apply, YYYY-MM-DD (default today).") var from: String?
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = ["goals.kcal": "--kcal", "goals.carbohydrates": "--carbs", "goals.protein": "--protein", "goals.fat": "--fat"]

        func run() async throws {
            let from = try from.map { try trackerDate($0, option: "--from") }
            let request: GoalsChange
            if let preset {
                guard carbohydrates == nil, protein == nil, fat == nil else { throw ValidationError("with --preset give only --kcal, not grams") }
                request = GoalsChange(from: from, preset: preset, kcal: kcal)
            } else {
                guard let kcal, let carbohydrates, let protein, let fat else {
                    throw ValidationError("give all of --kcal, --carbs, --protein and --fat, or --preset NAME")
                }
                request = GoalsChange(from: from, goals: Goals(kcal: kcal, carbohydrates: carbohydrates, protein: protein, fat: fat))
            }
            let goals = try await global.client(Tracker.self).call(TrackerAPI.setGoals, request, session: global.token)
            if global.json { return try printJSON(goals) }
            Console.current.out("Goals from \(goals.date):")
            Console.current.out(goalLines(goals.goals))
        }
    }

    struct Presets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Named macro splits with a one-line explanation each.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let presets = try await global.client(Tracker.self).call(TrackerAPI.presets, Empty(), session: global.token)
            if global.json { return try printJSON(presets) }
            var table = Table([("Preset", .left), ("kcal", .right), ("C/P/F %", .left), ("Carbs", .right), ("Protein", .right), ("Fat", .right)])
            for preset in presets.presets {
                let split =
                    "\(number(preset.split.carbohydrates, decimals: 0))/\(number(preset.split.protein, decimals: 0))/\(number(preset.split.fat, decimals: 0))"
                table.add([
                    preset.name, number(preset.goals.kcal, decimals: 0), split, "\(number(preset.goals.carbohydrates)) g",
                    "\(number(preset.goals.protein)) g", "\(number(preset.goals.fat)) g",
                ])
            }
            Console.current.out(table.render())
            Console.current.out("")
            for preset in presets.presets { Console.current.out("\(preset.name): \(preset.explanation)") }
        }
    }
}

private func goalLines(_ goals: Goals) -> String {
    "  kcal     \(number(goals.kcal, decimals: 0))\n  carbs    \(number(goals.carbohydrates)) g\n  protein  \(number(goals.protein)) g\n  fat      \(number(goals.fat)) g"
}
