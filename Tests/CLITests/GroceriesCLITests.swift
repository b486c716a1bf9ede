import CatalogService
import CatalogTesting
import Foundation
import GroceriesService
import GroceriesTesting
import PlannerService
import PlannerTesting
import SousRuntime
import SousSchema
import SousTestSupport
import Testing

@Suite(.closesItsSockets)
struct GroceriesCLITests {
    /// Runs the catalog, planner and groceries in-process and hands `body` the groceries flags.
    func withServices(_ body: ([String]) async throws -> Void) async throws {
        let catalog = try CatalogFixture.make()
        let planner = try PlannerFixture.make(peers: [.catalog: catalog.host.boundEndpoints])
        let groceries = try GroceriesFixture.make(peers: [.catalog: catalog.host.boundEndpoints, .planner: planner.host.boundEndpoints])
        try await withRunningServices([catalog.host, planner.host, groceries.host]) { _ in
            try await body(["--groceries", groceries.host.boundEndpoints.requests, "--user", "ada"])
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
