import SousRuntime
import SousSchema
import SousWire

/// The calls the groceries service makes to the catalog and the planner (see ``Peer`` for how
/// long they may take and how their failures read).
struct GroceriesPeers: Sendable {
    let catalog: Peer<Catalog>
    let planner: Peer<Planner>
    let households: PeerValueCache<Planner, WeekHousehold>

    /// How many people share the caller's household now.
    func householdMembers(user: String, for context: RequestContext) async throws(ServiceError) -> Int {
        try await planner.call(HouseholdLookup.method, Empty(), user: user, for: context).members
    }

    /// The caller's household size and the slots the recipe fills in their visible week: the
    /// week's household kept from the planner (read from it when not kept, or no longer valid).
    func household(_ recipe: String, user: String, for context: RequestContext) async throws(ServiceError) -> RecipeHousehold {
        try await households.value(for: user, context: context).household(of: recipe)
    }

    /// The household and the recipe with its ingredients' facts: both peers asked at the same
    /// time when the household is not kept, else only the catalog (without a task of its own to
    /// wait for).
    func householdAndRecipe(
        _ recipe: String, user: String, for context: RequestContext
    ) async throws -> (household: RecipeHousehold, recipe: RecipeForList) {
        if let week = households.fresh(for: user) {
            return (week.household(of: recipe), try await recipeWithIngredients(recipe, user: user, for: context))
        }
        async let read = recipeWithIngredients(recipe, user: user, for: context)
        let household = try await household(recipe, user: user, for: context)
        return (household, try await read)
    }

    /// The recipe at its own servings, with the facts of every ingredient it uses: one call,
    /// which needs nothing from the planner's (``RecipeSnapshot/init(_:people:)`` scales it).
    func recipeWithIngredients(_ id: String, user: String, for context: RequestContext) async throws(ServiceError) -> RecipeForList {
        try await catalog.call(
            CatalogAPI.getRecipeForList, RecipeLookup(id: id, withIngredients: true), user: user, for: context, notFoundField: "recipe")
    }

    func ingredients(_ ids: [String], notFoundField: String, for context: RequestContext) async throws(ServiceError) -> [Ingredient] {
        guard !ids.isEmpty else { return [] }
        return try await catalog.call(
            CatalogAPI.getIngredients, IngredientIDs(ids: ids), user: context.user, for: context, notFoundField: notFoundField
        ).ingredients
    }
}
