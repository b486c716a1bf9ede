import CatalogService
import CatalogTesting
import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Two catalog replicas on one PostgreSQL schema, behind one endpoint list, as a deployment runs
/// them.
@Suite(.closesItsSockets, .enabled(if: TestDatabase.url != nil, "replicas share a PostgreSQL schema (SOUS_TEST_DATABASE_URL)"))
struct CatalogReplicaTests {
    /// Two replicas, the second on its own connections to the first one's schema.
    func withReplicas(_ body: @escaping @Sendable (CatalogService, CatalogService) async throws -> Void) async throws {
        let first = try CatalogFixture.make()
        let location = try #require(first.store.database.postgresLocation)
        let second = try CatalogService(
            configuration: .testing(.catalog), seed: CatalogFixture.seed, logger: quietLogger("catalog-2"),
            database: CatalogService.openDatabase(at: .postgres(location), logger: quietLogger("catalog-2")))
        try await withRunningServices([first.host, second.host]) { _ in try await body(first, second) }
    }

    func client(_ replicas: [CatalogService], user: String) -> ServiceClient<Catalog> {
        ServiceClient<Catalog>(
            endpoint: replicas.map(\.host.boundEndpoints.requests).joined(separator: ","), options: .init(timeout: .seconds(30), retries: 2),
            session: TestSessions.token(for: user))
    }

    /// The replica that did not import knows the ingredient at once: its ingredients in memory
    /// follow the newest ingredient version in the shared database.
    @Test func anIngredientImportedThroughOneReplicaIsUsableThroughTheOther() async throws {
        try await withReplicas { first, second in
            let reader = client([first], user: "reader")
            var heirloom = try #require(try await reader.call(CatalogAPI.getIngredients, .init(ids: ["tomato"])).ingredients.first)
            heirloom.id = "heirloom-tomato"
            heirloom.name = "Heirloom tomato"
            heirloom.synonyms = []
            _ = try await client([first], user: "operator").call(
                CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [heirloom]))

            let onSecond = client([second], user: "ada")
            #expect(
                try await onSecond.call(CatalogAPI.getIngredients, .init(ids: ["heirloom-tomato"])).ingredients.map(\.name) == ["Heirloom tomato"])
            let recipe = try await onSecond.call(
                CatalogAPI.createRecipe,
                RecipeDraft(
                    name: "Heirloom salad", summary: "Sliced", ingredients: [.init(ingredient: "heirloom-tomato", quantity: 2, unit: heirloom.unit)]))
            #expect(recipe.ingredients.map(\.ingredient) == ["heirloom-tomato"])
            let found = try await onSecond.call(CatalogAPI.searchRecipes, RecipeSearch(query: "heirloom"))
            #expect(found.recipes.map(\.id) == [recipe.id])
        }
    }

    /// A client given both replicas spreads its calls over them and, once one is gone, reaches
    /// the other.
    @Test func aClientOfBothReplicasKeepsWorkingWhenOneStops() async throws {
        let survivor = try CatalogFixture.make()
        let location = try #require(survivor.store.database.postgresLocation)
        let leaving = try CatalogService(
            configuration: .testing(.catalog), seed: CatalogFixture.seed, logger: quietLogger("catalog-2"),
            database: CatalogService.openDatabase(at: .postgres(location), logger: quietLogger("catalog-2")))
        try await withRunningServices([survivor.host]) { _ in
            let both = client([survivor, leaving], user: "ada")
            let created = try await withRunningServices([leaving.host]) { _ in
                try await both.call(CatalogAPI.createRecipe, RecipeDraft(name: "Toast", summary: "Bread, toasted"))
            }
            for _ in 0..<6 {
                #expect(try await both.call(CatalogAPI.getRecipe, .init(id: created.id)).name == "Toast")
            }
        }
    }
}
