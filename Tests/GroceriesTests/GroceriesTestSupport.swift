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
import SousWire
import Testing

/// A real catalog, planner and groceries service running in-process over inproc://, and clients.
struct GroceriesEnvironment: Sendable {
    let catalog: ServiceClient<Catalog>
    let planner: ServiceClient<Planner>
    let groceries: ServiceClient<Groceries>
    let service: GroceriesService
    let clock: WallClock

    /// Sets the user's people count through the planner's real profile method.
    func setPeople(_ people: Int, user: String = "ada") async throws {
        try await changingHousehold(of: user) { try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(people: people), user: user) }
    }

    /// Runs a change in the planner, then waits until the groceries service has its event (it
    /// keeps each user's household until the planner announces a change).
    @discardableResult
    func changingHousehold<T: Sendable>(of user: String, _ change: () async throws -> T) async throws -> T {
        let applied = service.households.applied.subscribe()
        let result = try await change()
        _ = try await firstElement(of: applied, within: .seconds(30)) { $0 == user }
        return result
    }

    func add(_ recipe: String, multiplier: Int? = nil, exclude: [String]? = nil, user: String = "ada") async throws -> GroceryList {
        try await write(GroceriesAPI.addRecipe, AddRecipeToList(recipe: recipe, multiplier: multiplier, exclude: exclude), user: user)
    }

    /// A write asked to answer with the list; checks that the list is the one at the change's
    /// version and agrees with its counts.
    func write<Request: GroceryListWrite>(
        _ method: Method<Groceries, Request, GroceryListChange>, _ request: Request, user: String = "ada",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GroceryList {
        var request = request
        request.withList = true
        let change = try await groceries.call(method, request, user: user)
        let list = try #require(change.list, sourceLocation: sourceLocation)
        #expect(list.version == change.version && list.recipes.count == change.recipeCount, sourceLocation: sourceLocation)
        #expect(list.checkedCount == change.checkedCount, sourceLocation: sourceLocation)
        return list
    }

    func list(user: String = "ada") async throws -> GroceryList {
        try await groceries.call(GroceriesAPI.list, Empty(), user: user)
    }

    /// Creates a recipe in the catalog owned by `user` and returns its id.
    func createRecipe(_ name: String, servings: Int, _ lines: [RecipeIngredient], user: String = "ada") async throws -> String {
        let draft = RecipeDraft(
            name: name, summary: "A test recipe.", servings: servings, prepMinutes: 5, cookMinutes: 10, ingredients: lines,
            steps: [RecipeStep(description: "Cook it all.", minutes: 10, type: .cooking, ingredients: lines.map(\.ingredient))], equipment: [.stove]
        )
        return try await catalog.call(CatalogAPI.createRecipe, draft, user: user).id
    }

    func ingredient(_ id: String) async throws -> Ingredient {
        try await catalog.call(CatalogAPI.getIngredients, IngredientIDs(ids: [id])).ingredients[0]
    }
}

/// A fixed instant so lists built at different moments compare equal.
let testStart = Date(timeIntervalSince1970: 1_780_000_000)

func withGroceries<T: Sendable>(_ body: (GroceriesEnvironment) async throws -> T) async throws -> T {
    let clock = WallClock.manual(at: testStart)
    let catalog = try CatalogFixture.make(clock: clock)
    let planner = try PlannerFixture.make(peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
    let groceries = try GroceriesFixture.make(peers: [.catalog: catalog.host.boundEndpoints, .planner: planner.host.boundEndpoints], clock: clock)
    // Generous timeouts: a bound on a hang, not a performance check.
    let options = ClientOptions(timeout: .seconds(30), retries: 0)
    let environment = GroceriesEnvironment(
        catalog: ServiceClient<Catalog>(endpoint: catalog.host.boundEndpoints.requests, options: options, session: TestSessions.token(for: "reader")),
        planner: ServiceClient<Planner>(endpoint: planner.host.boundEndpoints.requests, options: options),
        groceries: ServiceClient<Groceries>(endpoint: groceries.host.boundEndpoints.requests, options: options),
        service: groceries, clock: clock
    )
    return try await withRunningServices([catalog.host, planner.host, groceries.host]) { _ in
        // A subscription's first messages may be missed: the planner announces a change for
        // nobody until the groceries service has seen one, so a test's changes all reach it.
        await groceries.households.waitUntilSubscribed()
        let seen = await announceUntilSeen(in: groceries.households.applied.subscribe(), where: { $0 == "(subscription check)" }) {
            planner.host.publisher.publish(PlannerTopics.planChanged, PlanChangedEvent(user: "(subscription check)", dates: []))
        }
        try #require(seen, "the groceries service never saw the planner's events")
        return try await body(environment)
    }
}
