import SousRuntime
import SousSchema
import SousWire

/// The calls the groceries service makes to the catalog and the planner (see ``Peer`` for how
/// long they may take and how their failures read).
struct GroceriesPeers: Sendable {
    let catalog: Peer<Catalog>
    let planner: Peer<Planner>

    /// The caller's household size and the slots the recipe fills in their visible week: one
    /// planner read (it does not look the recipe up; ``recipeWithIngredients(_:user:for:)`` does).
    func household(_ recipe: String, user: String, for context: RequestContext) async throws(ServiceError) -> RecipeHousehold {
        try await planner.call(PlannerAPI.household, RecipeID(id: recipe), user: user, for: context, notFoundField: "recipe")
    }

    /// The recipe at its own servings, with the facts of every ingredient it uses: one call,
    /// which needs nothing from the planner's (``RecipeSnapshot/init(_:people:)`` scales it).
    func recipeWithIngredients(_ id: String, user: String, for context: RequestContext) async throws(ServiceError) -> RecipeDetail {
        try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: id, withIngredients: true), user: user, for: context, notFoundField: "recipe")
    }

    func ingredients(_ ids: [String], notFoundField: String, for context: RequestContext) async throws(ServiceError) -> [Ingredient] {
        guard !ids.isEmpty else { return [] }
        return try await catalog.call(
            CatalogAPI.getIngredients, IngredientIDs(ids: ids), user: context.user, for: context, notFoundField: notFoundField
        ).ingredients
    }
}
