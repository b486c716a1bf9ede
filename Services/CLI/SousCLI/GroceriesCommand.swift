import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousUnits
import SousWire

struct GroceriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groceries",
        abstract: "Your grocery list: recipes scaled for your household, summed per ingredient, priced, by shop aisle.",
        discussion: """
            Add recipes (quantities are scaled to the people in your cooking profile and bought as many times as \
            the recipe is planned this week, unless you say --times), add things by hand, tick them off in the \
            shop, then check out with a phone number and a delivery address. Lines are named by the ids \
            `sous groceries show` prints: the ingredient id (e.g. red-lentils) or item:<n> for a hand-written item. \
            Prices are illustrative estimates.
            """,
        subcommands: [
            Show.self, AddRecipe.self, SetRecipe.self, RemoveRecipe.self, AddItem.self, RemoveItem.self, CheckLine.self, UncheckLine.self,
            Clear.self, CheckoutOrder.self, Orders.self, Watch.self,
        ],
        defaultSubcommand: Show.self
    )

    // MARK: show

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the list grouped by category, with quantities, prices, check marks and the total.")
        @Option(help: "Show quantities in metric or us units (default: your profile's).") var units: UnitSystem?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Groceries.self).call(GroceriesAPI.list, Empty(), session: global.token)
            if global.json { return try printJSON(list) }
            let units = await global.displayUnits(self.units)
            var gramsPerMl: [String: Double] = [:]
            if units == .us { gramsPerMl = await densities(of: list) }
            Console.current.out(GroceriesRendering.render(list, units: units, densities: gramsPerMl))
        }

        /// Grams per ml of the list's ingredients, for US spoons; none when the catalog cannot
        /// say (small amounts are then weighed in ounces).
        private func densities(of list: GroceryList) async -> [String: Double] {
            let ids = list.lines.compactMap(\.ingredient)
            guard !ids.isEmpty,
                let found = try? await global.client(Catalog.self).call(CatalogAPI.getIngredients, IngredientIDs(ids: ids), session: global.token)
            else { return [:] }
            return SousCLI.densities(of: found.ingredients)
        }
    }

    // MARK: recipes

    struct AddRecipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-recipe",
            abstract: "Put a recipe's ingredients on the list; adding it again buys it more times."
        )
        @Argument(help: "Recipe id (see `sous recipes search`).") var recipe: String
        @Option(name: .customLong("times"), help: "How many times to buy it, 1–100 (default: the times it is planned this week, at least 1).")
        var multiplier: Int?
        @Option(name: .customLong("have"), help: "An ingredient id of the recipe you already have; it stays off the list (repeatable).")
        var exclude: [String] = []
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = AddRecipeToList(recipe: recipe, multiplier: multiplier, exclude: exclude.isEmpty ? nil : exclude, withList: true)
            let change = try await global.client(Groceries.self).call(GroceriesAPI.addRecipe, request, session: global.token)
            if global.json { return try printJSON(change) }
            let list = try GroceriesRendering.list(in: change)
            let listed = list.recipes.first { $0.recipe == recipe }
            Console.current.out(
                "Added \(listed?.name ?? recipe) ×\(listed?.multiplier ?? 1) for \(listed?.people ?? 0) people. \(GroceriesRendering.summary(list))")
        }
    }

    struct SetRecipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change a listed recipe: how many times to buy it, and which of its ingredients you already have."
        )
        @Argument(help: "Recipe id on the list.") var recipe: String
        @Option(name: .customLong("times"), help: "Buy it this many times, 1–100.") var multiplier: Int?
        @Option(name: .customLong("have"), help: "An ingredient id you already have; leave it out (repeatable).") var exclude: [String] = []
        @Option(name: .customLong("need"), help: "An ingredient id left out before that you need after all (repeatable).") var include: [String] = []
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = SetListRecipe(
                recipe: recipe, multiplier: multiplier, exclude: exclude.isEmpty ? nil : exclude, include: include.isEmpty ? nil : include,
                withList: true)
            let change = try await global.client(Groceries.self).call(GroceriesAPI.setRecipe, request, session: global.token)
            if global.json { return try printJSON(change) }
            Console.current.out("Updated \(recipe). \(GroceriesRendering.summary(try GroceriesRendering.list(in: change)))")
        }
    }

    struct RemoveRecipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-recipe", abstract: "Take a recipe's share out of every line.")
        @Argument(help: "Recipe id on the list.") var recipe: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let change = try await global.client(Groceries.self).call(
                GroceriesAPI.removeRecipe, RemoveListRecipe(id: recipe, withList: true), session: global.token)
            if global.json { return try printJSON(change) }
            Console.current.out("Removed \(recipe). \(GroceriesRendering.summary(try GroceriesRendering.list(in: change)))")
        }
    }

    // MARK: items

    struct AddItem: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-item",
            abstract: "Add something by hand: an ingredient with a quantity, or anything else as text.",
            discussion: """
                sous groceries add-item --ingredient flour --quantity 500 --unit g   (merged into the flour line)
                sous groceries add-item --ingredient flour --quantity 2 --unit cup   (480 ml: cups, oz, lb… are converted)
                sous groceries add-item paper towels --count 2                       (listed under Other)
                """
        )
        @Argument(help: "What to buy, as free text (not with --ingredient).") var text: [String] = []
        @Option(help: "How many of the text item, 1–1000.") var count: Int?
        @Option(help: "A catalog ingredient id (see `sous ingredients search`).") var ingredient: String?
        @Option(help: "Quantity of the ingredient, in --unit.") var quantity: Double?
        @Option(help: "Unit of the quantity: \(TypedQuantity.accepted) or another spelling (cups, pounds…); default: the ingredient's usual unit.")
        var unit: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let typed = try TypedQuantity(quantity, unit: unit)
            let words = text.joined(separator: " ")
            let request = AddListItem(
                ingredient: ingredient, quantity: typed.quantity, unit: typed.unit,
                text: words.isEmpty && ingredient != nil ? nil : words,
                count: count, withList: true
            )
            let change = try await global.client(Groceries.self).call(GroceriesAPI.addItem, request, session: global.token)
            if global.json { return try printJSON(change) }
            Console.current.out("Added \(ingredient ?? words). \(GroceriesRendering.summary(try GroceriesRendering.list(in: change)))")
        }
    }

    struct RemoveItem: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-item", abstract: "Delete an item you added by hand (its number from item:<n>).")
        @Argument(help: "The item number, or its line id item:<n>.") var item: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let number: Int64? = if case .item(let id)? = GroceryLineID(item) { id } else { Int64(item) }
            guard let id = number else {
                throw ValidationError("\"\(item)\" is not an item number; use the n of item:<n> from `sous groceries show`")
            }
            let change = try await global.client(Groceries.self).call(
                GroceriesAPI.removeItem, RemoveListItem(id: id, withList: true), session: global.token)
            if global.json { return try printJSON(change) }
            Console.current.out("Removed \(GroceryLineID.item(id)). \(GroceriesRendering.summary(try GroceriesRendering.list(in: change)))")
        }
    }

    // MARK: check-off

    struct CheckLine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "check", abstract: "Tick lines off (they stay in place, marked).")
        @Argument(help: "Line ids as `show` prints them.") var lines: [String]
        @OptionGroup var global: GlobalOptions

        func run() async throws { try await GroceriesRendering.check(lines, checked: true, global: global) }
    }

    struct UncheckLine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "uncheck", abstract: "Take the tick off lines.")
        @Argument(help: "Line ids as `show` prints them.") var lines: [String]
        @OptionGroup var global: GlobalOptions

        func run() async throws { try await GroceriesRendering.check(lines, checked: false, global: global) }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Empty the list, or with --checked take only the ticked lines off (their ingredients count as had).",
            discussion: "With `sous pantry restock on`, the ticked lines taken off with --checked go into the pantry, as bought."
        )
        @Flag(help: "Remove only the checked lines.") var checked = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let change = try await global.client(Groceries.self).call(
                GroceriesAPI.clear, ClearList(checkedOnly: checked, withList: true), session: global.token)
            if global.json { return try printJSON(change) }
            Console.current.out(
                checked ? "Cleared the checked lines. \(GroceriesRendering.summary(try GroceriesRendering.list(in: change)))" : "The list is empty.")
        }
    }

    // MARK: orders

    struct CheckoutOrder: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "checkout",
            abstract: "Confirm the list as an order for delivery; the list is emptied.",
            discussion: """
                The phone number is E.164 (+ then 8–15 digits, e.g. +39 06 1234 5678) or national (a leading 0, \
                6–15 digits, e.g. 030 1234567); spaces, dashes, dots and parentheses are ignored. Street, postal \
                code and city are required. Every missing or invalid field is named at once.
                """
        )
        @Option(help: "Phone number for the delivery.") var phone: String?
        @Option(help: "Street and number.") var street: String?
        @Option(help: "Postal code.") var postalCode: String?
        @Option(help: "City.") var city: String?
        @Option(help: "A note for the delivery.") var note: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let request = Checkout(phone: phone, address: DeliveryAddress(street: street, postalCode: postalCode, city: city), note: note)
            let order = try await global.client(Groceries.self).call(GroceriesAPI.checkout, request, session: global.token)
            if global.json { return try printJSON(order) }
            Console.current.out(
                "Order \(order.id) confirmed: \(order.lines.count) lines, \(money(order.total)), to \(order.address.street ?? ""), \(order.address.postalCode ?? "") \(order.address.city ?? ""), phone \(order.phone)."
            )
        }
    }

    struct Orders: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your past orders, newest first: a summary, then each order's lines.")
        @Option(help: "How many, 1–100.") var limit = 20
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let history = try await global.client(Groceries.self).call(GroceriesAPI.orders, OrderQuery(limit: limit), session: global.token)
            if global.json { return try printJSON(history) }
            guard !history.orders.isEmpty else { return Console.current.out("No orders yet.") }
            var table = Table([("order", .right), ("placed", .left), ("lines", .right), ("total", .right), ("deliver to", .left)])
            let formatter = ISO8601DateFormatter()
            for order in history.orders {
                table.add([
                    "\(order.id)", formatter.string(from: order.placedAt), "\(order.lines.count)", money(order.total),
                    "\(order.address.street ?? ""), \(order.address.postalCode ?? "") \(order.address.city ?? "")".truncated(50),
                ])
            }
            Console.current.out(table.render())
            for order in history.orders {
                Console.current.out("")
                Console.current.out(GroceriesRendering.render(order, placed: formatter.string(from: order.placedAt)))
            }
        }
    }
    // MARK: watch

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the list each time anyone in your household changes it (Ctrl-C stops).",
            discussion: """
                Waits on the groceries service (groceries.wait) rather than asking again and again: a tick by another \
                member shows here within a second. With --json each change is one JSON object per line (the list). \
                --count and --timeout make it return by itself (for scripts): exit 5 if --count changes did not come \
                within --timeout seconds.
                """)
        @OptionGroup var watch: WatchOptions
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let token = try global.token
            let client = global.client(Groceries.self)
            // The version comes first, so a change made after the "Watching" line is never missed.
            var version = try await client.call(GroceriesAPI.list, Empty(), session: token).version
            if !global.json { Console.current.out("Watching your household's list (version \(version))…") }
            try await watch.run(one: "change", many: "changes") { wait, _ in
                let now = try await client.call(
                    GroceriesAPI.wait, ListWait(after: version, waitSeconds: wait), session: token, timeout: .milliseconds(Int(wait * 1000) + 10_000))
                guard now.changed else { return 0 }
                let list = try await client.call(GroceriesAPI.list, Empty(), session: token)
                version = max(now.version, list.version)
                if global.json {
                    try printJSONLine(list)
                    return 1
                }
                let checked = list.lines.filter(\.checked).count
                Console.current.out("Version \(list.version): \(list.lines.count) lines, \(checked) checked, total \(money(list.total))")
                return 1
            }
        }
    }
}

/// How the groceries commands print a list.
enum GroceriesRendering {
    /// The list by category; `densities` (grams per ml by ingredient id) put small US amounts in spoons.
    static func render(_ list: GroceryList, units: UnitSystem = .metric, densities: [String: Double] = [:]) -> String {
        guard list.lineCount > 0 else {
            return list.recipes.isEmpty
                ? "The list is empty. Add a recipe with `sous groceries add-recipe <id>`." : "Nothing left to buy (everything is left out)."
        }
        var sections: [String] = []
        let inPacks = list.lines.contains { $0.packs != nil }
        for group in list.categories {
            var columns: [(String, Table.Alignment)] = [("", .left), ("item", .left), ("quantity", .right), ("price", .right)]
            if inPacks { columns.append(("in packs", .left)) }
            var table = Table(columns + [("id", .left)])
            for line in group.lines {
                var row = [
                    line.checked ? "[x]" : "[ ]", line.name.truncated(40),
                    quantity(line.quantity, line.unit, count: line.count, units: units, gramsPerMl: line.ingredient.flatMap { densities[$0] }),
                    // A line from a food with no known price says so, never €0.
                    line.price.map(money) ?? (line.ingredient == nil ? "" : "no price"),
                ]
                if inPacks { row.append(line.packs?.summary(leftoverUnit: line.exactUnit) ?? "") }
                table.add(row + [line.id])
            }
            sections.append("\(group.category.rawValue)  \(money(group.subtotal))\n\(table.render())")
        }
        var footer = "Total \(money(list.total)) (estimate), \(list.lineCount) lines, \(list.checkedCount) checked"
        if inPacks { footer += "\nIn packs \(money(list.totalByPacks)) (what is loose at its price by weight)" }
        if !list.recipes.isEmpty {
            footer += "\nFrom: " + list.recipes.map { "\($0.name) ×\($0.multiplier)" }.joined(separator: ", ")
        }
        return sections.joined(separator: "\n\n") + "\n\n" + footer
    }

    /// One order: where it goes and every line with its quantity and price.
    static func render(_ order: GroceryOrder, placed: String) -> String {
        var header = "Order \(order.id), placed \(placed), \(money(order.total)): to \(order.phone)"
        header += ", \(order.address.street ?? "") \(order.address.postalCode ?? "") \(order.address.city ?? "")"
        if let note = order.note, !note.isEmpty { header += " (\(note))" }
        var table = Table([("", .left), ("item", .left), ("quantity", .right), ("price", .right)])
        for line in order.lines {
            table.add([line.checked ? "[x]" : "[ ]", line.name, quantity(line.quantity, line.unit, count: line.count), line.price.map(money) ?? "-"])
        }
        return header + "\n" + table.render()
    }

    static func quantity(_ quantity: Double?, _ unit: MeasureUnit?, count: Int?, units: UnitSystem = .metric, gramsPerMl: Double? = nil) -> String {
        guard let unit, let value = quantity else { return count.map { "×\($0)" } ?? "" }
        // The list's quantities are already rounded for shopping (see the groceries README).
        let shown = value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
        switch unit {
        case .piece: return value == 1 ? "1 piece" : "\(shown) pieces"
        default: return units == .metric ? "\(shown) \(unit.rawValue)" : DisplayQuantity(value, unit, in: units, gramsPerMl: gramsPerMl).description
        }
    }

    static func summary(_ list: GroceryList) -> String {
        "The list has \(list.lineCount) lines, \(money(list.total))."
    }

    /// The list a write was asked to answer with (`withList: true`).
    static func list(in change: GroceryListChange) throws -> GroceryList {
        guard let list = change.list else { throw ServiceError.internal("the groceries service answered without the list it was asked for") }
        return list
    }

    static func check(_ lines: [String], checked: Bool, global: GlobalOptions) async throws {
        let change = try await global.client(Groceries.self).call(
            GroceriesAPI.check, CheckLines(lines: lines, checked: checked, withList: true), session: global.token)
        if global.json { return try printJSON(change) }
        let list = try list(in: change)
        Console.current.out(
            "\(checked ? "Checked" : "Unchecked") \(lines.joined(separator: ", ")); \(list.checkedCount) of \(list.lineCount) checked.")
    }

}
