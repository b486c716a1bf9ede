import CatalogService
import CatalogTesting
import Foundation
import SousFetch
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire

/// Where a test catalog keeps its data.
enum CatalogStorage: CaseIterable, Sendable {
    /// An in-memory copy of the seeded template (or a schema of its own on the test PostgreSQL).
    case memory
    /// A SQLite file in a temporary folder, seeded from the shipped files (the curated part), as a deployment runs
    /// it: only there does the I/O thread read through a reader of its own and answer what it
    /// keeps by ``DataStamp`` (on the test PostgreSQL, a schema of its own again).
    case file
}

/// Runs a real catalog in-process over inproc://, its data in memory unless `storage` says.
func withCatalog<T: Sendable>(
    peers: [SousService: ServiceEndpoints] = [:], storage: CatalogStorage = .memory, fetchPolicy: FetchPolicy = CatalogFixture.fetchPolicy,
    _ body: (CatalogService, ServiceClient<Catalog>) async throws -> T
) async throws -> T {
    let service: CatalogService
    var directory: String?
    // The first catalog loads the shipped data, and one on a file seeds it: work kept off the
    // threads the running services answer on.
    switch storage {
    case .memory: service = try await offThePool { try CatalogFixture.make(peers: peers, fetchPolicy: fetchPolicy) }
    case .file:
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-catalog-\(UUID().uuidString)").path
        directory = folder
        service = try await offThePool {
            try CatalogService(
                configuration: .testing(.catalog, dataDirectory: folder, peers: peers), seed: try CatalogFixture.curatedSeed,
                logger: quietLogger("catalog"))
        }
    }
    defer { if let directory { try? FileManager.default.removeItem(atPath: directory) } }
    // Generous: a bound on a hang, not a performance check, on a machine running tests in parallel.
    // Signed in as "reader" unless a call names its user: the catalog is for signed-in users.
    let client = ServiceClient<Catalog>(
        endpoint: service.host.boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0),
        session: TestSessions.token(for: "reader")
    )
    return try await withRunningService(service.host) { _ in try await body(service, client) }
}

enum TestSeed {
    /// Loaded once: the shipped data files.
    static let shared: SeedData = try! SeedData.bundled()

    static let ingredients: [String: Ingredient] = Dictionary(uniqueKeysWithValues: shared.ingredients.map { ($0.id, $0) })

    /// What a seed recipe contains, computed here independently of the catalog.
    static func facts(of recipe: SeedData.Recipe) -> (contains: Set<DietFact>, allergens: Set<Allergen>) {
        var contains: Set<DietFact> = []
        var allergens: Set<Allergen> = []
        for line in recipe.ingredients {
            contains.formUnion(ingredients[line.ingredient]!.contains)
            allergens.formUnion(ingredients[line.ingredient]!.allergens)
        }
        return (contains, allergens)
    }

    static func fits(_ recipe: SeedData.Recipe, _ diet: Diet) -> Bool {
        let contains = facts(of: recipe).contains
        switch diet {
        case .vegan: return contains.isDisjoint(with: [.meat, .fish, .dairy, .egg, .honey])
        case .vegetarian: return contains.isDisjoint(with: [.meat, .fish, .pork])
        case .glutenFree: return !contains.contains(.gluten)
        case .halal: return contains.isDisjoint(with: [.pork, .alcohol])
        }
    }

    static func energy(_ recipe: SeedData.Recipe) -> Int {
        let total = recipe.prepMinutes + recipe.cookMinutes
        switch total {
        case ...15: return 1
        case ...30: return 2
        case ...45: return 3
        case ...75: return 4
        default: return 5
        }
    }
}

extension ServiceClient where Scope == Catalog {
    /// Every recipe id a search returns, across pages.
    func allRecipeIDs(_ search: RecipeSearch, user: String = "reader") async throws -> [String] {
        var search = search
        search.pageSize = 100
        var page = 1
        var ids: [String] = []
        while true {
            search.page = page
            let result = try await call(CatalogAPI.searchRecipes, search, user: user)
            ids += result.recipes.map(\.id)
            if ids.count >= result.total || result.recipes.isEmpty { return ids }
            page += 1
        }
    }
}
