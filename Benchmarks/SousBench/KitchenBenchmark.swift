import ArgumentParser
import CatalogService
import CatalogTesting
import Foundation
import GRDB
import GroceriesService
import Logging
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousUnits
import SousWire

/// The list of a 10-recipe week read with a 100-item pantry and pack sizes, against the same
/// list without them; and the pack optimisation on the worst case constructed for it.
struct KitchenBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kitchen",
        abstract: "groceries.list of a 10-recipe week with a 100-item pantry and packs, against without; the pack optimisation's worst case."
    )

    @Option(help: "Timed list reads per variant and round.") var reads = 500
    @Option(help: "Rounds: each reads every variant, packs on, then off.") var rounds = 4
    @Flag(help: "A quick run: 50 reads, 1 round.") var quick = false

    func run() async throws {
        let reads = quick ? 50 : reads
        let rounds = quick ? 1 : rounds
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-kitchen-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let stack = try GroceriesStack(directory: directory, logger: logger)
        let groceries = stack.groceries
        let client = try groceries.host.testClient(as: Groceries.self, timeout: .seconds(10))

        // The same week for two households: ten shipped recipes on each list; one of them keeps
        // a pantry of 100 items, a third of them of what the list needs.
        let recipes = Array(try CatalogFixture.seed.recipes.prefix(10).map(\.id))
        let (stocked, bare) = ("bench-stocked", "bench-bare")
        for household in [stocked, bare] {
            for recipe in recipes { try client.callBlocking(GroceriesAPI.addRecipe, AddRecipeToList(recipe: recipe, multiplier: 1), user: household) }
        }
        let onList = try client.callBlocking(GroceriesAPI.list, Empty(), user: stocked).lines.compactMap(\.ingredient)
        let others = try CatalogFixture.seed.ingredients.filter { $0.price != nil && $0.bought && !onList.contains($0.id) }.map(\.id)
        for index in 0..<100 {
            let ingredient = index % 3 == 0 ? onList[index / 3 % onList.count] : others[index % others.count]
            try client.callBlocking(PantryAPI.add, PantryAdd(ingredient: ingredient, quantity: Double(index % 7 + 1), unit: nil), user: stocked)
        }
        let list = try client.callBlocking(GroceriesAPI.list, Empty(), user: stocked)
        print(
            "The week: \(recipes.count) recipes, \(list.lineCount) lines, \(list.lines.count { $0.pantry != nil }) of them partly in the pantry "
                + "(100 items), \(list.lines.count { $0.packs != nil }) with packs; total €\(String(format: "%.2f", list.total)), by packs €\(String(format: "%.2f", list.totalByPacks))"
        )

        var variants = [
            Samples(name: "list, pantry of 100 and packs"), Samples(name: "list, packs, no pantry"),
            Samples(name: "list, pantry of 100, packs removed"), Samples(name: "list, neither (as before both)"),
        ]
        let packed = try groceries.store.database.read { session in
            try session.rows("SELECT id, packs FROM ingredient", []).map { ($0["id"] as String, $0["packs"] as String) }
        }
        for _ in 0..<rounds {
            for packs in [true, false] {
                try groceries.store.database.write { session in
                    for (id, text) in packed { try session.execute("UPDATE ingredient SET packs = ? WHERE id = ?", [packs ? text : "", id]) }
                }
                let measured = try measureInterleaved(
                    [
                        ("stocked", { _ in _ = try client.callBlocking(GroceriesAPI.list, Empty(), user: stocked) }),
                        ("bare", { _ in _ = try client.callBlocking(GroceriesAPI.list, Empty(), user: bare) }),
                    ], calls: reads, warmup: min(50, reads))
                variants[packs ? 0 : 2].nanoseconds += measured[0].nanoseconds
                variants[packs ? 1 : 3].nanoseconds += measured[1].nanoseconds
            }
        }
        report("groceries.list of a 10-recipe week over tcp loopback", variants, baseline: variants[3])

        // The worst case for the packs: sizes of 997 g, 999 g and 1000 g (one gram steps) at
        // prices that make no pack the obvious choice, and a need just under the table's limit.
        let worst = ListIngredientFacts(
            id: "worst", name: "Worst", unit: .g, gramsPerPiece: nil, gramsPerMl: nil, price: nil, category: .other,
            packs: [
                PackSize(quantity: 997, unit: .g, price: 2.99), PackSize(quantity: 999, unit: .g, price: 3.00),
                PackSize(quantity: 1000, unit: .g, price: 3.01),
            ])
        var optimisation = [
            Samples(name: "packs for 1.2 kg (1 kg and 2.5 kg bags)"), Samples(name: "worst case: 997/999/1000 g, need 198 kg"),
            Samples(name: "worst case: 997/999/1000 g, need 5 t (best value first)"),
        ]
        let potato = ListIngredientFacts(try CatalogFixture.seed.ingredients.first { $0.id == "potato" }!)
        for _ in 0..<(quick ? 5 : 50) {
            optimisation[0].record { _ = PackOptimizer.choose(need: 1200, in: .mass, potato) }
            optimisation[1].record { _ = PackOptimizer.choose(need: 198_000, in: .mass, worst) }
            optimisation[2].record { _ = PackOptimizer.choose(need: 5_000_000, in: .mass, worst) }
        }
        report("The pack optimisation on the store's thread", optimisation)
        let memory = ProcessMemory.read()
        print("\nMemory: VmRSS \(memory.rss / 1024) MiB, VmHWM \(memory.hwm / 1024) MiB")
        await stack.stop()
    }
}
