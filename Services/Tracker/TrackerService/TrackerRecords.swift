import Foundation
import GRDB
import SousSchema
import SousWire

// The tracker's tables as GRDB records: each names its columns once and reads and writes itself.

/// The four macro columns per 100 g that diary entries, goals, saved foods and products share.
enum MacroColumns {
    static let kcal = Column("kcal")
    static let carbohydrates = Column("carbohydrates")
    static let protein = Column("protein")
    static let fat = Column("fat")

    static func macros(_ row: Row) -> Macros {
        Macros(kcal: row[kcal], carbohydrates: row[carbohydrates], protein: row[protein], fat: row[fat])
    }

    static func encode(_ macros: Macros, to container: inout PersistenceContainer) {
        container[kcal] = macros.kcal
        container[carbohydrates] = macros.carbohydrates
        container[protein] = macros.protein
        container[fat] = macros.fat
    }
}

/// One line of a user's food diary (`diary_entry`).
struct DiaryEntryRecord: Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "diary_entry"

    enum Columns {
        static let id = Column("id")
        static let user = Column("user")
        static let date = Column("date")
        static let meal = Column("meal")
        static let food = Column("food")
        static let grams = Column("grams")
        static let sourceKind = Column("source_kind")
        static let sourceReference = Column("source_ref")
        static let loggedAt = Column("logged_at")
    }

    /// Nil until inserted.
    var id: Int64?
    var user: String
    var date: LocalDate
    var meal: Meal
    var food: String
    var grams: Double
    var per100g: Macros
    var source: EntrySource
    var loggedAt: Date

    init(user: String, _ new: TrackerStore.NewEntry, loggedAt: Date) {
        self.user = user
        date = new.date
        meal = new.meal
        food = new.food
        grams = new.grams
        per100g = new.per100g
        source = new.source
        self.loggedAt = loggedAt
    }

    init(row: Row) throws {
        let id: Int64 = row[Columns.id]
        guard let date = LocalDate(row[Columns.date] as String), let meal = Meal(rawValue: row[Columns.meal]),
            let kind = EntrySourceKind(rawValue: row[Columns.sourceKind])
        else {
            throw ServiceError.internal("diary entry \(id) holds an unreadable date, meal or source")
        }
        self.id = id
        user = row[Columns.user]
        self.date = date
        self.meal = meal
        food = row[Columns.food]
        grams = row[Columns.grams]
        per100g = MacroColumns.macros(row)
        source = EntrySource(kind: kind, reference: row[Columns.sourceReference])
        loggedAt = Date(timeIntervalSince1970: row[Columns.loggedAt])
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.user] = user
        container[Columns.date] = date.description
        container[Columns.meal] = meal.rawValue
        container[Columns.food] = food
        container[Columns.grams] = grams
        MacroColumns.encode(per100g, to: &container)
        container[Columns.sourceKind] = source.kind.rawValue
        container[Columns.sourceReference] = source.reference
        container[Columns.loggedAt] = loggedAt.timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The entry as served; only inserted or fetched records have one.
    var entry: DiaryEntry {
        DiaryEntry(id: id ?? 0, date: date, meal: meal, food: food, grams: grams, per100g: per100g, source: source, loggedAt: loggedAt)
    }

    /// Copies the served fields a user may edit.
    mutating func take(_ entry: DiaryEntry) {
        date = entry.date
        meal = entry.meal
        food = entry.food
        grams = entry.grams
        per100g = entry.per100g
    }

    /// The user's entry `id`; another user's entry is not theirs to see.
    static func owned(_ id: Int64, by user: String) -> QueryInterfaceRequest<Self> {
        filter(Columns.id == id && Columns.user == user)
    }
}

/// A goal change (`goal`): the goals that hold from `from` until the next change.
struct GoalRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "goal"

    enum Columns {
        static let user = Column("user")
        static let from = Column("from_date")
    }

    var user: String
    var from: LocalDate
    var goals: Goals

    init(user: String, from: LocalDate, goals: Goals) {
        self.user = user
        self.from = from
        self.goals = goals
    }

    init(row: Row) throws {
        let text: String = row[Columns.from]
        guard let from = LocalDate(text) else { throw ServiceError.internal("goal change dated \(text) is unreadable") }
        user = row[Columns.user]
        self.from = from
        let macros = MacroColumns.macros(row)
        goals = Goals(kcal: macros.kcal, carbohydrates: macros.carbohydrates, protein: macros.protein, fat: macros.fat)
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.from] = from.description
        MacroColumns.encode(Macros(kcal: goals.kcal, carbohydrates: goals.carbohydrates, protein: goals.protein, fat: goals.fat), to: &container)
    }
}

/// A food the user saved to log again (`saved_food`).
struct SavedFoodRecord: Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "saved_food"

    enum Columns {
        static let id = Column("id")
        static let user = Column("user")
        static let name = Column("name")
        static let meals = Column("meals")
        static let grams = Column("grams")
    }

    var user: String
    var food: SavedFood

    init(user: String, food: SavedFood) {
        self.user = user
        self.food = food
        self.food.meals = Self.sorted(food.meals)
    }

    init(row: Row) {
        user = row[Columns.user]
        food = SavedFood(
            id: row[Columns.id], name: row[Columns.name],
            meals: (row[Columns.meals] as String).split(separator: ",").compactMap { Meal(rawValue: String($0)) }, grams: row[Columns.grams],
            per100g: MacroColumns.macros(row))
    }

    func encode(to container: inout PersistenceContainer) {
        // 0 is a food not inserted yet: SQLite picks its id.
        container[Columns.id] = food.id == 0 ? nil : food.id
        container[Columns.user] = user
        container[Columns.name] = food.name
        container[Columns.meals] = Self.sorted(food.meals).map(\.rawValue).joined(separator: ",")
        container[Columns.grams] = food.grams
        MacroColumns.encode(food.per100g, to: &container)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        food.id = inserted.rowID
    }

    static func sorted(_ meals: [Meal]) -> [Meal] { Array(Set(meals)).sorted() }

    /// The user's food `id`; another user's food is not theirs to see.
    static func owned(_ id: Int64, by user: String) -> QueryInterfaceRequest<Self> {
        filter(Columns.id == id && Columns.user == user)
    }
}

/// A product by barcode: shared ones (`product`, with where they came from) and users' own
/// (`user_product`, with their owner) share every other column.
struct ProductRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "product"

    enum Columns {
        static let code = Column("code")
        static let name = Column("name")
        static let brand = Column("brand")
        static let quantity = Column("quantity")
        static let allergens = Column("allergens")
        static let usdaNdb = Column("usda_ndb")
        static let source = Column("source")
    }

    var product: Product
    var source: String

    init(_ product: Product, source: String) {
        self.product = product
        self.source = source
    }

    init(row: Row) {
        product = Self.product(row)
        source = row[Columns.source]
    }

    func encode(to container: inout PersistenceContainer) {
        Self.encode(product, to: &container)
        container[Columns.source] = source
    }

    static func product(_ row: Row) -> Product {
        Product(
            code: row[Columns.code], name: row[Columns.name], brand: row[Columns.brand], quantity: row[Columns.quantity],
            per100g: MacroColumns.macros(row), allergens: (row[Columns.allergens] as String).split(separator: ",").map(String.init),
            usdaNdb: row[Columns.usdaNdb]
        )
    }

    static func encode(_ product: Product, to container: inout PersistenceContainer) {
        container[Columns.code] = product.code
        container[Columns.name] = product.name
        container[Columns.brand] = product.brand
        container[Columns.quantity] = product.quantity
        MacroColumns.encode(product.per100g, to: &container)
        container[Columns.allergens] = product.allergens.joined(separator: ",")
        container[Columns.usdaNdb] = product.usdaNdb
    }
}

/// A product a user added for themselves (`user_product`); it only ever shadows the shared one for them.
struct OwnProductRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "user_product"
    static let owner = Column("owner")

    var owner: String
    var product: Product

    init(owner: String, product: Product) {
        self.owner = owner
        self.product = product
    }

    init(row: Row) {
        owner = row[Self.owner]
        product = ProductRecord.product(row)
    }

    func encode(to container: inout PersistenceContainer) {
        container[Self.owner] = owner
        ProductRecord.encode(product, to: &container)
    }
}
