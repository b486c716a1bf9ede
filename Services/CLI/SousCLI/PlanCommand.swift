import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Your meal plan: the recipes you picked and the week you cook them in.",
        discussion: """
            The plan shows 7 days from today in your profile's time zone, with a lunch (1) and a dinner (2) slot \
            each. DATE is \(PlanDate.forms); SLOT is 1, 2, lunch or dinner.
              sous plan add tomato-lentil-soup
              sous plan put tomorrow dinner tomato-lentil-soup
              sous plan move tomorrow dinner +3 lunch
              sous plan cooked today dinner
            """,
        subcommands: [
            Show.self, List.self, Add.self, Remove.self, Put.self, Move.self, Clear.self, Fill.self, Cooked.self, Multiplier.self, Household.self,
            PlanTemplateCommand.self, ICS.self, PlanFeedCommand.self, Watch.self,
        ]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The week as a grid (days as rows, lunch and dinner as columns); --from/--to for past days.")
        @Option(help: "First date of a range to show instead of the week: \(PlanDate.forms).") var from: String?
        @Option(help: "Last date of that range.") var to: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Planner.self)
            let token = try global.token
            if from != nil || to != nil {
                guard let from, let to else { throw ValidationError("give both --from and --to") }
                let week = try await client.call(PlannerAPI.getPlan, Empty(), session: token)
                let range = PlanDateRange(from: try PlanDate.resolve(from, today: week.today), to: try PlanDate.resolve(to, today: week.today))
                let days = try await client.call(PlannerAPI.history, range, session: token)
                if global.json { return try printJSON(days) }
                return Console.current.out(renderPlanGrid(days.days))
            }
            let week = try await client.call(PlannerAPI.getPlan, Empty(), session: token)
            if global.json { return try printJSON(week) }
            Console.current.out("Week of \(week.today) (\(week.timeZone))\n")
            Console.current.out(renderPlanGrid(week.days))
            Console.current.out("")
            if week.selection.isEmpty {
                Console.current.out("No recipes picked yet: sous plan add RECIPE")
            } else {
                Console.current.out(
                    "Picked: "
                        + week.selection.map { "\($0.name) (\($0.id))\($0.plannedSlots > 0 ? " ×\($0.plannedSlots)" : "")" }.joined(separator: ", "))
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the week each time anyone in your household changes the plan (Ctrl-C stops).",
            discussion: """
                Waits on the planner (plan.wait) rather than asking again and again: a meal another member plans shows \
                here within a second. With --json each change is one JSON object per line (the week). --count and \
                --timeout make it return by itself (for scripts): exit 5 if --count changes did not come within --timeout seconds.
                """)
        @OptionGroup var watch: WatchOptions
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let token = try global.token
            let client = global.client(Planner.self)
            // The version comes first, so a change made after the "Watching" line is never missed.
            var version = try await client.call(PlannerAPI.getPlan, Empty(), session: token).version
            if !global.json { Console.current.out("Watching your household's plan (version \(version))…") }
            try await watch.run(one: "change", many: "changes") { wait, _ in
                let now = try await client.call(
                    PlannerAPI.wait, PlanWait(after: version, waitSeconds: wait), session: token, timeout: .milliseconds(Int(wait * 1000) + 10_000))
                guard now.changed else { return 0 }
                let week = try await client.call(PlannerAPI.getPlan, Empty(), session: token)
                version = week.version
                if global.json {
                    try printJSONLine(week)
                    return 1
                }
                Console.current.out("Version \(week.version), week of \(week.today):")
                Console.current.out(renderPlanGrid(week.days))
                return 1
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The recipes you picked for the plan, with how many slots each fills this week.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let selection = try await global.client(Planner.self).call(PlannerAPI.selection, Empty(), session: global.token)
            if global.json { return try printJSON(selection) }
            printSelection(selection)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pick a recipe for the plan (it must exist in the catalog).")
        @Argument(help: "Recipe id.") var recipe: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let selection = try await global.client(Planner.self).call(PlannerAPI.addRecipe, RecipeID(id: recipe), session: global.token)
            if global.json { return try printJSON(selection) }
            printSelection(selection)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Drop a recipe from the plan; the slots holding it from today on are cleared.")
        @Argument(help: "Recipe id.") var recipe: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let selection = try await global.client(Planner.self).call(PlannerAPI.removeRecipe, RecipeID(id: recipe), session: global.token)
            if global.json { return try printJSON(selection) }
            printSelection(selection)
        }
    }

    struct Multiplier: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How many times to buy a recipe: the slots it fills in your week (at least 1), as the grocery list assumes."
        )
        @Argument(help: "Recipe id.") var recipe: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let result = try await global.client(Planner.self).call(PlannerAPI.suggestedMultiplier, RecipeID(id: recipe), session: global.token)
            if global.json { return try printJSON(result) }
            let slots = result.plannedSlots == 1 ? "1 slot" : "\(result.plannedSlots) slots"
            Console.current.out("\(result.recipe): buy ×\(result.multiplier) (planned in \(slots) this week).")
        }
    }

    struct Household: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "How many people you cook for and the slots a recipe (or each planned recipe) fills in your week: what the grocery list scales by."
        )
        @Argument(help: "Recipe id (not looked up: an unknown one fills no slot). Without one: every recipe planned this week.")
        var recipe: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Planner.self)
            guard let recipe else {
                let week = try await client.call(PlannerAPI.weekHousehold, Empty(), session: global.token)
                if global.json { return try printJSON(week) }
                let planned = week.planned.map { "\($0.recipe) \(Self.slots($0.slots))" }
                Console.current.out(
                    "Cooking for \(Self.people(week.people)); \(planned.isEmpty ? "nothing planned this week" : "this week: \(planned.joined(separator: ", "))")."
                )
                return
            }
            let result = try await client.call(PlannerAPI.household, RecipeID(id: recipe), session: global.token)
            if global.json { return try printJSON(result) }
            Console.current.out("Cooking for \(Self.people(result.people)); \(result.recipe) fills \(Self.slots(result.plannedSlots)) this week.")
        }

        private static func people(_ count: Int) -> String { count == 1 ? "1 person" : "\(count) people" }
        private static func slots(_ count: Int) -> String { count == 1 ? "1 slot" : "\(count) slots" }
    }

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put a recipe into a slot (picking it if you had not yet).")
        @Argument(help: "Date: \(PlanDate.forms).") var date: String
        @Argument(help: "1 / lunch or 2 / dinner.") var slot: String
        @Argument(help: "Recipe id.") var recipe: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Planner.self)
            let ref = try await PlanDate.slot(date, slot, client: client, session: global.token)
            let result = try await client.call(
                PlannerAPI.putSlot, SlotAssignment(date: ref.date, slot: ref.slot, recipe: recipe), session: global.token)
            if global.json { return try printJSON(result) }
            Console.current.out("\(result.meal.rawValue.capitalized) on \(result.date): \(result.recipeName ?? recipe)")
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a slot's recipe to another slot; if that one is taken, the two swap.")
        @Argument(help: "From date: \(PlanDate.forms).") var fromDate: String
        @Argument(help: "From slot.") var fromSlot: String
        @Argument(help: "To date, in the same forms.") var toDate: String
        @Argument(help: "To slot.") var toSlot: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Planner.self)
            let week = try await client.call(PlannerAPI.getPlan, Empty(), session: global.token)
            let from = SlotRef(date: try PlanDate.resolve(fromDate, today: week.today), slot: try PlanDate.slot(fromSlot))
            let to = SlotRef(date: try PlanDate.resolve(toDate, today: week.today), slot: try PlanDate.slot(toSlot))
            let result = try await client.call(PlannerAPI.moveSlot, SlotMove(from: from, to: to), session: global.token)
            if global.json { return try printJSON(result) }
            Console.current.out(renderPlanGrid(result.days))
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Empty a slot (the recipe stays picked), or undo a `sous plan fill` with --fill.",
            discussion: """
                  sous plan clear tomorrow dinner
                  sous plan clear --fill        (the latest fill)
                  sous plan clear --fill 3
                Undoing a fill empties the slots it filled that still hold its recipe and are not cooked.
                """
        )
        @Argument(help: "Date (or, with --fill, the fill's number): \(PlanDate.forms).") var date: String?
        @Argument(help: "Slot.") var slot: String?
        @Flag(name: .customLong("fill"), help: "Undo a `sous plan fill` instead: the latest, or the one numbered after --fill.") var undoFill = false
        @OptionGroup var global: GlobalOptions

        /// The fill to undo: the number given, or nil for the latest.
        func fillNumber() throws -> Int64? {
            guard let date else { return nil }
            guard let number = Int64(date), number > 0 else { throw ValidationError("--fill takes a fill's number, got \"\(date)\"") }
            return number
        }

        func validate() throws {
            if undoFill {
                if slot != nil { throw ValidationError("--fill takes at most a fill's number, not a slot") }
                _ = try fillNumber()
            } else if date == nil || slot == nil {
                throw ValidationError("give a date and a slot (or --fill to undo a fill)")
            }
        }

        func run() async throws {
            let client = global.client(Planner.self)
            guard !undoFill, let date, let slot else {
                let result = try await client.call(PlannerAPI.unfill, PlanFillRef(fill: try fillNumber()), session: global.token)
                if global.json { return try printJSON(result) }
                Console.current.out(
                    "Undid fill \(result.fill): cleared \(result.cleared.count) slot\(result.cleared.count == 1 ? "" : "s")"
                        + (result.unselected.isEmpty ? "." : " and took \(result.unselected.joined(separator: ", ")) off your recipes."))
                if !result.kept.isEmpty {
                    Console.current.out(
                        "Kept (cooked, changed since or past): "
                            + result.kept.map { "\(PlanSlotKind.meal(of: $0.slot)?.rawValue ?? "slot \($0.slot)") on \($0.date)" }.joined(
                                separator: ", "))
                }
                return
            }
            let ref = try await PlanDate.slot(date, slot, client: client, session: global.token)
            let result = try await client.call(PlannerAPI.clearSlot, ref, session: global.token)
            if global.json { return try printJSON(result) }
            Console.current.out("Cleared \(result.meal.rawValue) on \(result.date).")
        }
    }

    struct Fill: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Fill the week's empty slots with recipes that pass your profile, and say why each.",
            discussion: """
                Only empty slots are filled. A recipe does not come back within --no-repeat-days days (counting what \
                is planned and the days before today); --budget caps what the whole week's planned meals cost for your \
                profile's number of people; --kcal MIN-MAX keeps each day's lunch and dinner together in that range \
                (per person). The same --seed gives the same week. Undo with `sous plan clear --fill`.
                  sous plan fill
                  sous plan fill --budget 60 --kcal 1200-1800 --seed 7
                  sous plan fill --from tomorrow --slot dinner
                """
        )
        @Option(help: "First day to fill: \(PlanDate.forms); default today.") var from: String?
        @Option(help: "Last day to fill; default the end of the week.") var to: String?
        @Option(name: .customLong("slot"), help: "Only this slot: 1 / lunch or 2 / dinner (repeatable).") var slots: [String] = []
        @Option(help: "Dish type to plan; default \"main course\".") var dishType: DishType?
        @Option(help: "Days within which a recipe does not repeat (0–28; default 7).") var noRepeatDays: Int?
        @Option(help: "Budget in EUR for the week's planned meals.") var budget: Double?
        @Option(help: ArgumentHelp("kcal per person for a day's lunch and dinner together.", valueName: "MIN-MAX")) var kcal: String?
        @Option(help: "Seed for the draw; default a random one (printed).") var seed: UInt64?
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = [
            "slots": "--slot", "dishType": "--dish-type", "noRepeatDays": "--no-repeat-days", "weeklyBudget": "--budget", "dailyKcal": "--kcal",
        ]

        func dailyKcal() throws -> KcalRange? {
            guard let kcal else { return nil }
            let parts = kcal.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]) else {
                throw ValidationError("--kcal \"\(kcal)\" is not a range like 1200-1800")
            }
            return KcalRange(min: low, max: high)
        }

        func validate() throws { _ = try dailyKcal() }

        func run() async throws {
            let client = global.client(Planner.self)
            let token = try global.token
            var request = PlanFill(
                slots: slots.isEmpty ? nil : try slots.map(PlanDate.slot), dishType: dishType, noRepeatDays: noRepeatDays, weeklyBudget: budget,
                dailyKcal: try dailyKcal(), seed: seed)
            if from != nil || to != nil {
                let today = try await client.call(PlannerAPI.getPlan, Empty(), session: token).today
                request.from = try from.map { try PlanDate.resolve($0, today: today) }
                request.to = try to.map { try PlanDate.resolve($0, today: today) }
            }
            let result = try await client.call(PlannerAPI.fill, request, session: token)
            if global.json { return try printJSON(result) }
            Console.current.out(renderPlanGrid(result.days))
            Console.current.out("")
            if result.filled.isEmpty {
                Console.current.out("Nothing filled (\(result.candidates) recipes pass your profile).")
            } else {
                Console.current.out(
                    "Filled \(result.filled.count) slot\(result.filled.count == 1 ? "" : "s") from \(result.candidates) recipes (seed \(result.seed)); "
                        + String(format: "the week's meals cost €%.2f. ", result.weekCost) + "Undo: sous plan clear --fill \(result.fill)")
                for slot in result.filled {
                    Console.current.out("\n\(PlanSlotKind.meal(of: slot.slot)?.rawValue.capitalized ?? "Slot") \(slot.date): \(slot.recipeName)")
                    for reason in slot.reasons { Console.current.out("  - \(reason)") }
                }
            }
            if !result.unfilled.isEmpty {
                Console.current.out("\nLeft empty:")
                for slot in result.unfilled {
                    Console.current.out("  \(PlanSlotKind.meal(of: slot.slot)?.rawValue ?? "slot") \(slot.date): \(slot.reason)")
                }
            }
        }
    }

    struct Cooked: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say you cooked a planned meal: it is marked in the plan and one serving is logged to your diary.",
            discussion: """
                --for names other members of your household who ate it too (user ids from `sous household show`): each gets \
                one serving in their own diary, once. If the tracker cannot be reached the meal is still marked; run the \
                command again later to log it. Exit code 5 when logging failed.
                """
        )
        @Argument(help: "Date (today or up to 7 days back): \(PlanDate.forms).") var date: String
        @Argument(help: "Slot.") var slot: String
        @Option(name: .customLong("for"), help: "Another member who ate it too (repeat for several).") var others: [String] = []
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Planner.self)
            let ref = try await PlanDate.slot(date, slot, client: client, session: global.token)
            let request = CookedSlot(date: ref.date, slot: ref.slot, alsoEatenBy: others.isEmpty ? nil : others)
            let result = try await client.call(PlannerAPI.cooked, request, session: global.token)
            if global.json {
                try printJSON(result)
            } else {
                let name = result.slot.recipeName ?? result.slot.recipe ?? ""
                Console.current.out("Cooked \(name) for \(result.slot.meal.rawValue) on \(result.slot.date).")
                if let entry = result.diaryEntry {
                    Console.current.out("Logged 1 serving to your diary (\(entry.totals.kcal.roundedInt) kcal, entry \(entry.id)).")
                }
                for other in result.others where other.logged {
                    Console.current.out(
                        other.diaryEntry.map { "Logged 1 serving to \(other.user)'s diary (entry \($0.id))." }
                            ?? "\(other.user) had it logged already.")
                }
                if let pantry = result.pantry, !pantry.taken.isEmpty {
                    Console.current.out(
                        "Taken from the pantry: "
                            + pantry.taken.map { "\(Int($0.quantity.rounded())) \($0.unit == .piece ? "×" : $0.unit.rawValue) \($0.name)" }.joined(
                                separator: ", ") + ".")
                    let out = pantry.taken.filter(\.ranOut).map(\.name)
                    if !out.isEmpty { Console.current.out("Ran out of: \(out.joined(separator: ", ")).") }
                }
            }
            if let message = result.pantryError { Console.current.err("sous: \(message)") }
            if let message = result.loggingError {
                Console.current.err("sous: \(message)")
            }
            for other in result.others { if let message = other.error { Console.current.err("sous: \(other.user): \(message)") } }
            if result.loggingError != nil || result.others.contains(where: { $0.error != nil }) {
                throw ExitCode(ExitCodes.unavailable)
            }
        }
    }

    struct ICS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ics",
            abstract: "Export the week (or --from/--to) as an iCalendar file for your calendar app.",
            discussion:
                "Lunch is 12:00–13:00 and dinner 19:00–20:00 in your time zone. Events keep their UID across exports, so re-importing updates them."
        )
        @Option(help: "First date: \(PlanDate.forms).") var from: String?
        @Option(help: "Last date.") var to: String?
        @Option(name: [.short, .long], help: "Write to this file instead of standard output.") var output: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Planner.self)
            var request = CalendarRequest()
            if from != nil || to != nil {
                let today = try await client.call(PlannerAPI.getPlan, Empty(), session: global.token).today
                request.from = try from.map { try PlanDate.resolve($0, today: today) }
                request.to = try to.map { try PlanDate.resolve($0, today: today) }
            }
            let export = try await client.call(PlannerAPI.calendar, request, session: global.token)
            if let output {
                do {
                    try Data(export.calendar.utf8).write(to: URL(fileURLWithPath: output))
                } catch {
                    throw ValidationError("cannot write \(output): \(error.localizedDescription)")
                }
                if global.json { return try printJSON(["file": output, "events": "\(export.events)"]) }
                return Console.current.out("Wrote \(export.events) meal\(export.events == 1 ? "" : "s") to \(output).")
            }
            if global.json { return try printJSON(export) }
            // Byte for byte what the file gets: the calendar ends with its own CRLF.
            Console.current.out(export.calendar, terminator: "")
        }
    }
}

/// Dates and slots as people type them.
enum PlanDate {
    /// The forms a day takes, for help and errors.
    static let forms = "YYYY-MM-DD, today, tomorrow, yesterday, +N or -N (N days after or before today)"

    static func resolve(_ text: String, today: LocalDate) throws -> LocalDate {
        // `sous` hands -N on as " -N" (SousCommand.dayOffsetsAsValues).
        let text = text.trimmingCharacters(in: .whitespaces)
        switch text.lowercased() {
        case "today": return today
        case "tomorrow": return today.adding(days: 1)
        case "yesterday": return today.adding(days: -1)
        default:
            if text.hasPrefix("+") || text.hasPrefix("-") {
                guard let offset = Int(text), let date = today.offset(by: offset) else {
                    throw ValidationError("\"\(text)\" is not a day offset: use +N or -N days within the years 0001 to 9999")
                }
                return date
            }
            guard let date = LocalDate(text) else { throw ValidationError("\"\(text)\" is not a date: use \(forms)") }
            return date
        }
    }

    static func slot(_ text: String) throws -> Int {
        switch text.lowercased() {
        case "1", "lunch": 1
        case "2", "dinner": 2
        default: throw ValidationError("\"\(text)\" is not a slot: use 1 / lunch or 2 / dinner")
        }
    }

    /// Resolves a date and slot, reading "today" from the planner only when the date is relative.
    static func slot(_ date: String, _ slot: String, client: ServiceClient<Planner>, session token: String) async throws -> SlotRef {
        let number = try self.slot(slot)
        if let absolute = LocalDate(date) { return SlotRef(date: absolute, slot: number) }
        let today = try await client.call(PlannerAPI.getPlan, Empty(), session: token).today
        return SlotRef(date: try resolve(date, today: today), slot: number)
    }
}

private let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

/// Days as rows, lunch and dinner as columns; cooked meals get a ✓.
func renderPlanGrid(_ days: [PlanDay]) -> String {
    var table = Table([("DAY", .left), ("LUNCH", .left), ("DINNER", .left)])
    for day in days {
        let label = "\(weekdayNames[(day.weekday - 1) % 7]) \(day.date)\(day.isToday ? "  Today" : "")"
        let cells = day.slots.map { slot -> String in
            guard let recipe = slot.recipe else { return "—" }
            return (slot.cookedAt != nil ? "✓ " : "") + (slot.recipeName ?? recipe).truncated(32)
        }
        table.add([label] + cells)
    }
    return table.render()
}

private func printSelection(_ selection: PlanSelection) {
    guard !selection.recipes.isEmpty else { return Console.current.out("No recipes picked yet: sous plan add RECIPE") }
    var table = Table([("RECIPE", .left), ("ID", .left), ("THIS WEEK", .right)])
    for recipe in selection.recipes {
        table.add([recipe.name.truncated(40), recipe.id, "\(recipe.plannedSlots)"])
    }
    Console.current.out(table.render())
}
