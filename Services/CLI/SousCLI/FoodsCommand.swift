import ArgumentParser
import SousClient
import SousSchema
import SousWire

/// `sous foods`: saved foods ("my diet") for quick logging.
struct FoodsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foods",
        abstract: "Keep foods you eat often and log them with a quantity.",
        discussion: "A saved food has a portion in grams and nutrition per 100 g; `log` adds quantity × portion grams to the diary.",
        subcommands: [Add.self, List.self, Edit.self, Delete.self, Log.self]
    )

    struct Add: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Save a food.",
            discussion:
                "Example: sous foods add \"Protein shake\" --grams 300 --kcal 80 --carbs 6 --protein 10 --fat 1.5 --meal breakfast --meal snack"
        )

        @Argument(help: "Its name.") var name: String
        @Option(help: "One portion, grams.") var grams: Double
        @Option(help: "A meal it suits (repeatable; none: any meal).") var meal: [String] = []
        @OptionGroup var nutrition: NutritionOptions
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = NutritionOptions.flagsForFields.merging(["meals": "--meal"]) { nutrition, _ in nutrition }

        func run() async throws {
            guard let per100g = try nutrition.macros() else { throw ValidationError("give --kcal, --carbs, --protein and --fat per 100 g") }
            let draft = SavedFoodDraft(name: name, meals: try meal.map(trackerMeal), grams: grams, per100g: per100g)
            let food = try await global.client(Tracker.self).call(TrackerAPI.createFood, draft, session: global.token)
            if global.json { return try printJSON(food) }
            Console.current.out("Saved #\(food.id) \(food.name) (\(number(food.grams)) g portion).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your saved foods, optionally only those suiting a meal.")

        @Option(help: "Only foods for this meal.") var meal: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Tracker.self).call(
                TrackerAPI.listFoods, SavedFoodFilter(meal: try meal.map(trackerMeal)), session: global.token)
            if global.json { return try printJSON(list) }
            guard !list.foods.isEmpty else { return Console.current.out("No saved foods.") }
            var table = Table([("#", .right), ("Food", .left), ("Meals", .left), ("Portion", .right), ("kcal/portion", .right)])
            for food in list.foods {
                table.add([
                    String(food.id), food.name.truncated(40), food.meals.isEmpty ? "any" : food.meals.map(\.rawValue).joined(separator: ","),
                    "\(number(food.grams)) g", number(food.per100g.kcal * food.grams / 100, decimals: 0),
                ])
            }
            Console.current.out(table.render())
        }
    }

    struct Edit: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Change a saved food; options left out keep their value (nutrition: all four or none).")

        @Argument(help: "The saved food's id.") var id: Int64
        @Option(help: "A new name.") var name: String?
        @Option(help: "Portion grams.") var grams: Double?
        @Option(help: "Meals it suits (repeatable; replaces the list).") var meal: [String] = []
        @Flag(help: "Suits any meal (clears the list).") var anyMeal = false
        @OptionGroup var nutrition: NutritionOptions
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = NutritionOptions.flagsForFields.merging(["meals": "--meal"]) { nutrition, _ in nutrition }

        func run() async throws {
            let meals: [Meal]? = anyMeal ? [] : (meal.isEmpty ? nil : try meal.map(trackerMeal))
            let edit = SavedFoodEdit(id: id, name: name, meals: meals, grams: grams, per100g: try nutrition.macros())
            let food = try await global.client(Tracker.self).call(TrackerAPI.editFood, edit, session: global.token)
            if global.json { return try printJSON(food) }
            Console.current.out("Updated #\(food.id) \(food.name) (\(number(food.grams)) g portion).")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a saved food (diary entries logged from it stay).")

        @Argument(help: "The saved food's id.") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.client(Tracker.self).call(TrackerAPI.deleteFood, EntryID(id: id), session: global.token)
            if global.json { return try printJSON(["deleted": id]) }
            Console.current.out("Deleted saved food #\(id).")
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log a saved food: quantity × its portion, at a meal (default its first meal, else snack).")

        @Argument(help: "The saved food's id.") var id: Int64
        @Option(help: "Portions (default 1).") var quantity: Double?
        @Option(help: "breakfast, lunch, dinner or snack.") var meal: String?
        @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = SavedFoodLog(id: id, date: try date.map { try trackerDate($0) }, meal: try meal.map(trackerMeal), quantity: quantity)
            let entry = try await global.client(Tracker.self).call(TrackerAPI.logFood, request, session: global.token)
            if global.json { return try printJSON(entry) }
            Console.current.out(
                "Logged #\(entry.id) \(entry.food), \(number(entry.grams)) g at \(entry.meal.rawValue) on \(entry.date): \(number(entry.totals.kcal, decimals: 0)) kcal."
            )
        }
    }
}
