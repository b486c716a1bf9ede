import ArgumentParser
import CatalogService
import Foundation
import Logging
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire

/// Catalog searches on a synthetic catalog, over the socket and directly on the store (the floor).
struct CatalogBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "catalog", abstract: "Recipe and ingredient search on a large synthetic catalog.")

    @Option(help: "Synthetic recipes.") var recipes = 100_000
    @Option(help: "Synthetic ingredients.") var ingredients = 5_000
    @Option(help: "Timed queries per measurement.") var queries = 2_000
    @Option(help: "Folder for the database (default: a temporary folder, removed afterwards).") var dataDir: String?
    @Option(
        help:
            "A PostgreSQL URL: the catalog in a new schema of that database (bench_<number>, printed, left for inspection) instead of a SQLite file."
    ) var postgres: String?

    func run() async throws {
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-\(UUID().uuidString)").path
        defer { if dataDir == nil { try? FileManager.default.removeItem(atPath: directory) } }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let location: DatabaseLocation =
            try postgres.map { .postgres(try PostgresLocation(url: $0, defaultSchema: "bench_\(UInt32.random(in: 0...UInt32.max))")) }
            ?? .sqlite(directory: directory)
        let database = try CatalogService.openDatabase(at: location, logger: logger)
        let store = try CatalogStore(database: database)
        let seed = SyntheticCatalog.make(recipes: recipes, ingredients: ingredients)
        let loadStart = Date()
        _ = try store.reloadSeed(seed)
        print(
            "Generated \(recipes) recipes and \(ingredients) ingredients in \(String(format: "%.1f", Date().timeIntervalSince(loadStart))) s in \(location)"
        )

        var configuration = ServiceConfiguration.inProcess(.catalog)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let service = try CatalogService(configuration: configuration, seed: seed, logger: logger, database: database)
        let serving = Task { try await service.host.run(signals: false) }
        // Over TCP every client speaks CURVE: a stranger's key pair, the catalog's public key.
        let client = try service.host.testClient(as: Catalog.self, timeout: .seconds(10))

        var random = SplitMix64(seed: 7)
        let names = (0..<queries).map { _ in SyntheticCatalog.searchWords.randomElement(using: &random)! }
        let prefixes = (0..<queries).map { _ in String(SyntheticCatalog.foods.randomElement(using: &random)!.prefix(3)) }
        let filtered = RecipeSearch(
            profile: RecipeFilterProfile(
                diets: [.vegetarian], allergens: [.nuts, .sesame], dislikes: ["syn-ingredient-1", "syn-ingredient-2"],
                equipment: [.stove, .microwave, .mixer], patience: 3
            ))

        var rows: [Samples] = []
        func measure(_ name: String, times: Int? = nil, _ body: (Int) async throws -> Void) async throws {
            let times = times ?? queries
            for index in 0..<min(200, times) { try await body(index) }
            var samples = Samples(name: name)
            for index in 0..<times {
                let start = DispatchTime.now().uptimeNanoseconds
                try await body(index)
                samples.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
            }
            rows.append(samples)
        }
        // The search itself, over the socket as a different user each time and direct on the store.
        var caller = 0
        func stranger() -> String {
            caller += 1
            return "bench\(caller)"
        }
        try await measure("name search, direct on the store (floor)") { index in
            _ = try store.searchRecipes(.init(query: names[index]), user: "bench", filter: nil)
        }
        try await measure("name search over the socket") { index in
            _ = try client.callBlocking(CatalogAPI.searchRecipes, .init(query: names[index]), user: stranger())
        }
        try await measure("ingredient search, direct (floor)") { index in _ = try store.searchIngredients(.init(query: prefixes[index])) }
        try await measure("ingredient search over the socket") { index in
            _ = try client.callBlocking(CatalogAPI.searchIngredients, .init(query: prefixes[index]), user: "bench")
        }
        try await measure("fully filtered search, direct (floor)") { _ in
            _ = try store.searchRecipes(filtered, user: "bench", filter: (filtered.profile!, FilterSwitches()))
        }
        try await measure("fully filtered search over the socket") { _ in
            _ = try client.callBlocking(CatalogAPI.searchRecipes, filtered, user: stranger())
        }
        // `sous recipes search --uses-pantry`: a pantry of 100 ingredients with a month of
        // best-before dates, and the 5 that go off first (what `pantry.expiring` gives).
        let pantry = (0..<100).map { index in
            OnHand(
                ingredient: "syn-ingredient-\(index * 37 % ingredients)", quantity: Double(100 + index), unit: .g,
                bestBefore: LocalDate(year: 2026, month: 12, day: 1 + index % 28))
        }
        let soonest = Array(pantry.sorted { ($0.bestBefore!, $0.ingredient) < ($1.bestBefore!, $1.ingredient) }.prefix(5))
        let onHandTimes = max(queries / 10, 20)
        try await measure("uses the 5 going off first, direct (floor)", times: onHandTimes) { _ in
            _ = try store.searchRecipes(RecipeSearch(onHand: soonest), user: "bench", filter: nil)
        }
        try await measure("uses the 5 going off first, over the socket", times: onHandTimes) { _ in
            _ = try client.callBlocking(CatalogAPI.searchRecipes, RecipeSearch(onHand: soonest), user: stranger())
        }
        try await measure("uses a pantry of 100, over the socket", times: onHandTimes) { _ in
            _ = try client.callBlocking(CatalogAPI.searchRecipes, RecipeSearch(onHand: pantry), user: stranger())
        }
        report("Catalog search, \(recipes) recipes / \(ingredients) ingredients, page of 20", rows)
        let memory = ProcessMemory.read()
        print("\nMemory: VmRSS \(memory.rss / 1024) MiB, VmHWM \(memory.hwm / 1024) MiB")
        serving.cancel()
        _ = try? await serving.value
    }
}

/// A large, plausible catalog built from word lists (deterministic).
enum SyntheticCatalog {
    static let foods = [
        "tomato", "potato", "onion", "garlic", "carrot", "pepper", "lentil", "chickpea", "rice", "pasta", "noodle", "bean", "pea", "spinach", "kale",
        "cabbage", "leek", "celery", "apple", "pear", "lemon", "lime", "orange", "banana", "mango", "berry", "cherry", "plum", "fig", "date",
        "almond", "walnut", "cashew", "peanut", "sesame", "oat", "barley", "wheat", "corn", "quinoa", "tofu", "tempeh", "egg", "milk", "cheese",
        "yogurt", "butter", "cream", "chicken", "beef", "pork", "lamb", "turkey", "salmon", "tuna", "cod", "shrimp", "mussel", "mushroom", "zucchini",
    ]
    static let adjectives = [
        "red", "green", "smoked", "roasted", "fresh", "dried", "spiced", "sweet", "wild", "baby", "golden", "black", "white", "pickled", "crushed",
    ]
    static let dishes = [
        "soup", "stew", "salad", "curry", "bake", "pie", "risotto", "tart", "bowl", "wrap", "gratin", "skillet", "roast", "pancakes", "bread",
    ]
    static let styles = ["rustic", "quick", "creamy", "spicy", "summer", "winter", "herby", "zesty", "hearty", "light"]
    static let searchWords = foods + dishes + styles

    static func make(recipes recipeCount: Int, ingredients ingredientCount: Int) -> SeedData {
        var random = SplitMix64(seed: 42)
        let facts: [DietFact] = DietFact.allCases
        let allergens: [Allergen] = Allergen.allCases
        let ingredients = (0..<ingredientCount).map { index -> Ingredient in
            let food = foods[index % foods.count]
            let adjective = adjectives[(index / foods.count) % adjectives.count]
            let contains: [DietFact] = Int.random(in: 0..<4, using: &random) == 0 ? [facts.randomElement(using: &random)!] : []
            let allergenList: [Allergen] = Int.random(in: 0..<5, using: &random) == 0 ? [allergens.randomElement(using: &random)!] : []
            return Ingredient(
                id: "syn-ingredient-\(index)", name: "\(adjective.capitalized) \(food) \(index)", usdaNdb: nil, unit: .g, gramsPerPiece: 100,
                gramsPerMl: 1, price: Price(amount: Double.random(in: 1...20, using: &random), per: .kg),
                category: ShoppingCategory.allCases[index % 10],
                nutrition: Nutrition(
                    kcal: Double.random(in: 10...600, using: &random), carbohydrates: 10, protein: 5, fat: 3, fibre: 1, sugar: 2, salt: 0.1
                ),
                contains: contains.contains(.pork) ? [.meat, .pork] : contains, allergens: allergenList
            )
        }
        let recipes = (0..<recipeCount).map { index -> SeedData.Recipe in
            let lineCount = Int.random(in: 3...10, using: &random)
            var used: Set<Int> = []
            while used.count < lineCount { used.insert(Int.random(in: 0..<ingredientCount, using: &random)) }
            let lines = used.sorted().map {
                RecipeIngredient(ingredient: "syn-ingredient-\($0)", quantity: Double(Int.random(in: 20...400, using: &random)), unit: .g)
            }
            let equipment = Appliance.allCases.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            let name =
                "\(styles.randomElement(using: &random)!.capitalized) \(foods.randomElement(using: &random)!) \(dishes.randomElement(using: &random)!) \(index)"
            return SeedData.Recipe(
                id: "syn-recipe-\(index)", name: name, summary: "A \(name.lowercased()) with \(foods.randomElement(using: &random)!).",
                servings: Int.random(in: 1...6, using: &random), prepMinutes: Int.random(in: 5...40, using: &random),
                cookMinutes: Int.random(in: 0...80, using: &random), equipment: equipment,
                dishTypes: [DishType.allCases.randomElement(using: &random)!],
                link: nil, image: nil, ingredients: lines,
                steps: [RecipeStep(description: "Prepare and cook everything.", minutes: 10, type: .cooking, ingredients: lines.map(\.ingredient))]
            )
        }
        return SeedData(version: 1, ingredients: ingredients, recipes: recipes)
    }
}
