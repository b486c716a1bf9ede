import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

// The tracker's tables as records: each names its columns once and reads and writes itself,
// with the same statements on SQLite and PostgreSQL (``SQLRecord``). Tables whose rows get their
// id from the database insert without it and read it back (`RETURNING id`).

/// The four macro columns per 100 g that diary entries, goals, saved foods and products share.
enum MacroColumns {
    static let kcal = Column("kcal")
    static let carbohydrates = Column("carbohydrates")
    static let protein = Column("protein")
    static let fat = Column("fat")
    static let names = [kcal, carbohydrates, protein, fat].map(\.name)

    static func macros(_ row: Row) -> Macros {
        Macros(kcal: row[kcal], carbohydrates: row[carbohydrates], protein: row[protein], fat: row[fat])
    }

    static func values(_ macros: Macros) -> SQLArguments {
        [macros.kcal, macros.carbohydrates, macros.protein, macros.fat]
    }
}

/// One line of a user's food diary (`diary_entry`).
struct DiaryEntryRecord: Sendable, FetchableRecord {
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

    var id: Int64
    var user: String
    var entry: DiaryEntry

    init(row: Row) throws {
        let id: Int64 = row[Columns.id]
        guard let date = LocalDate(row[Columns.date] as String), let meal = Meal(rawValue: row[Columns.meal]),
            let kind = EntrySourceKind(rawValue: row[Columns.sourceKind])
        else {
            throw ServiceError.internal("diary entry \(id) holds an unreadable date, meal or source")
        }
        self.id = id
        user = row[Columns.user]
        entry = DiaryEntry(
            id: id, date: date, meal: meal, food: row[Columns.food], grams: row[Columns.grams], per100g: MacroColumns.macros(row),
            source: EntrySource(kind: kind, reference: row[Columns.sourceReference]),
            loggedAt: Date(timeIntervalSince1970: row[Columns.loggedAt]))
    }

    /// Inserts a new entry and returns its id.
    static func insert(_ new: TrackerStore.NewEntry, user: String, loggedAt: Date, _ session: any SQLSession) throws -> Int64 {
        let values: SQLArguments =
            [user, new.date.description, new.meal.rawValue, new.food, new.grams] + MacroColumns.values(new.per100g)
            + [new.source.kind.rawValue, new.source.reference, loggedAt.timeIntervalSince1970]
        guard let id = try session.value(Int64.self, insertSQL, values) else { throw ServiceError.internal("a new diary entry got no id") }
        return id
    }

    /// Writes the fields a user may edit.
    static func update(_ entry: DiaryEntry, user: String, _ session: any SQLSession) throws {
        try session.execute(
            updateSQL,
            [entry.date.description, entry.meal.rawValue, entry.food, entry.grams] + MacroColumns.values(entry.per100g) + [entry.id, user])
    }

    /// The user's entry `id`; another user's entry is not theirs to see.
    static func owned(_ id: Int64, by user: String, _ session: any SQLSession) throws -> DiaryEntryRecord? {
        try session.fetchOne(Self.self, #"SELECT * FROM diary_entry WHERE id = ? AND "user" = ?"#, [id, user])
    }

    private static let insertSQL = """
        INSERT INTO diary_entry ("user", date, meal, food, grams, kcal, carbohydrates, protein, fat, source_kind, source_ref, logged_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """
    private static let updateSQL = """
        UPDATE diary_entry SET date = ?, meal = ?, food = ?, grams = ?, kcal = ?, carbohydrates = ?, protein = ?, fat = ?
        WHERE id = ? AND "user" = ?
        """
}

/// A goal change (`goal`): the goals that hold from `from` until the next change.
struct GoalRecord: Sendable, SQLRecord {
    static let tableName = "goal"
    static let primaryKey = ["user", "from_date"]
    static let columnNames = ["user", "from_date"] + MacroColumns.names

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

    var values: SQLArguments {
        [user, from.description]
            + MacroColumns.values(goals.macros)
    }
}

/// A food the user saved to log again (`saved_food`).
struct SavedFoodRecord: Sendable, FetchableRecord {
    enum Columns {
        static let id = Column("id")
        static let user = Column("user")
        static let name = Column("name")
        static let meals = Column("meals")
        static let grams = Column("grams")
    }

    var user: String
    var food: SavedFood

    init(row: Row) {
        user = row[Columns.user]
        food = SavedFood(
            id: row[Columns.id], name: row[Columns.name],
            meals: (row[Columns.meals] as String).split(separator: ",").compactMap { Meal(rawValue: String($0)) }, grams: row[Columns.grams],
            per100g: MacroColumns.macros(row))
    }

    static func sorted(_ meals: [Meal]) -> [Meal] { Array(Set(meals)).sorted() }

    private static func meals(_ food: SavedFood) -> String { sorted(food.meals).map(\.rawValue).joined(separator: ",") }

    /// Inserts a new food and returns it with its id.
    static func insert(_ food: SavedFood, user: String, _ session: any SQLSession) throws -> SavedFood {
        let values: SQLArguments = [user, food.name, meals(food), food.grams] + MacroColumns.values(food.per100g)
        guard let id = try session.value(Int64.self, insertSQL, values) else { throw ServiceError.internal("a new saved food got no id") }
        var inserted = food
        inserted.id = id
        inserted.meals = sorted(food.meals)
        return inserted
    }

    static func update(_ food: SavedFood, user: String, _ session: any SQLSession) throws {
        try session.execute(updateSQL, [food.name, meals(food), food.grams] + MacroColumns.values(food.per100g) + [food.id, user])
    }

    /// The user's food `id`; another user's food is not theirs to see.
    static func owned(_ id: Int64, by user: String, _ session: any SQLSession) throws -> SavedFoodRecord? {
        try session.fetchOne(Self.self, #"SELECT * FROM saved_food WHERE id = ? AND "user" = ?"#, [id, user])
    }

    private static let insertSQL = """
        INSERT INTO saved_food ("user", name, meals, grams, kcal, carbohydrates, protein, fat) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """
    private static let updateSQL = """
        UPDATE saved_food SET name = ?, meals = ?, grams = ?, kcal = ?, carbohydrates = ?, protein = ?, fat = ? WHERE id = ? AND "user" = ?
        """
}

/// A product by barcode: shared ones (`product`, with where they came from) and users' own
/// (`user_product`, with their owner) share every other column.
struct ProductRecord: Sendable, SQLRecord {
    static let tableName = "product"
    static let primaryKey = ["code"]
    static let columnNames = productColumnNames + ["source", "fetched_at"]
    static let productColumnNames = ["code", "name", "brand", "quantity"] + MacroColumns.names + ["allergens", "usda_ndb"]

    enum Columns {
        static let code = Column("code")
        static let name = Column("name")
        static let brand = Column("brand")
        static let quantity = Column("quantity")
        static let allergens = Column("allergens")
        static let usdaNdb = Column("usda_ndb")
        static let source = Column("source")
        static let fetchedAt = Column("fetched_at")
    }

    /// The source of the products Open Food Facts gave.
    static let openFoodFacts = "openfoodfacts"

    var product: Product
    var source: String
    var fetchedAt: Date?

    init(_ product: Product, source: String, fetchedAt: Date? = nil) {
        self.product = product
        self.source = source
        self.fetchedAt = fetchedAt
    }

    init(row: Row) {
        source = row[Columns.source]
        fetchedAt = (row[Columns.fetchedAt] as Double?).map { Date(timeIntervalSince1970: $0) }
        product = Self.product(row)
        product.source = source
        product.fetchedAt = fetchedAt
    }

    var values: SQLArguments { Self.values(product) + [source, fetchedAt?.timeIntervalSince1970] }

    static func product(_ row: Row) -> Product {
        Product(
            code: row[Columns.code], name: row[Columns.name], brand: row[Columns.brand], quantity: row[Columns.quantity],
            per100g: MacroColumns.macros(row), allergens: (row[Columns.allergens] as String).split(separator: ",").map(String.init),
            usdaNdb: row[Columns.usdaNdb]
        )
    }

    static func values(_ product: Product) -> SQLArguments {
        [product.code, product.name, product.brand, product.quantity] + MacroColumns.values(product.per100g) + [
            product.allergens.joined(separator: ","), product.usdaNdb,
        ]
    }
}

/// A product a user added for themselves (`user_product`); it only ever shadows the shared one for them.
struct OwnProductRecord: Sendable, SQLRecord {
    static let tableName = "user_product"
    static let primaryKey = ["owner", "code"]
    static let columnNames = ["owner"] + ProductRecord.productColumnNames

    var owner: String
    var product: Product

    init(owner: String, product: Product) {
        self.owner = owner
        self.product = product
    }

    init(row: Row) {
        owner = row["owner"]
        product = ProductRecord.product(row)
    }

    var values: SQLArguments { [owner] + ProductRecord.values(product) }
}
