import ArgumentParser
import SousClient
import SousSchema
import SousWire

/// `sous water` and `sous coffee`: glasses and cups per day.
struct WaterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "water",
        abstract: "Count glasses of water: `sous water +` adds one, `sous water - 2` removes two, `sous water` shows today's count.",
        discussion: "Counts never go below 0. --date YYYY-MM-DD counts another day."
    )

    @OptionGroup var change: DrinkChangeOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws { try await change.run(.water, global: global) }
}

struct CoffeeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffee",
        abstract: "Count cups of coffee: `sous coffee +` adds one, `sous coffee -` removes one, `sous coffee` shows today's count.",
        discussion: "Counts never go below 0. --date YYYY-MM-DD counts another day."
    )

    @OptionGroup var change: DrinkChangeOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws { try await change.run(.coffee, global: global) }
}

struct DrinkChangeOptions: ParsableArguments {
    @Argument(help: "+ to add, - to remove; leave out to show the count.") var direction: String?
    @Argument(help: "How many (default 1, at most 20).") var count: Int = 1
    @Option(help: "The day, YYYY-MM-DD (default today).") var date: String?

    func run(_ drink: Drink, global: GlobalOptions) async throws {
        let client = global.client(Tracker.self)
        let date = try date.map { try trackerDate($0) }
        let counts: DrinkCounts
        switch direction {
        case nil:
            counts = try await client.call(TrackerAPI.drinks, DayRequest(date: date), session: global.token)
        case "+", "-":
            guard (1...20).contains(count) else { throw ValidationError("count must be 1 to 20") }
            let delta = direction == "+" ? count : -count
            counts = try await client.call(TrackerAPI.changeDrink, DrinkChange(date: date, drink: drink, delta: delta), session: global.token)
        case let other?:
            throw ValidationError("expected + or -, not \"\(other)\"")
        }
        if global.json { return try printJSON(counts) }
        let value = drink == .water ? counts.water : counts.coffee
        let unit = drink == .water ? (value == 1 ? "glass of water" : "glasses of water") : (value == 1 ? "cup of coffee" : "cups of coffee")
        Console.current.out("\(counts.date): \(value) \(unit)")
    }
}
