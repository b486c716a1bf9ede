import Foundation
import GRDB
public import SousRuntime
import SousSchema
import SousWire

/// The tracker's data: every read and write, each write one transaction, always scoped to a user.
public final class TrackerStore: Sendable {
    public let database: SousDatabase
    private var writer: SousDatabase { database }

    public init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Diary entries

    /// What a new entry holds before it gets an id.
    struct NewEntry: Sendable {
        var date: LocalDate
        var meal: Meal
        var food: String
        var grams: Double
        var per100g: Macros
        var source: EntrySource
    }

    func insert(_ new: NewEntry, user: String, at time: Date) throws -> DiaryEntry {
        try writer.write { db in
            try TrackerQuotas.diaryEntriesPerDay.check(
                current: Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM diary_entry WHERE user = ? AND date = ?", arguments: [user, new.date.description]) ?? 0
            )
            try db.execute(
                sql: """
                    INSERT INTO diary_entry (user, date, meal, food, grams, kcal, carbohydrates, protein, fat, source_kind, source_ref, logged_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user, new.date.description, new.meal.rawValue, new.food, new.grams, new.per100g.kcal, new.per100g.carbohydrates,
                    new.per100g.protein, new.per100g.fat, new.source.kind.rawValue, new.source.reference, time.timeIntervalSince1970,
                ]
            )
            return DiaryEntry(
                id: db.lastInsertedRowID, date: new.date, meal: new.meal, food: new.food, grams: new.grams, per100g: new.per100g,
                source: new.source, loggedAt: time
            )
        }
    }

    /// One of the user's entries; notFound (field `id`) for another user's or an unknown id.
    func entry(_ id: Int64, user: String) throws -> DiaryEntry {
        try writer.read { db in try Self.entry(id, user: user, db) }
    }

    private static func entry(_ id: Int64, user: String, _ db: Database) throws -> DiaryEntry {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM diary_entry WHERE id = ? AND user = ?", arguments: [id, user]) else {
            throw ServiceError.notFound("no diary entry \(id)", field: "id")
        }
        return try entry(row)
    }

    /// Replaces an entry's fields (validated by the caller) and returns the old and new entry.
    func update(_ id: Int64, user: String, _ change: (inout DiaryEntry) throws -> Void) throws -> (old: DiaryEntry, new: DiaryEntry) {
        try writer.write { db in
            let old = try Self.entry(id, user: user, db)
            var new = old
            try change(&new)
            try db.execute(
                sql: "UPDATE diary_entry SET date = ?, meal = ?, food = ?, grams = ?, kcal = ?, carbohydrates = ?, protein = ?, fat = ? WHERE id = ?",
                arguments: [
                    new.date.description, new.meal.rawValue, new.food, new.grams, new.per100g.kcal, new.per100g.carbohydrates,
                    new.per100g.protein, new.per100g.fat, id,
                ]
            )
            return (old, new)
        }
    }

    func delete(_ id: Int64, user: String) throws -> DiaryEntry {
        try writer.write { db in
            let old = try Self.entry(id, user: user, db)
            try db.execute(sql: "DELETE FROM diary_entry WHERE id = ?", arguments: [id])
            return old
        }
    }

    /// Entries from `from` to `to` inclusive, by date, meal, then logging order.
    func entries(user: String, from: LocalDate, to: LocalDate) throws -> [DiaryEntry] {
        try writer.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM diary_entry WHERE user = ? AND date BETWEEN ? AND ? ORDER BY date, id",
                arguments: [user, from.description, to.description]
            )
            return try rows.map(Self.entry).sorted { ($0.date, $0.meal.order, $0.id) < ($1.date, $1.meal.order, $1.id) }
        }
    }

    private static func entry(_ row: Row) throws -> DiaryEntry {
        let dateText: String = row["date"]
        let mealText: String = row["meal"]
        let sourceText: String = row["source_kind"]
        guard let date = LocalDate(dateText), let meal = Meal(rawValue: mealText), let kind = EntrySourceKind(rawValue: sourceText) else {
            throw ServiceError.internal("diary entry \(row["id"] as Int64) holds an unreadable date, meal or source")
        }
        return DiaryEntry(
            id: row["id"], date: date, meal: meal, food: row["food"], grams: row["grams"],
            per100g: Macros(kcal: row["kcal"], carbohydrates: row["carbohydrates"], protein: row["protein"], fat: row["fat"]),
            source: EntrySource(kind: kind, reference: row["source_ref"]), loggedAt: Date(timeIntervalSince1970: row["logged_at"])
        )
    }

    // MARK: Goals

    /// Every goal change of the user, oldest first.
    func goalHistory(user: String) throws -> GoalHistory {
        try writer.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM goal WHERE user = ? ORDER BY from_date", arguments: [user])
            return GoalHistory(
                changes: rows.compactMap { row in
                    LocalDate(row["from_date"] as String).map {
                        GoalHistory.Change(
                            from: $0, goals: Goals(kcal: row["kcal"], carbohydrates: row["carbohydrates"], protein: row["protein"], fat: row["fat"]))
                    }
                })
        }
    }

    /// Sets the goals from `from` on; a change on the same date replaces the earlier one.
    func setGoals(_ goals: Goals, from: LocalDate, user: String) throws {
        try writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO goal (user, from_date, kcal, carbohydrates, protein, fat) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [user, from.description, goals.kcal, goals.carbohydrates, goals.protein, goals.fat]
            )
        }
    }

    // MARK: Water and coffee

    func drinks(user: String, date: LocalDate) throws -> DrinkCounts {
        try writer.read { db in try Self.drinks(user: user, date: date, db) }
    }

    func drinks(user: String, from: LocalDate, to: LocalDate) throws -> [LocalDate: DrinkCounts] {
        try writer.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM drinks WHERE user = ? AND date BETWEEN ? AND ?", arguments: [user, from.description, to.description])
            var result: [LocalDate: DrinkCounts] = [:]
            for row in rows {
                if let date = LocalDate(row["date"] as String) { result[date] = DrinkCounts(date: date, water: row["water"], coffee: row["coffee"]) }
            }
            return result
        }
    }

    private static func drinks(user: String, date: LocalDate, _ db: Database) throws -> DrinkCounts {
        let row = try Row.fetchOne(db, sql: "SELECT water, coffee FROM drinks WHERE user = ? AND date = ?", arguments: [user, date.description])
        return DrinkCounts(date: date, water: row?["water"] ?? 0, coffee: row?["coffee"] ?? 0)
    }

    /// Adds `delta` to one drink's count, stopping at 0.
    func changeDrink(_ drink: Drink, by delta: Int, user: String, date: LocalDate) throws -> DrinkCounts {
        try writer.write { db in
            let column = drink == .water ? "water" : "coffee"
            try db.execute(sql: "INSERT OR IGNORE INTO drinks (user, date) VALUES (?, ?)", arguments: [user, date.description])
            try db.execute(
                sql: "UPDATE drinks SET \(column) = MAX(\(column) + ?, 0) WHERE user = ? AND date = ?",
                arguments: [delta, user, date.description]
            )
            return try Self.drinks(user: user, date: date, db)
        }
    }

    // MARK: Saved foods

    func createFood(_ draft: SavedFoodDraft, user: String) throws -> SavedFood {
        try writer.write { db in
            try TrackerQuotas.savedFoods.check(
                current: Int.fetchOne(db, sql: "SELECT COUNT(*) FROM saved_food WHERE user = ?", arguments: [user]) ?? 0)
            try db.execute(
                sql: "INSERT INTO saved_food (user, name, meals, grams, kcal, carbohydrates, protein, fat) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    user, draft.name, Self.mealsText(draft.meals), draft.grams, draft.per100g.kcal, draft.per100g.carbohydrates,
                    draft.per100g.protein, draft.per100g.fat,
                ]
            )
            return SavedFood(
                id: db.lastInsertedRowID, name: draft.name, meals: Self.sortedMeals(draft.meals), grams: draft.grams, per100g: draft.per100g)
        }
    }

    func food(_ id: Int64, user: String) throws -> SavedFood {
        try writer.read { db in try Self.food(id, user: user, db) }
    }

    private static func food(_ id: Int64, user: String, _ db: Database) throws -> SavedFood {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM saved_food WHERE id = ? AND user = ?", arguments: [id, user]) else {
            throw ServiceError.notFound("no saved food \(id)", field: "id")
        }
        return food(row)
    }

    func editFood(_ id: Int64, user: String, _ change: (inout SavedFood) throws -> Void) throws -> SavedFood {
        try writer.write { db in
            var food = try Self.food(id, user: user, db)
            try change(&food)
            food.meals = Self.sortedMeals(food.meals)
            try db.execute(
                sql: "UPDATE saved_food SET name = ?, meals = ?, grams = ?, kcal = ?, carbohydrates = ?, protein = ?, fat = ? WHERE id = ?",
                arguments: [
                    food.name, Self.mealsText(food.meals), food.grams, food.per100g.kcal, food.per100g.carbohydrates, food.per100g.protein,
                    food.per100g.fat, id,
                ]
            )
            return food
        }
    }

    func deleteFood(_ id: Int64, user: String) throws {
        try writer.write { db in
            _ = try Self.food(id, user: user, db)
            try db.execute(sql: "DELETE FROM saved_food WHERE id = ?", arguments: [id])
        }
    }

    /// The user's saved foods by name; with `meal`, those suiting it (no meals = every meal).
    func foods(user: String, meal: Meal?) throws -> [SavedFood] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM saved_food WHERE user = ? ORDER BY name COLLATE NOCASE, id", arguments: [user])
                .map(Self.food)
                .filter { food in meal.map { food.meals.isEmpty || food.meals.contains($0) } ?? true }
        }
    }

    private static func food(_ row: Row) -> SavedFood {
        let meals = (row["meals"] as String).split(separator: ",").compactMap { Meal(rawValue: String($0)) }
        return SavedFood(
            id: row["id"], name: row["name"], meals: meals, grams: row["grams"],
            per100g: Macros(kcal: row["kcal"], carbohydrates: row["carbohydrates"], protein: row["protein"], fat: row["fat"])
        )
    }

    private static func sortedMeals(_ meals: [Meal]) -> [Meal] { Array(Set(meals)).sorted() }
    private static func mealsText(_ meals: [Meal]) -> String { sortedMeals(meals).map(\.rawValue).joined(separator: ",") }

    // MARK: Products

    /// The product `user` sees for `code`: their own if they added one, else the shared one.
    func product(code: String, user: String) throws -> Product? {
        try writer.read { db in
            if let own = try Row.fetchOne(db, sql: "SELECT * FROM user_product WHERE owner = ? AND code = ?", arguments: [user, code]) {
                return Self.product(own)
            }
            return try Row.fetchOne(db, sql: "SELECT * FROM product WHERE code = ?", arguments: [code]).map(Self.product)
        }
    }

    /// Adds (or replaces) a product of `user`'s own; shared products and other users' are untouched.
    func addOwnProduct(_ product: Product, user: String) throws {
        try writer.write { db in
            let exists =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM user_product WHERE owner = ? AND code = ?)", arguments: [user, product.code]) ?? false
            if !exists {
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM user_product WHERE owner = ?", arguments: [user]) ?? 0
                try TrackerQuotas.ownProducts.check(current: count)
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO user_product (owner, code, name, brand, quantity, kcal, carbohydrates, protein, fat, allergens, usda_ndb)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user, product.code, product.name, product.brand, product.quantity, product.per100g.kcal, product.per100g.carbohydrates,
                    product.per100g.protein, product.per100g.fat, product.allergens.joined(separator: ","), product.usdaNdb,
                ]
            )
        }
    }

    /// Adds or replaces products by code in one transaction.
    func upsert(_ products: [Product], source: String) throws -> ProductImportResult {
        try writer.write { db in try Self.upsert(products, source: source, db) }
    }

    private static func upsert(_ products: [Product], source: String, _ db: Database) throws -> ProductImportResult {
        var added = 0
        var replaced = 0
        for product in products {
            let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM product WHERE code = ?)", arguments: [product.code]) ?? false
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO product (code, name, brand, quantity, kcal, carbohydrates, protein, fat, allergens, usda_ndb, source)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    product.code, product.name, product.brand, product.quantity, product.per100g.kcal, product.per100g.carbohydrates,
                    product.per100g.protein, product.per100g.fat, product.allergens.joined(separator: ","), product.usdaNdb, source,
                ]
            )
            if exists { replaced += 1 } else { added += 1 }
        }
        return ProductImportResult(added: added, replaced: replaced)
    }

    /// Loads the shipped products when the database holds an older seed (first start, new release).
    @discardableResult
    public func loadProductSeedIfNeeded(_ seed: ProductSeed) throws -> Int? {
        try writer.write { db in
            let loaded = try Int.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'productSeedVersion'") ?? 0
            guard loaded < seed.version else { return nil }
            _ = try Self.upsert(seed.products, source: "seed", db)
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'productSeedVersion'", arguments: [seed.version])
            return seed.products.count
        }
    }

    private static func product(_ row: Row) -> Product {
        Product(
            code: row["code"], name: row["name"], brand: row["brand"], quantity: row["quantity"],
            per100g: Macros(kcal: row["kcal"], carbohydrates: row["carbohydrates"], protein: row["protein"], fat: row["fat"]),
            allergens: (row["allergens"] as String).split(separator: ",").map(String.init), usdaNdb: row["usda_ndb"]
        )
    }
}
