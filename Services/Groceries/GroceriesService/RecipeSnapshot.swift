public import SousSchema

/// A recipe as the catalog gave it when it was first put on a list: quantities for one
/// multiplier, already scaled to the profile's people.
public struct RecipeSnapshot: Equatable, Sendable {
    public struct Line: Equatable, Sendable {
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

    /// `detail` scaled from the people it was read for to `people`. Read at its own servings,
    /// it is scaled as the catalog scales (`quantity × (people ÷ servings)`, the same doubles), so
    /// the recipe can be read at the same time as the household's size instead of after it.
    public init(_ detail: RecipeDetail, people: Int) {
        let scale = Double(people) / Double(detail.people)
        self.init(
            id: detail.id, name: detail.name, people: people, servings: detail.servings,
            lines: detail.ingredients.map { Line(ingredient: $0.ingredient, quantity: $0.quantity * scale, unit: $0.unit) }
        )
    }
}
