public import MessagePack
public import SousSchema
public import SousWire

/// A recipe as the catalog gave it when it was first put on a list: quantities for one
/// multiplier, already scaled to the profile's people.
public struct RecipeSnapshot: Equatable, Sendable {
    /// One line; coded under the names of ``RecipeIngredientDetail``'s fields, so that
    /// ``RecipeForList`` reads it from the catalog's reply.
    @MessagePackCodable
    public struct Line: Codable, Equatable, Sendable {
        public var ingredient: String
        public var quantity: Double
        public var unit: MeasureUnit

        public init(ingredient: String, quantity: Double, unit: MeasureUnit) {
            self.ingredient = ingredient
            self.quantity = quantity
            self.unit = unit
        }
    }

    public var id: String
    public var name: String
    public var people: Int
    public var servings: Int
    public var lines: [Line]

    public init(id: String, name: String, people: Int, servings: Int, lines: [Line]) {
        self.id = id
        self.name = name
        self.people = people
        self.servings = servings
        self.lines = lines
    }

    /// `recipe` scaled from the people it was read for to `people`. Read at its own servings,
    /// it is scaled as the catalog scales (`quantity × (people ÷ servings)`, the same doubles), so
    /// the recipe can be read at the same time as the household's size instead of after it.
    public init(_ recipe: RecipeForList, people: Int) {
        let scale = Double(people) / Double(recipe.people)
        self.init(
            id: recipe.id, name: recipe.name, people: people, servings: recipe.servings,
            lines: recipe.ingredients.map { Line(ingredient: $0.ingredient, quantity: $0.quantity * scale, unit: $0.unit) }
        )
    }

    /// ``init(_:people:)`` from the whole recipe.
    public init(_ detail: RecipeDetail, people: Int) {
        self.init(RecipeForList(detail), people: people)
    }
}

/// What a grocery list reads of a catalog recipe: `recipes.get`'s reply with its ingredients
/// (``RecipeDetail``), decoded as these fields only, under the same names. The decoder skips the
/// rest (steps, nutrition, texts, and of each ingredient all but its units, price and category)
/// without building it: the call takes about 12 µs less (docs/BENCHMARKS.md).
@MessagePackCodable
public struct RecipeForList: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var servings: Int
    /// The people ``ingredients``' quantities are for.
    public var people: Int
    public var ingredients: [RecipeSnapshot.Line]
    /// The facts of the ingredients the lines use, when the lookup asked for them.
    public var ingredientFacts: [ListIngredientFacts]?

    /// The same fields of the whole recipe.
    public init(_ detail: RecipeDetail) {
        id = detail.id
        name = detail.name
        servings = detail.servings
        people = detail.people
        ingredients = detail.ingredients.map { RecipeSnapshot.Line(ingredient: $0.ingredient, quantity: $0.quantity, unit: $0.unit) }
        ingredientFacts = detail.ingredientFacts?.map(ListIngredientFacts.init)
    }
}

extension CatalogAPI {
    /// `recipes.get` as a grocery list reads it (``RecipeForList``).
    public static let getRecipeForList = getRecipe.replying(as: RecipeForList.self)
}
