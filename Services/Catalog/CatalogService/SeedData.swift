public import Foundation
public import SousSchema

/// The ingredients and recipes shipped with Sous (Seed/*.json), versioned so that a newer
/// release's data is loaded on start and an operator can reload it.
public struct SeedData: Sendable {
    public struct Recipe: Codable, Sendable {
        public var id: String
        public var name: String
        public var summary: String
        public var servings: Int
        public var prepMinutes: Int
        public var cookMinutes: Int
        public var equipment: [Appliance]
        public var dishTypes: [DishType]
        public var link: String?
        public var image: String?
        public var ingredients: [RecipeIngredient]
        public var steps: [RecipeStep]

        public init(
            id: String, name: String, summary: String, servings: Int, prepMinutes: Int, cookMinutes: Int, equipment: [Appliance],
            dishTypes: [DishType], link: String?, image: String?, ingredients: [RecipeIngredient], steps: [RecipeStep]
        ) {
            self.id = id
            self.name = name
            self.summary = summary
            self.servings = servings
            self.prepMinutes = prepMinutes
            self.cookMinutes = cookMinutes
            self.equipment = equipment
            self.dishTypes = dishTypes
            self.link = link
            self.image = image
            self.ingredients = ingredients
            self.steps = steps
        }

        var draft: RecipeDraft {
            RecipeDraft(
                name: name, summary: summary, servings: servings, prepMinutes: prepMinutes, cookMinutes: cookMinutes, ingredients: ingredients,
                steps: steps, equipment: equipment, dishTypes: dishTypes, link: link ?? "", image: image ?? ""
            )
        }
    }

    private struct IngredientFile: Codable {
        var version: Int
        var ingredients: [Ingredient]
    }
    private struct RecipeFile: Codable {
        var version: Int
        var recipes: [Recipe]
    }

    /// The data version; the larger of the two files' versions.
    public var version: Int
    public var ingredients: [Ingredient]
    public var recipes: [Recipe]

    public init(version: Int, ingredients: [Ingredient], recipes: [Recipe]) {
        self.version = version
        self.ingredients = ingredients
        self.recipes = recipes
    }

    /// Loads the data shipped in this module's resources: the curated ingredients and recipes,
    /// then the USDA SR28 foods (Seed/sr28, rebuilt by Tools/usda/trim_sr28.py) that no curated
    /// ingredient already stands for (by SR28 food number). Read once per process.
    public static func bundled() throws -> SeedData {
        try shipped.get()
    }

    private static let shipped: Result<SeedData, any Error> = Result {
        guard
            let ingredientsURL = Bundle.module.url(forResource: "ingredients", withExtension: "json", subdirectory: "Seed"),
            let recipesURL = Bundle.module.url(forResource: "recipes", withExtension: "json", subdirectory: "Seed"),
            let usdaURL = Bundle.module.url(forResource: "sr28", withExtension: nil, subdirectory: "Seed")
        else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "seed data missing from the catalog's resources"])
        }
        var seed = try load(ingredients: Data(contentsOf: ingredientsURL), recipes: Data(contentsOf: recipesURL))
        seed.addingFoods(try UsdaImporter.parse(directory: usdaURL))
        return seed
    }

    /// The shipped data without the USDA foods: the curated ingredients and the recipes.
    public var curated: SeedData {
        SeedData(version: version, ingredients: ingredients.filter { !$0.factsDerived }, recipes: recipes)
    }

    /// Adds `foods` after the curated ingredients, leaving out those a curated ingredient
    /// already stands for (the same SR28 food number); such an ingredient takes the food's
    /// household measures, and its density when it has none.
    mutating func addingFoods(_ foods: [Ingredient]) {
        let byNumber = Dictionary(foods.compactMap { food in food.usdaNdb.map { ($0, food) } }, uniquingKeysWith: { first, _ in first })
        for index in ingredients.indices {
            guard let number = ingredients[index].usdaNdb, let food = byNumber[number] else { continue }
            if ingredients[index].portions.isEmpty { ingredients[index].portions = food.portions }
            if ingredients[index].gramsPerMl == nil { ingredients[index].gramsPerMl = food.gramsPerMl }
        }
        let curated = Set(ingredients.compactMap(\.usdaNdb))
        ingredients += foods.filter { food in food.usdaNdb.map { !curated.contains($0) } ?? true }
    }

    public static func load(ingredients: Data, recipes: Data) throws -> SeedData {
        let decoder = JSONDecoder()
        let ingredientFile = try decoder.decode(IngredientFile.self, from: ingredients)
        let recipeFile = try decoder.decode(RecipeFile.self, from: recipes)
        return SeedData(
            version: max(ingredientFile.version, recipeFile.version), ingredients: ingredientFile.ingredients, recipes: recipeFile.recipes)
    }
}
