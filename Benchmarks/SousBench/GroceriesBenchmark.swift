import ArgumentParser
import CatalogService
import CatalogTesting
import Foundation
import GroceriesService
import Logging
import MessagePack
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire

/// A grocery list built from many recipes: adding them all, and reading the aggregated list,
/// over TCP loopback with the real catalog and planner running in the same process
/// (``GroceriesStack``).
struct GroceriesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groceries",
        abstract: "Grocery list of 50 recipes (~400 ingredient lines): time to add them all and to read the aggregated list."
    )

    @Option(help: "Recipes on the list.") var recipes = 50
    @Option(help: "Ingredient lines per recipe.") var linesPerRecipe = 8
    @Option(help: "Times the whole list is built (each: clear, then add every recipe).") var runs = 20
    @Option(help: "Timed reads of the aggregated list (and health round trips).") var reads = 2_000
    @Flag(help: "A quick run: 3 builds and 100 reads.") var quick = false
    @Option(help: "Folder for the groceries database (default: a temporary folder, removed afterwards).") var dataDir: String?

    func run() async throws {
        let runs = quick ? 3 : runs
        let reads = quick ? 100 : reads
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-groceries-\(UUID().uuidString)").path
        defer { if dataDir == nil { try? FileManager.default.removeItem(atPath: directory) } }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical

        let stack = try GroceriesStack(directory: directory, logger: logger)
        let (catalog, planner, groceries) = (stack.catalog, stack.planner, stack.groceries)
        let catalogClient = try catalog.host.testClient(as: Catalog.self, timeout: .seconds(10))
        let client = try groceries.host.testClient(as: Groceries.self, timeout: .seconds(10))
        let plannerClient = try planner.host.testClient(as: Planner.self, timeout: .seconds(10))
        let user = "bench"

        let ids = try Self.createRecipes(recipes, lines: linesPerRecipe, catalog: catalogClient, user: user)
        print("Created \(ids.count) recipes of \(linesPerRecipe) lines (\(ids.count * linesPerRecipe) ingredient lines before aggregation)")

        // Builds alternate between the two reply shapes, so both see the same list sizes.
        var addOne = Samples(name: "add one recipe (catalog lookup, household kept, one write, version and counts back)")
        var addWithList = Samples(name: "add one recipe, the whole list back (withList)")
        var addAll = Samples(name: "add all \(ids.count) recipes, one after another (version and counts back)")
        // The adds' baseline: as many `health` calls after each build as it made adds, so a slow
        // stretch of the VM falls on both (as `rpc` alternates its blocks).
        var healthBetween = Samples(name: "health round trip, a block after each build (the adds' baseline)")
        for run in 0...runs {
            try client.callBlocking(GroceriesAPI.clear, ClearList(checkedOnly: false), user: user)
            let withList = run % 2 == 0
            let start = DispatchTime.now().uptimeNanoseconds
            for id in ids {
                let request = AddRecipeToList(recipe: id, withList: withList)
                // The first build warms up and is not recorded.
                if run == 0 {
                    try client.callBlocking(GroceriesAPI.addRecipe, request, user: user)
                } else if withList {
                    try addWithList.record { try client.callBlocking(GroceriesAPI.addRecipe, request, user: user) }
                } else {
                    try addOne.record { try client.callBlocking(GroceriesAPI.addRecipe, request, user: user) }
                }
            }
            if run > 0 && !withList { addAll.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start) }
            if run > 0 {
                for _ in ids { try healthBetween.record { try client.callBlocking(CommonAPI.health, Empty()) } }
            }
        }
        let list = try client.callBlocking(GroceriesAPI.list, Empty(), user: user)
        let shares = list.lines.reduce(0) { $0 + $1.sources.count }
        print(
            "The list: \(list.recipes.count) recipes, \(shares) shares aggregated into \(list.lineCount) lines in \(list.categories.count) categories, total €\(String(format: "%.2f", list.total))"
        )

        // The list's read against its baseline in alternating blocks, as `rpc` times them: a
        // `health` right after each read would pay for the 80 KB reply just handled.
        let listReads = try measureInterleaved(
            [
                ("health round trip (baseline)", { _ in try client.callBlocking(CommonAPI.health, Empty()) }),
                ("read the aggregated list (groceries.list)", { _ in _ = try client.callBlocking(GroceriesAPI.list, Empty(), user: user) }),
            ], calls: reads, warmup: min(100, reads))
        let (health, read) = (listReads[0], listReads[1])
        // The calls an add of a new recipe makes to its peers, timed from outside.
        var recipeCall = Samples(name: "its catalog call: recipes.get with ingredient facts")
        var listedCall = Samples(name: "the same call read as the add reads it (RecipeForList: the list's fields only)")
        var householdCall = Samples(name: "its planner call when the household is not kept: plan.weekHousehold")
        for index in 0..<reads {
            let id = ids[index % ids.count]
            try recipeCall.record {
                try catalogClient.callBlocking(CatalogAPI.getRecipe, RecipeLookup(id: id, withIngredients: true), user: user)
            }
            try listedCall.record {
                try catalogClient.callBlocking(CatalogAPI.getRecipeForList, RecipeLookup(id: id, withIngredients: true), user: user)
            }
            try householdCall.record { try plannerClient.callBlocking(PlannerAPI.weekHousehold, Empty(), user: user) }
        }
        // The add's own write, without its peer calls or the socket: each recipe put on an
        // emptied list from the snapshot and facts the calls above return.
        var write = Samples(name: "the add's write on the store alone (a new recipe, version and counts back)")
        let details = try ids.map { id in
            try catalogClient.callBlocking(CatalogAPI.getRecipe, RecipeLookup(id: id, withIngredients: true), user: user)
        }
        // Decoding that reply, whole and as the add reads it: the same bytes.
        let reply = try MessagePackEncoder().encode(details[0])
        var decodeWhole = Samples(name: "its catalog reply (\(reply.count) B) decoded whole (RecipeDetail)")
        var decodeListed = Samples(name: "the same bytes decoded as the add reads them (RecipeForList)")
        for _ in 0..<reads {
            try decodeWhole.record { _ = try MessagePackDecoder().decode(RecipeDetail.self, from: reply) }
            try decodeListed.record { _ = try MessagePackDecoder().decode(RecipeForList.self, from: reply) }
        }
        for index in 0..<reads {
            let detail = details[index % details.count]
            if index % details.count == 0 { _ = try groceries.store.clear(checkedOnly: false, household: user, now: Date()) }
            let facts = (detail.ingredientFacts ?? []).map(ListIngredientFacts.init)
            try write.record {
                _ = try groceries.store.addRecipe(
                    detail.id, snapshot: RecipeSnapshot(detail, people: 2), multiplier: 1, exclude: [], ingredients: facts, household: user,
                    now: Date())
            }
        }
        var direct = Samples(name: "the list aggregated on the store")
        for _ in 0..<reads { try direct.record { _ = try groceries.store.list(household: user) } }
        let sampleList = try groceries.store.list(household: user)
        let replyBytes = try MessagePackEncoder().encode(sampleList).count
        var coding = Samples(name: "the list's reply encoded and decoded (\(replyBytes) bytes)")
        for _ in 0..<reads {
            try coding.record { _ = try MessagePackDecoder().decode(GroceryList.self, from: MessagePackEncoder().encode(sampleList)) }
        }

        report(
            "Groceries over tcp loopback, \(ids.count) recipes × \(linesPerRecipe) lines",
            [
                health, direct, coding, read, recipeCall, listedCall, decodeWhole, decodeListed, householdCall, write,
            ],
            baseline: health)
        report("Adding a recipe, against `health` timed between the builds", [healthBetween, addOne, addWithList], baseline: healthBetween)
        report("Building the whole list (\(addAll.nanoseconds.count) builds)", [addAll])
        let memory = ProcessMemory.read()
        print("\nMemory: VmRSS \(memory.rss / 1024) MiB, VmHWM \(memory.hwm / 1024) MiB")
        await stack.stop()
    }

    /// Recipes over varied seed ingredients, each in its usual unit or a mix (kg, pieces as grams),
    /// so the list exercises every unit family. Deterministic.
    static func createRecipes(_ count: Int, lines: Int, catalog: ServiceClient<Catalog>, user: String) throws -> [String] {
        var random = SplitMix64(seed: 5)
        let ingredients = try CatalogFixture.seed.ingredients
        return try (0..<count).map { index in
            var used: Set<Int> = []
            while used.count < min(lines, ingredients.count) { used.insert(Int.random(in: 0..<ingredients.count, using: &random)) }
            let recipeLines = used.sorted().map { position -> RecipeIngredient in
                let ingredient = ingredients[position]
                switch (ingredient.unit, Int.random(in: 0..<3, using: &random)) {
                case (.piece, 0):
                    return RecipeIngredient(ingredient: ingredient.id, quantity: Double(Int.random(in: 50...300, using: &random)), unit: .g)
                case (.piece, _):
                    return RecipeIngredient(ingredient: ingredient.id, quantity: Double(Int.random(in: 1...4, using: &random)), unit: .piece)
                case (.ml, 0):
                    return RecipeIngredient(ingredient: ingredient.id, quantity: Double(Int.random(in: 1...3, using: &random)), unit: .tbsp)
                case (.ml, _):
                    return RecipeIngredient(ingredient: ingredient.id, quantity: Double(Int.random(in: 50...500, using: &random)), unit: .ml)
                // Expensive things (spices, saffron) come in pinches, staples by the half kilo.
                case (_, _) where (ingredient.price?.amount ?? 0) > 30:
                    return RecipeIngredient(ingredient: ingredient.id, quantity: Double(Int.random(in: 1...10, using: &random)), unit: .g)
                case (_, 0):
                    return RecipeIngredient(ingredient: ingredient.id, quantity: Double(Int.random(in: 1...2, using: &random)) / 2, unit: .kg)
                default: return RecipeIngredient(ingredient: ingredient.id, quantity: Double(Int.random(in: 10...400, using: &random)), unit: .g)
                }
            }
            let draft = RecipeDraft(
                name: "Bench dish \(index)", summary: "A generated recipe for the groceries benchmark.",
                servings: Int.random(in: 1...6, using: &random),
                prepMinutes: 10, cookMinutes: 20, ingredients: recipeLines,
                steps: [RecipeStep(description: "Cook everything.", minutes: 20, type: .cooking, ingredients: recipeLines.map(\.ingredient))]
            )
            return try catalog.callBlocking(CatalogAPI.createRecipe, draft, user: user).id
        }
    }
}
