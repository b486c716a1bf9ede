import SousRuntime
import SousSchema
import SousWire

/// The calls the groceries service makes to the catalog and the planner, with their errors
/// translated for the groceries' caller: a peer that does not answer is `unavailable` naming it;
/// an unknown id is `notFound` naming the request field it came from.
struct GroceriesPeers: Sendable {
    let catalog: ServiceClient
    let planner: ServiceClient

    func profile(user: String) async throws(ServiceError) -> CookingProfile {
        try await call(planner, PlannerAPI.getProfile, Empty(), user: user, notFoundField: nil)
    }

    /// The planner's suggestion, kept within 1–100.
    func suggestedMultiplier(_ recipe: String, user: String) async throws(ServiceError) -> Int {
        let suggestion = try await call(planner, PlannerAPI.suggestedMultiplier, RecipeID(id: recipe), user: user, notFoundField: "recipe")
        return min(max(suggestion.multiplier, 1), 100)
    }

    func recipe(_ id: String, people: Int, user: String) async throws(ServiceError) -> RecipeDetail {
        try await call(catalog, CatalogAPI.getRecipe, RecipeLookup(id: id, people: people), user: user, notFoundField: "recipe")
    }

    func ingredients(_ ids: [String], notFoundField: String) async throws(ServiceError) -> [Ingredient] {
        guard !ids.isEmpty else { return [] }
        return try await call(catalog, CatalogAPI.getIngredients, IngredientIDs(ids: ids), user: nil, notFoundField: notFoundField).ingredients
    }

    private func call<Request, Response>(
        _ client: ServiceClient, _ method: Method<Request, Response>, _ request: Request, user: String?, notFoundField: String?
    ) async throws(ServiceError) -> Response {
        do {
            return try await client.call(method, request, user: user)
        } catch {
            switch error.code {
            case .unavailable, .timeout:
                throw .unavailable("the groceries need the \(client.service), which did not answer: \(error.message)")
            case .notFound where notFoundField != nil:
                throw .notFound(error.message, field: notFoundField)
            default:
                throw error
            }
        }
    }
}
