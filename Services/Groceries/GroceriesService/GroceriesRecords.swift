import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

// The groceries tables as records: each names its columns once and reads and writes itself,
// with the same statements on SQLite and PostgreSQL (``SQLRecord``).

/// Reads a stored enum value; a value this build does not know is a damaged row, not a default.
func storedValue<T: RawRepresentable>(_ type: T.Type, _ raw: String) throws -> T where T.RawValue == String {
    guard let value = T(rawValue: raw) else { throw ServiceError.internal("stored \(T.self) \"\(raw)\" is unknown") }
    return value
}

/// What the list needs of a catalog ingredient (`ingredient`), copied when a recipe or item brings it.
struct IngredientFactsRecord: Sendable, SQLRecord {
    static let tableName = "ingredient"
    static let primaryKey = ["id"]

    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let unit = Column("unit")
        static let gramsPerPiece = Column("grams_per_piece")
        static let gramsPerMl = Column("grams_per_ml")
        static let priceAmount = Column("price_amount")
        static let pricePer = Column("price_per")
        static let category = Column("category")
        static let bought = Column("bought")
        /// 0 when the catalog knows no price (price_amount and price_per are then unused).
        static let priced = Column("priced")
        static let packs = Column("packs")
    }

    var facts: ListIngredientFacts

    init(_ facts: ListIngredientFacts) { self.facts = facts }

    init(row: Row) throws {
        facts = ListIngredientFacts(
            id: row[Columns.id], name: row[Columns.name], unit: try storedValue(MeasureUnit.self, row[Columns.unit]),
            gramsPerPiece: row[Columns.gramsPerPiece], gramsPerMl: row[Columns.gramsPerMl],
            price: row[Columns.priced] ? Price(amount: row[Columns.priceAmount], per: try storedValue(PriceUnit.self, row[Columns.pricePer])) : nil,
            category: try storedValue(ShoppingCategory.self, row[Columns.category]), bought: row[Columns.bought],
            packs: PackSize.fromColumnText(row[Columns.packs])
        )
    }

    static let columnNames = [
        Columns.id, Columns.name, Columns.unit, Columns.gramsPerPiece, Columns.gramsPerMl, Columns.priceAmount, Columns.pricePer, Columns.category,
        Columns.bought, Columns.priced, Columns.packs,
    ].map(\.name)

    var values: SQLArguments {
        [
            facts.id, facts.name, facts.unit.rawValue, facts.gramsPerPiece, facts.gramsPerMl, facts.price?.amount ?? 0,
            (facts.price?.per ?? .kg).rawValue, facts.category.rawValue, facts.bought, facts.price != nil, PackSize.columnText(facts.packs ?? []),
        ]
    }
}

/// A recipe on a household's list (`list_recipe`); the list's order is `position` (order of first add).
struct ListRecipeRecord: Sendable, SQLRecord {
    static let tableName = "list_recipe"
    static let primaryKey = ["household", "recipe"]

    enum Columns {
        static let household = Column("household")
        static let recipe = Column("recipe")
        static let name = Column("name")
        static let multiplier = Column("multiplier")
        static let people = Column("people")
        static let servings = Column("servings")
        static let addedAt = Column("added_at")
        static let position = Column("position")
    }

    var household: String
    var recipe: ListRecipe
    /// Where the recipe stands on the list: after every recipe added before it.
    var position: Int64

    init(household: String, recipe: ListRecipe, position: Int64) {
        self.household = household
        self.recipe = recipe
        self.position = position
    }

    init(row: Row) {
        household = row[Columns.household]
        recipe = ListRecipe(
            recipe: row[Columns.recipe], name: row[Columns.name], multiplier: row[Columns.multiplier], people: row[Columns.people],
            servings: row[Columns.servings], excluded: [], addedAt: Date(timeIntervalSince1970: row[Columns.addedAt]))
        position = row[Columns.position]
    }

    static let columnNames = [
        Columns.household, Columns.recipe, Columns.name, Columns.multiplier, Columns.people, Columns.servings, Columns.addedAt, Columns.position,
    ].map(\.name)

    var values: SQLArguments {
        [household, recipe.recipe, recipe.name, recipe.multiplier, recipe.people, recipe.servings, recipe.addedAt.timeIntervalSince1970, position]
    }
}

/// One ingredient line of a listed recipe (`recipe_share`), for one multiplier, as the catalog
/// gave it when the recipe was first added.
struct RecipeShareRecord: Sendable, SQLRecord {
    static let tableName = "recipe_share"
    static let primaryKey = ["household", "recipe", "position"]

    enum Columns {
        static let household = Column("household")
        static let recipe = Column("recipe")
        static let position = Column("position")
        static let ingredient = Column("ingredient")
        static let quantity = Column("quantity")
        static let unit = Column("unit")
        static let excluded = Column("excluded")
    }

    var household: String
    var recipe: String
    var position: Int
    var ingredient: String
    var quantity: Double
    var unit: MeasureUnit
    var excluded: Bool

    init(household: String, recipe: String, position: Int, ingredient: String, quantity: Double, unit: MeasureUnit, excluded: Bool = false) {
        self.household = household
        self.recipe = recipe
        self.position = position
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.excluded = excluded
    }

    init(row: Row) throws {
        household = row[Columns.household]
        recipe = row[Columns.recipe]
        position = row[Columns.position]
        ingredient = row[Columns.ingredient]
        quantity = row[Columns.quantity]
        unit = try storedValue(MeasureUnit.self, row[Columns.unit])
        excluded = row[Columns.excluded]
    }

    static let columnNames = [
        Columns.household, Columns.recipe, Columns.position, Columns.ingredient, Columns.quantity, Columns.unit, Columns.excluded,
    ]
    .map(\.name)

    var values: SQLArguments { [household, recipe, position, ingredient, quantity, unit.rawValue, excluded] }
}

/// A placed order (`grocery_order`); its lines are ``OrderLineRecord``s. Its id is the database's
/// (``insert(_:)`` reads it back).
struct OrderRecord: Sendable, FetchableRecord {
    enum Columns {
        static let id = Column("id")
        static let household = Column("household")
        static let placedAt = Column("placed_at")
        static let phone = Column("phone")
        static let street = Column("street")
        static let postalCode = Column("postal_code")
        static let city = Column("city")
        static let note = Column("note")
        static let total = Column("total")
        static let recipes = Column("recipes")
    }

    var household: String
    /// The order without its lines (id 0 until inserted).
    var order: GroceryOrder

    init(household: String, order: GroceryOrder) {
        self.household = household
        self.order = order
    }

    init(row: Row) {
        household = row[Columns.household]
        let recipes: String = row[Columns.recipes]
        order = GroceryOrder(
            id: row[Columns.id], placedAt: Date(timeIntervalSince1970: row[Columns.placedAt]), phone: row[Columns.phone],
            address: DeliveryAddress(street: row[Columns.street], postalCode: row[Columns.postalCode], city: row[Columns.city]),
            note: row[Columns.note], lines: [], total: row[Columns.total],
            recipes: recipes.isEmpty ? [] : recipes.split(separator: "\n").map(String.init))
    }

    /// Inserts the order (its id ignored) and sets its id to the one the database gave it.
    mutating func insert(_ session: any SQLSession) throws {
        // Recipe ids are slugs, so a newline never occurs inside one.
        let values: SQLArguments = [
            household, order.placedAt.timeIntervalSince1970, order.phone, order.address.street, order.address.postalCode, order.address.city,
            order.note,
            order.total, order.recipes.joined(separator: "\n"),
        ]
        guard let id = try session.value(Int64.self, Self.insertSQL, values) else { throw ServiceError.internal("a new order got no id") }
        order.id = id
    }

    private static let insertSQL = """
        INSERT INTO grocery_order (household, placed_at, phone, street, postal_code, city, note, total, recipes)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """
}

/// One line of a placed order (`order_line`), as the list showed it at checkout.
struct OrderLineRecord: Sendable, SQLRecord {
    static let tableName = "order_line"
    static let primaryKey = ["order_id", "position"]

    enum Columns {
        static let order = Column("order_id")
        static let position = Column("position")
        static let ingredient = Column("ingredient")
        static let name = Column("name")
        static let category = Column("category")
        static let quantity = Column("quantity")
        static let unit = Column("unit")
        static let count = Column("count")
        static let price = Column("price")
        static let checked = Column("checked")
    }

    var order: Int64
    var position: Int
    var line: OrderLine

    init(order: Int64, position: Int, line: OrderLine) {
        self.order = order
        self.position = position
        self.line = line
    }

    init(row: Row) throws {
        order = row[Columns.order]
        position = row[Columns.position]
        line = OrderLine(
            ingredient: row[Columns.ingredient], name: row[Columns.name], category: try storedValue(ShoppingCategory.self, row[Columns.category]),
            quantity: row[Columns.quantity], unit: try (row[Columns.unit] as String?).map { try storedValue(MeasureUnit.self, $0) },
            count: row[Columns.count], price: row[Columns.price], checked: row[Columns.checked])
    }

    static let columnNames = [
        Columns.order, Columns.position, Columns.ingredient, Columns.name, Columns.category, Columns.quantity, Columns.unit, Columns.count,
        Columns.price, Columns.checked,
    ].map(\.name)

    var values: SQLArguments {
        [
            order, position, line.ingredient, line.name, line.category.rawValue, line.quantity, line.unit?.rawValue, line.count, line.price,
            line.checked,
        ]
    }
}
