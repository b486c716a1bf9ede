import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous pantry …`: what the household already has, which the grocery list takes off.
struct PantryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pantry",
        abstract: "What your household already has: the grocery list buys only the rest; staples stay off it.",
        discussion: """
              sous pantry add potato 2 --unit kg --best-before 2026-12-05 --location cupboard
              sous pantry add egg 6
              sous pantry staple salt                 (always in the cupboard: recipes never put it on the list)
              sous pantry staple salt --out           (it ran out: back on the list)
              sous pantry expiring --days 5
              sous pantry restock on                  (what you buy goes into the pantry)
            Cooking a planned meal (sous plan cooked) takes what it used out of the pantry.
            """,
        subcommands: [Show.self, Add.self, Remove.self, StapleCommand.self, Unstaple.self, Expiring.self, Restock.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The pantry: items, staples, and the restock setting.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let pantry = try await global.client(Groceries.self).call(PantryAPI.get, Empty(), session: global.token)
            if global.json { return try printJSON(pantry) }
            Console.current.out(PantryRendering.render(pantry))
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add some of an ingredient you have.")
        @Argument(help: "Ingredient id or name (as `sous ingredients search` finds it).") var ingredient: String
        @Argument(help: "How much, in --unit.") var quantity: Double
        @Option(help: "Unit: \(TypedQuantity.accepted) or another spelling; default the ingredient's usual unit.") var unit: String?
        @Option(help: "Best-before date, YYYY-MM-DD.") var bestBefore: String?
        @Option(help: "fridge, freezer, cupboard or your own word (default cupboard).") var location: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let typed = try TypedQuantity(quantity, unit: unit)
            let date = try bestBefore.map { text -> LocalDate in
                guard let date = LocalDate(text) else { throw ValidationError("--best-before is a date YYYY-MM-DD, not \"\(text)\"") }
                return date
            }
            let pantry = try await global.client(Groceries.self).call(
                PantryAPI.add,
                PantryAdd(ingredient: ingredient, quantity: typed.quantity ?? quantity, unit: typed.unit, bestBefore: date, location: location),
                session: global.token)
            if global.json { return try printJSON(pantry) }
            Console.current.out(PantryRendering.render(pantry))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take an item out of the pantry (by the number `sous pantry` shows).")
        @Argument(help: "The item's number.") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let pantry = try await global.client(Groceries.self).call(PantryAPI.remove, PantryItemRef(id: id), session: global.token)
            if global.json { return try printJSON(pantry) }
            Console.current.out(PantryRendering.render(pantry))
        }
    }

    struct StapleCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "staple", abstract: "Mark an ingredient as always kept (recipes never put it on the list), or --out when it ran out.")
        @Argument(help: "Ingredient id or name.") var ingredient: String
        @Flag(help: "It ran out: recipes put it on the list again until you mark it again without --out.") var out = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let pantry = try await global.client(Groceries.self).call(
                PantryAPI.staple, StapleSetting(ingredient: ingredient, staple: true, out: out), session: global.token)
            if global.json { return try printJSON(pantry) }
            Console.current.out(PantryRendering.render(pantry))
        }
    }

    struct Unstaple: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "No longer keep an ingredient as a staple.")
        @Argument(help: "Ingredient id or name.") var ingredient: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let pantry = try await global.client(Groceries.self).call(
                PantryAPI.staple, StapleSetting(ingredient: ingredient, staple: false), session: global.token)
            if global.json { return try printJSON(pantry) }
            Console.current.out(PantryRendering.render(pantry))
        }
    }

    struct Expiring: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What goes out of date in the next days (and what already has).")
        @Option(help: "Days ahead, 0 to 60 (default 3).") var days: Int?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let soon = try await global.client(Groceries.self).call(PantryAPI.expiring, ExpiringQuery(days: days), session: global.token)
            if global.json { return try printJSON(soon) }
            guard !soon.items.isEmpty else { return Console.current.out("Nothing goes out of date by \(soon.today.adding(days: days ?? 3)).") }
            for item in soon.items {
                let date = item.bestBefore.map { $0 < soon.today ? "\($0) (past)" : "\($0)" } ?? ""
                Console.current.out("\(date)  \(PantryRendering.amount(item)) \(item.name), \(item.location)  #\(item.id)")
            }
        }
    }

    struct Restock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "on: what you buy goes into the pantry (whole packs); off: it does not.",
            discussion: "Bought is every line of a checkout, and the ticked lines `sous groceries clear --checked` takes off the list after shopping."
        )
        @Argument(help: "on or off.") var setting: String
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard ["on", "off"].contains(setting) else { throw ValidationError("say on or off, not \"\(setting)\"") }
        }

        func run() async throws {
            let pantry = try await global.client(Groceries.self).call(
                PantryAPI.settings, PantrySettings(restockOnCheckout: setting == "on"), session: global.token)
            if global.json { return try printJSON(pantry) }
            Console.current.out(
                pantry.restockOnCheckout
                    ? "What you buy now goes into the pantry: a checkout's lines, and the ticked lines you clear after shopping."
                    : "What you buy no longer goes into the pantry.")
        }
    }
}

enum PantryRendering {
    static func render(_ pantry: Pantry) -> String {
        var lines: [String] = []
        if pantry.items.isEmpty {
            lines.append("The pantry is empty: sous pantry add INGREDIENT QUANTITY")
        } else {
            var table = Table([("#", .right), ("item", .left), ("amount", .right), ("best before", .left), ("where", .left)])
            for item in pantry.items {
                table.add(["\(item.id)", item.name.truncated(40), amount(item), item.bestBefore.map { "\($0)" } ?? "", item.location.truncated(20)])
            }
            lines.append(table.render())
        }
        if !pantry.staples.isEmpty {
            lines.append("Staples: " + pantry.staples.map { $0.out ? "\($0.name) (out)" : $0.name }.joined(separator: ", "))
        }
        lines.append("What you buy goes into the pantry: \(pantry.restockOnCheckout ? "on" : "off")")
        return lines.joined(separator: "\n")
    }

    static func amount(_ item: PantryItem) -> String {
        let shown = item.quantity == item.quantity.rounded() ? String(Int(item.quantity)) : String(format: "%g", item.quantity)
        return item.unit == .piece ? "\(shown) ×" : "\(shown) \(item.unit.rawValue)"
    }
}
