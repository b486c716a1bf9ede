import Foundation
import GRDB
import SousSchema
import SousWire

// The groceries tables as GRDB records: each names its columns once and reads and writes itself.

/// Reads a stored enum value; a value this build does not know is a damaged row, not a default.
func storedValue<T: RawRepresentable>(_ type: T.Type, _ raw: String) throws -> T where T.RawValue == String {
    guard let value = T(rawValue: raw) else { throw ServiceError.internal("stored \(T.self) \"\(raw)\" is unknown") }
    return value
}

/// What the list needs of a catalog ingredient (`ingredient`), copied when a recipe or item brings it.
struct IngredientFactsRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ingredient"

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
    }

    var facts: ListIngredientFacts

    init(_ facts: ListIngredientFacts) { self.facts = facts }

    init(row: Row) throws {
        facts = ListIngredientFacts(
            id: row[Columns.id], name: row[Columns.name], unit: try storedValue(MeasureUnit.self, row[Columns.unit]),
            gramsPerPiece: row[Columns.gramsPerPiece], gramsPerMl: row[Columns.gramsPerMl],
            price: Price(amount: row[Columns.priceAmount], per: try storedValue(PriceUnit.self, row[Columns.pricePer])),
            category: try storedValue(ShoppingCategory.self, row[Columns.category]), bought: row[Columns.bought]
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = facts.id
        container[Columns.name] = facts.name
        container[Columns.unit] = facts.unit.rawValue
        container[Columns.gramsPerPiece] = facts.gramsPerPiece
        container[Columns.gramsPerMl] = facts.gramsPerMl
        container[Columns.priceAmount] = facts.price.amount
        container[Columns.pricePer] = facts.price.per.rawValue
        container[Columns.category] = facts.category.rawValue
        container[Columns.bought] = facts.bought
    }
}

/// A recipe on a user's list (`list_recipe`); the list's order is the rowid (order of first add).
struct ListRecipeRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "list_recipe"

    enum Columns {
        static let user = Column("user")
        static let recipe = Column("recipe")
        static let name = Column("name")
        static let multiplier = Column("multiplier")
        static let people = Column("people")
        static let servings = Column("servings")
        static let addedAt = Column("added_at")
    }

    var user: String
    var recipe: ListRecipe

    init(user: String, recipe: ListRecipe) {
        self.user = user
        self.recipe = recipe
    }

    init(row: Row) {
        user = row[Columns.user]
        recipe = ListRecipe(
            recipe: row[Columns.recipe], name: row[Columns.name], multiplier: row[Columns.multiplier], people: row[Columns.people],
            servings: row[Columns.servings], excluded: [], addedAt: Date(timeIntervalSince1970: row[Columns.addedAt]))
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.recipe] = recipe.recipe
        container[Columns.name] = recipe.name
        container[Columns.multiplier] = recipe.multiplier
        container[Columns.people] = recipe.people
        container[Columns.servings] = recipe.servings
        container[Columns.addedAt] = recipe.addedAt.timeIntervalSince1970
    }

    static func listed(_ recipe: String, user: String) -> QueryInterfaceRequest<Self> {
        filter(Columns.user == user && Columns.recipe == recipe)
    }
}

/// One ingredient line of a listed recipe (`recipe_share`), for one multiplier, as the catalog
/// gave it when the recipe was first added.
struct RecipeShareRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "recipe_share"

    enum Columns {
        static let user = Column("user")
        static let recipe = Column("recipe")
        static let position = Column("position")
        static let ingredient = Column("ingredient")
        static let quantity = Column("quantity")
        static let unit = Column("unit")
        static let excluded = Column("excluded")
    }

    var user: String
    var recipe: String
    var position: Int
    var ingredient: String
    var quantity: Double
    var unit: MeasureUnit
    var excluded: Bool

    init(user: String, recipe: String, position: Int, ingredient: String, quantity: Double, unit: MeasureUnit, excluded: Bool = false) {
        self.user = user
        self.recipe = recipe
        self.position = position
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.excluded = excluded
    }

    init(row: Row) throws {
        user = row[Columns.user]
        recipe = row[Columns.recipe]
        position = row[Columns.position]
        ingredient = row[Columns.ingredient]
        quantity = row[Columns.quantity]
        unit = try storedValue(MeasureUnit.self, row[Columns.unit])
        excluded = row[Columns.excluded]
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.recipe] = recipe
        container[Columns.position] = position
        container[Columns.ingredient] = ingredient
        container[Columns.quantity] = quantity
        container[Columns.unit] = unit.rawValue
        container[Columns.excluded] = excluded
    }
}

/// A placed order (`grocery_order`); its lines are ``OrderLineRecord``s.
struct OrderRecord: Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "grocery_order"

    enum Columns {
        static let id = Column("id")
        static let user = Column("user")
        static let placedAt = Column("placed_at")
        static let phone = Column("phone")
        static let street = Column("street")
        static let postalCode = Column("postal_code")
        static let city = Column("city")
        static let note = Column("note")
        static let total = Column("total")
        static let recipes = Column("recipes")
    }

    var user: String
    /// The order without its lines (id 0 until inserted).
    var order: GroceryOrder

    init(user: String, order: GroceryOrder) {
        self.user = user
        self.order = order
    }

    init(row: Row) {
        user = row[Columns.user]
        let recipes: String = row[Columns.recipes]
        order = GroceryOrder(
            id: row[Columns.id], placedAt: Date(timeIntervalSince1970: row[Columns.placedAt]), phone: row[Columns.phone],
            address: DeliveryAddress(street: row[Columns.street], postalCode: row[Columns.postalCode], city: row[Columns.city]),
            note: row[Columns.note], lines: [], total: row[Columns.total],
            recipes: recipes.isEmpty ? [] : recipes.split(separator: "\n").map(String.init))
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = order.id == 0 ? nil : order.id
        container[Columns.user] = user
        container[Columns.placedAt] = order.placedAt.timeIntervalSince1970
        container[Columns.phone] = order.phone
        container[Columns.street] = order.address.street
        container[Columns.postalCode] = order.address.postalCode
        container[Columns.city] = order.address.city
        container[Columns.note] = order.note
        container[Columns.total] = order.total
        // Recipe ids are slugs, so a newline never occurs inside one.
        container[Columns.recipes] = order.recipes.joined(separator: "\n")
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        order.id = inserted.rowID
    }
}

/// One line of a placed order (`order_line`), as the list showed it at checkout.
struct OrderLineRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "order_line"

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

    func encode(to container: inout PersistenceContainer) {
        container[Columns.order] = order
        container[Columns.position] = position
        container[Columns.ingredient] = line.ingredient
        container[Columns.name] = line.name
        container[Columns.category] = line.category.rawValue
        container[Columns.quantity] = line.quantity
        container[Columns.unit] = line.unit?.rawValue
        container[Columns.count] = line.count
        container[Columns.price] = line.price
        container[Columns.checked] = line.checked
    }
}
