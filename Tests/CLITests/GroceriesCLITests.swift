import CatalogService
import CatalogTesting
import Foundation
import GroceriesService
import GroceriesTesting
import PlannerService
import PlannerTesting
import SousInterchange
import SousRuntime
import SousSchema
import SousTestSupport
import Testing

@Suite(.closesItsSockets)
struct GroceriesCLITests {
    /// Runs the catalog, planner and groceries in-process and hands `body` the groceries and
    /// catalog flags (the catalog gives a US list its densities).
    func withServices(_ body: ([String]) async throws -> Void) async throws {
        let catalog = try CatalogFixture.make()
        let planner = try PlannerFixture.make(peers: [.catalog: catalog.host.boundEndpoints])
        let groceries = try GroceriesFixture.make(peers: [.catalog: catalog.host.boundEndpoints, .planner: planner.host.boundEndpoints])
        try await withRunningServices([catalog.host, planner.host, groceries.host]) { _ in
            try await body(
                ["--groceries", groceries.host.boundEndpoints.requests, "--catalog", catalog.host.boundEndpoints.requests, "--user", "ada"])
        }
    }

    @Test func buildShowCheckAndCheckOutAList() async throws {
        try await withServices { flags in
            let added = await sous(["groceries", "add-recipe", "tomato-lentil-soup", "--times", "2", "--have", "salt"] + flags)
            #expect(added.code == 0, "\(added.err)")
            #expect(added.out.contains("Tomato and Red Lentil Soup ×2 for 2 people"))
            _ = await sous(["groceries", "add-item", "paper", "towels", "--count", "2"] + flags)
            _ = await sous(["groceries", "check", "red-lentils"] + flags)

            let shown = await sous(["groceries", "show"] + flags)
            #expect(shown.code == 0)
            // 200 g × (2 people ÷ 4 servings) × 2.
            let lentils = shown.out.split(separator: "\n").first { $0.contains("red-lentils") }.map(String.init) ?? ""
            #expect(lentils.hasPrefix("[x]") && lentils.contains("200 g"))
            #expect(shown.out.contains("Produce") && shown.out.contains("Other") && shown.out.contains("×2"))
            #expect(shown.out.range(of: "Produce")!.lowerBound < shown.out.range(of: "Other")!.lowerBound, "shopping order")
            #expect(!shown.out.contains(" salt"))
            #expect(shown.out.contains("Total €"))

            let json = await sous(["groceries", "show", "--json"] + flags)
            let list = try groceriesJSONDecoder().decode(GroceryList.self, from: Data(json.out.utf8))
            #expect(list.line("red-lentils")?.checked == true && list.recipes.first?.excluded == ["salt"])

            let refused = await sous(["groceries", "checkout", "--phone", "12", "--street", "Via Roma 1"] + flags)
            #expect(refused.code == 4)
            #expect(refused.err.contains("address.postalCode") && refused.err.contains("address.city") && refused.err.contains("(field: phone)"))

            let order = await sous(
                ["groceries", "checkout", "--phone", "+39 06 1234 5678", "--street", "Via Roma 1", "--postal-code", "00184", "--city", "Roma"] + flags
            )
            #expect(order.code == 0 && order.out.contains("+390612345678"))
            let orders = await sous(["groceries", "orders"] + flags)
            #expect(orders.out.contains("Via Roma 1, 00184 Roma"))
            // Each order's lines, without --json.
            #expect(orders.out.contains("Order 1, placed") && orders.out.contains("+390612345678"), "\(orders.out)")
            #expect(orders.out.contains("Red lentils") && orders.out.contains("200 g") && orders.out.contains("paper towels"), "\(orders.out)")
            #expect(await sous(["groceries", "show"] + flags).out.contains("The list is empty"))
        }
    }

    /// A quantity is typed in any unit a recipe import reads, converted before it is sent: 2 cups
    /// of milk are 480 ml (the import's 240 ml cup), 2 lb of flour 907.184 g. A can, whose size
    /// depends on what is in it, is refused naming the units that work.
    @Test func showSaysWhichPacksToBuyAndTheirTotal() async throws {
        try await withServices { flags in
            #expect(await sous(["groceries", "add-item", "--ingredient", "potato", "--quantity", "1200", "--unit", "g"] + flags).code == 0)
            let shown = await sous(["groceries", "show"] + flags)
            #expect(shown.code == 0, "\(shown.err)")
            let potato = try #require(shown.out.split(separator: "\n").first { $0.contains("Potato") })
            #expect(potato.contains("2 × 1 kg €2.60, 800 g over"), "\(potato)")
            #expect(shown.out.contains("Total €1.56 (estimate)") && shown.out.contains("In packs €2.60"), "\(shown.out)")
        }
    }

    @Test func recipesUsingWhatThePantryHoldsComeMostUsedFirst() async throws {
        try await withServices { flags in
            let empty = await sous(["recipes", "search", "--uses-pantry", "--no-filters"] + flags)
            #expect(empty.code == 0 && empty.out.contains("Your pantry is empty"), "\(empty.out) \(empty.err)")
            #expect(await sous(["pantry", "add", "red-lentils", "100", "--unit", "g", "--best-before", "2026-12-01"] + flags).code == 0)
            let json = await sous(["recipes", "search", "--uses-pantry", "--no-filters", "--page-size", "100", "--json"] + flags)
            let page = try JSONDecoder().decode(RecipePage.self, from: Data(json.out.utf8))
            let shares = page.recipes.map { $0.onHand?.first { $0.ingredient == "red-lentils" }?.share ?? 0 }
            #expect(!shares.isEmpty && shares.allSatisfy { $0 > 0 } && shares == shares.sorted(by: >), "\(shares)")
            // The soup uses 200 g for its 4 servings: all of the 100 g.
            #expect(page.recipes.first { $0.id == "tomato-lentil-soup" }?.onHand?.first?.share == 1)
            let shown = await sous(["recipes", "search", "--uses-pantry", "--no-filters", "--page-size", "100"] + flags)
            #expect(shown.out.contains("From your pantry") && shown.out.contains("tomato-lentil-soup: Red lentils (all of it)"), "\(shown.out)")
        }
    }

    @Test func addItemTakesTheUnitsRecipesAreWrittenIn() async throws {
        try await withServices { flags in
            let cups = await sous(["groceries", "add-item", "--ingredient", "milk", "--quantity", "2", "--unit", "cup"] + flags)
            #expect(cups.code == 0, "\(cups.err)")
            let pounds = await sous(["groceries", "add-item", "--ingredient", "flour", "--quantity", "2", "--unit", "lb", "--json"] + flags)
            let list = try #require(try groceriesJSONDecoder().decode(GroceryListChange.self, from: Data(pounds.out.utf8)).list, "\(pounds.err)")
            let milk = try #require(list.line("milk"))
            let flour = try #require(list.line("flour"))
            #expect(milk.exactUnit == .ml && abs((milk.exactQuantity ?? 0) - 480) < 1e-6, "\(milk)")
            #expect(flour.exactUnit == .g && abs((flour.exactQuantity ?? 0) - 2 * ParsedUnit.gramsPerPound) < 1e-6, "\(flour)")
            let shown = await sous(["groceries", "show", "--units", "metric"] + flags).out.split(separator: "\n")
            #expect(shown.contains { $0.hasSuffix(" milk") && $0.contains(" 480 ml ") }, "\(shown)")
            #expect(shown.contains { $0.hasSuffix(" flour") && $0.contains(" 907 g ") }, "\(shown)")

            let can = await sous(["groceries", "add-item", "--ingredient", "canned-tomatoes", "--quantity", "1", "--unit", "can"] + flags)
            #expect(
                can.code == 64 && can.err.contains("a can is no fixed amount") && can.err.contains("cup, pint, quart, gallon, fl oz, oz, lb"),
                "\(can.err)")
            let unknown = await sous(["groceries", "add-item", "--ingredient", "flour", "--quantity", "1", "--unit", "smidgen"] + flags)
            #expect(unknown.code == 64 && unknown.err.contains("unknown unit \"smidgen\""), "\(unknown.err)")
            let handful = await sous(["groceries", "add-item", "--ingredient", "flour", "--quantity", "1", "--unit", "handful"] + flags)
            #expect(handful.code == 64 && handful.err.contains("a handful is no fixed amount"), "\(handful.err)")
            #expect(await sous(["groceries", "show", "--units", "metric"] + flags).out.split(separator: "\n") == shown, "nothing added")
            // A US quart, as recipes from American sites write it.
            #expect(await sous(["groceries", "add-item", "--ingredient", "milk", "--quantity", "1", "--unit", "qt"] + flags).code == 0)
            let more = await sous(["groceries", "show", "--units", "metric"] + flags).out.split(separator: "\n")
            #expect(more.contains { $0.contains("Whole milk") && $0.contains(" 1.43 l ") }, "480 ml + 946.35 ml: \(more)")
        }
    }

    /// In US units a few grams of a spice are spoons (black pepper showed as "0 oz") and half a
    /// litre is 2 cups of 236.6 ml.
    @Test func usListsMeasureSmallAmountsInSpoons() async throws {
        try await withServices { flags in
            #expect(await sous(["groceries", "add-recipe", "tomato-lentil-soup", "--times", "1"] + flags).code == 0)
            let shown = await sous(["groceries", "show", "--units", "us"] + flags)
            let lines = shown.out.split(separator: "\n").map(String.init)
            // 0.5 tsp for 4, for 2: 0.6 g at 0.46 g/ml.
            let pepper = try #require(lines.first { $0.hasSuffix(" black-pepper") }, "\(shown.out)\(shown.err)")
            #expect(pepper.contains(" ¼ tsp ") && !pepper.contains("oz"), "\(pepper)")
            let stock = try #require(lines.first { $0.hasSuffix(" vegetable-stock") })
            #expect(stock.contains(" 2 cups "), "\(stock)")
        }
    }

    @Test func unknownRecipesAndBadMultipliersGetDistinctExitCodes() async throws {
        try await withServices { flags in
            let unknown = await sous(["groceries", "add-recipe", "no-such-recipe", "--times", "1"] + flags)
            #expect(unknown.code == 3 && unknown.err.contains("(field: recipe)"))
            let absurd = await sous(["groceries", "add-recipe", "tomato-lentil-soup", "--times", "500"] + flags)
            #expect(absurd.code == 4 && absurd.err.contains("(field: multiplier)"))
        }
    }
}

/// Reads what `--json` prints (ISO 8601 dates).
private func groceriesJSONDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}
