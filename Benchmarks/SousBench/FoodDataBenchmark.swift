import ArgumentParser
import CatalogService
import Foundation
import Hummingbird
import Logging
import PlannerService
import SousFetch
import SousInterchange
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import TrackerService

/// Real food data as a person meets it: searching the 8 796 shipped foods (curated and USDA) by
/// what people type, importing a 20-recipe document, and looking barcodes up in Open Food Facts
/// (a local server in the API v2 shape) the first time and from the tracker's own table after.
struct FoodDataBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "food", abstract: "Food search over the shipped 8 796 foods, a 20-recipe import, and Open Food Facts lookups.")

    @Option(help: "Timed searches.") var searches = 4_000
    @Option(help: "Timed imports of the 20-recipe document.") var imports = 30
    @Option(help: "Timed barcode lookups (each a code not looked up before), and as many again from the table.") var lookups = 300

    /// What people type into a food search: whole names, prefixes, British and American names.
    static let typed = [
        "banana", "croissant", "tuna", "cheddar", "fontina", "oil", "olive oil", "chicken breast", "rice", "bread", "milk", "yog", "egg",
        "apple", "pasta", "tomato", "onion", "garlic", "butter", "beef", "salmon", "oats", "almond", "coffee", "beer", "wine", "avoc", "spin",
        "aubergine", "courgette", "coriander", "cilantro", "potato", "sweet potato", "lentil", "chickpea", "tofu", "honey", "chocolate", "pea",
        "cereal", "granola", "pizza", "bagel", "muffin", "cookie", "ice cream", "orange juice", "broccoli", "carrot",
    ]

    func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-food-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loadStart = Date()
        let seed = try SeedData.bundled()
        let parsed = Date().timeIntervalSince(loadStart)
        // The planner answers the catalog's household lookups, as in a deployment.
        let planner = try PlannerService(configuration: .inProcess(.planner), logger: logger)
        let planning = Task { try await planner.host.run(signals: false) }
        defer { planning.cancel() }
        var configuration = ServiceConfiguration.inProcess(.catalog, dataDirectory: directory, peers: [.planner: planner.host.boundEndpoints])
        configuration.postgres = nil
        let catalog = try CatalogService(configuration: configuration, seed: seed, logger: logger)
        print(
            "Shipped data: \(seed.ingredients.count) foods, read in \(String(format: "%.2f", parsed)) s; a new catalog loaded them in "
                + "\(String(format: "%.2f", Date().timeIntervalSince(loadStart))) s in all")
        let serving = Task { try await catalog.host.run(signals: false) }
        defer { serving.cancel() }
        let client = catalog.host.client(Catalog.self)
        var rows: [Samples] = []

        func measure(_ name: String, count: Int, warmup: Int, _ body: (Int) async throws -> Void) async throws {
            for index in 0..<warmup { try await body(index) }
            var samples = Samples(name: name)
            for index in 0..<count {
                let start = DispatchTime.now().uptimeNanoseconds
                try await body(index)
                samples.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
            }
            rows.append(samples)
        }
        try await measure("food search, direct on the store", count: searches, warmup: 200) { index in
            _ = try catalog.store.searchIngredients(.init(query: Self.typed[index % Self.typed.count]))
        }
        try await measure("food search, a request over the service's socket", count: searches, warmup: 200) { index in
            _ = try await client.call(CatalogAPI.searchIngredients, .init(query: Self.typed[index % Self.typed.count]), user: "bench")
        }
        let (document, lines) = try Self.twentyRecipes(seed: seed)
        var imported = 0
        try await measure("import of a 20-recipe document (\(lines) lines, 20 of them on USDA foods)", count: imports, warmup: 2) { index in
            let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "importer\(index)-\(UUID())")
            imported += report.imported.count
        }
        guard imported == 20 * (imports + 2) else { throw ValidationError("the document did not import whole: \(imported) recipes") }

        rows += try await measureOpenFoodFacts(logger: logger)
        report("Real food data (\(seed.ingredients.count) foods in the catalog; SQLite file; in-process services)", rows)
    }

    /// 20 shipped recipes as their schema.org export, each with one line more that only a USDA
    /// food matches ("100 g fontina cheese").
    static func twentyRecipes(seed: SeedData) throws -> (document: String, lines: Int) {
        let extras = [
            "100 g fontina cheese", "1 cup buttermilk", "2 tbsp capers", "1 cup frozen peas", "200 g smoked salmon", "1 tbsp maple syrup",
            "100 g feta cheese", "1 cup chopped walnuts", "2 tbsp tahini", "1 cup cooked quinoa",
        ]
        var nodes: [[String: Any]] = []
        for (index, recipe) in seed.recipes.prefix(20).enumerated() {
            let byID = Dictionary(uniqueKeysWithValues: seed.ingredients.map { ($0.id, $0) })
            var lines = recipe.ingredients.map { line in
                let quantity = line.quantity == line.quantity.rounded() ? "\(Int(line.quantity))" : "\(line.quantity)"
                return "\(quantity) \(line.unit.rawValue) \(byID[line.ingredient]?.name ?? line.ingredient)"
            }
            lines.append(extras[index % extras.count])
            nodes.append([
                "@type": "Recipe", "name": recipe.name, "recipeYield": "\(recipe.servings)", "recipeIngredient": lines,
                "recipeInstructions": recipe.steps.map(\.description),
            ])
        }
        let lines = nodes.reduce(0) { $0 + (($1["recipeIngredient"] as? [String])?.count ?? 0) }
        let data = try JSONSerialization.data(withJSONObject: ["@context": "https://schema.org", "@graph": nodes])
        return (String(decoding: data, as: UTF8.self), lines)
    }

    /// Open Food Facts lookups through the tracker: a code not looked up before (fetched from a
    /// local server in the API v2 shape, then kept), and a code looked up before (from the table).
    func measureOpenFoodFacts(logger: Logger) async throws -> [Samples] {
        let router = Router()
        router.get("/api/v2/product/:file") { _, context in
            let code = String((context.parameters.get("file") ?? "").prefix { $0.isNumber })
            let body =
                #"{"code": "\#(code)", "status": 1, "product": {"product_name": "Crackers \#(code)", "brands": "Bench", "quantity": "250 g", "#
                + #""nutriments": {"energy-kcal_100g": 420, "carbohydrates_100g": 70, "proteins_100g": 9, "fat_100g": 11}, "allergens_tags": ["en:gluten"]}}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        let count = lookups
        return try await withLocalWebServer(router) { port in
            // Paced far above the 10 a minute a deployment keeps to: the figure is one lookup's time.
            let settings = OpenFoodFactsSettings(
                enabled: true, baseURL: "http://127.0.0.1:\(port)", lookupsPerMinute: 1_000_000,
                policy: FetchPolicy(allowed: AddressRange("127.0.0.0/8").map { [$0] } ?? []))
            let tracker = try TrackerService(configuration: .inProcess(.tracker), logger: logger, openFoodFacts: settings)
            let serving = Task { try await tracker.host.run(signals: false) }
            defer { serving.cancel() }
            let client = tracker.host.client(Tracker.self)
            let warmup = 20
            let codes = (0..<(count + warmup)).map { Barcode.completing(String(format: "5%011d", $0)) }
            var fetched = Samples(name: "barcode not known yet: looked up in Open Food Facts (local server) and kept")
            var kept = Samples(name: "the same barcode again: from the tracker's table")
            for (index, code) in codes.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try await client.call(TrackerAPI.product, BarcodeLookup(code: code), user: "bench")
                if index >= warmup { fetched.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start) }
            }
            for (index, code) in codes.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try await client.call(TrackerAPI.product, BarcodeLookup(code: code), user: "bench")
                if index >= warmup { kept.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start) }
            }
            return [fetched, kept]
        }
    }

}
