import SousRuntime
import SousSchema
import SousWire

/// The calls the groceries service makes to the catalog and the planner (see ``Peer`` for how
/// long they may take and how their failures read).
struct GroceriesPeers: Sendable {
    let catalog: Peer<Catalog>
    let planner: Peer<Planner>

    func profile(user: String, for context: RequestContext) async throws(ServiceError) -> CookingProfile {
        try await planner.call(PlannerAPI.getProfile, Empty(), user: user, for: context)
    }

    /// The planner's suggestion, kept within 1–100.
    func suggestedMultiplier(_ recipe: String, user: String, for context: RequestContext) async throws(ServiceError) -> Int {
        let suggestion = try await planner.call(
            PlannerAPI.suggestedMultiplier, RecipeID(id: recipe), user: user, for: context, notFoundField: "recipe")
        return min(max(suggestion.multiplier, 1), 100)
    }

    /// The recipe scaled for `people`, with the facts of every ingredient it uses: one call.
    func recipeWithIngredients(_ id: String, people: Int, user: String, for context: RequestContext) async throws(ServiceError) -> RecipeDetail {
        try await catalog.call(
            CatalogAPI.getRecipe, RecipeLookup(id: id, people: people, withIngredients: true), user: user, for: context, notFoundField: "recipe")
    }

    func ingredients(_ ids: [String], notFoundField: String, for context: RequestContext) async throws(ServiceError) -> [Ingredient] {
        guard !ids.isEmpty else { return [] }
        return try await catalog.call(
            CatalogAPI.getIngredients, IngredientIDs(ids: ids), user: context.user, for: context, notFoundField: notFoundField
        ).ingredients
    }
}
