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
                current: DiaryEntryRecord.filter(DiaryEntryRecord.Columns.user == user && DiaryEntryRecord.Columns.date == new.date.description)
                    .fetchCount(db))
            var record = DiaryEntryRecord(user: user, new, loggedAt: time)
            try record.insert(db)
            return record.entry
        }
    }

    /// One of the user's entries; notFound (field `id`) for another user's or an unknown id.
    func entry(_ id: Int64, user: String) throws -> DiaryEntry {
        try writer.read { db in try Self.entry(id, user: user, db).entry }
    }

    private static func entry(_ id: Int64, user: String, _ db: Database) throws -> DiaryEntryRecord {
        guard let record = try DiaryEntryRecord.owned(id, by: user).fetchOne(db) else {
            throw ServiceError.notFound("no diary entry \(id)", field: "id")
        }
        return record
    }

    /// Replaces an entry's fields (validated by the caller) and returns the old and new entry.
    func update(_ id: Int64, user: String, _ change: (inout DiaryEntry) throws -> Void) throws -> (old: DiaryEntry, new: DiaryEntry) {
        try writer.write { db in
            var record = try Self.entry(id, user: user, db)
            let old = record.entry
            var new = old
            try change(&new)
            record.take(new)
            try record.update(db)
            return (old, new)
        }
    }

    func delete(_ id: Int64, user: String) throws -> DiaryEntry {
        try writer.write { db in
            let record = try Self.entry(id, user: user, db)
            try record.delete(db)
            return record.entry
        }
    }

    /// Entries from `from` to `to` inclusive, by date, meal, then logging order.
    func entries(user: String, from: LocalDate, to: LocalDate) throws -> [DiaryEntry] {
        try writer.read { db in
            try DiaryEntryRecord.filter(
                DiaryEntryRecord.Columns.user == user && (from.description...to.description).contains(DiaryEntryRecord.Columns.date)
            ).fetchAll(db).map(\.entry).sorted { ($0.date, $0.meal.order, $0.id) < ($1.date, $1.meal.order, $1.id) }
        }
    }

    // MARK: Goals

    /// Every goal change of the user, oldest first.
    func goalHistory(user: String) throws -> GoalHistory {
        try writer.read { db in try Self.goalHistory(user: user, db) }
    }

    private static func goalHistory(user: String, _ db: Database) throws -> GoalHistory {
        let records = try GoalRecord.filter(GoalRecord.Columns.user == user).order(GoalRecord.Columns.from).fetchAll(db)
        return GoalHistory(changes: records.map { GoalHistory.Change(from: $0.from, goals: $0.goals) })
    }

    /// Which meals of each day are logged and its energy against the goal then in force, read in
    /// one transaction (a reminder pass asks for a thousand days at once).
    func statuses(of days: [DiaryStatusBatch.Day]) throws -> [DiaryStatus] {
        try writer.read { db in
            var goals: [String: GoalHistory] = [:]
            // Prepared once for the batch: a thousand users' days are two thousand lookups.
            let entriesOfDay = try db.cachedStatement(sql: "SELECT * FROM diary_entry WHERE user = ? AND date = ?")
            let goalChanges = try db.cachedStatement(sql: "SELECT * FROM goal WHERE user = ? ORDER BY from_date")
            return try days.map { day in
                let entries = try DiaryEntryRecord.fetchAll(entriesOfDay, arguments: [day.user, day.date.description]).map(\.entry)
                let history =
                    try goals[day.user]
                    ?? GoalHistory(
                        changes: GoalRecord.fetchAll(goalChanges, arguments: [day.user]).map { GoalHistory.Change(from: $0.from, goals: $0.goals) })
                goals[day.user] = history
                return DiaryStatus(
                    date: day.date, mealsLogged: Array(Set(entries.map(\.meal))).sorted(), kcal: DiaryMath.totals(entries).kcal,
                    kcalGoal: history.inForce(on: day.date).goals.kcal)
            }
        }
    }

    /// Sets the goals from `from` on; a change on the same date replaces the earlier one.
    func setGoals(_ goals: Goals, from: LocalDate, user: String) throws {
        try writer.write { try GoalRecord(user: user, from: from, goals: goals).save($0) }
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
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT water, coffee FROM drinks WHERE user = ? AND date = ?"), arguments: [user, date.description])
        return DrinkCounts(date: date, water: row?["water"] ?? 0, coffee: row?["coffee"] ?? 0)
    }

    /// Adds `delta` to one drink's count, stopping at 0.
    func changeDrink(_ drink: Drink, by delta: Int, user: String, date: LocalDate) throws -> DrinkCounts {
        try writer.write { db in
            let column = drink == .water ? "water" : "coffee"
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO drinks (user, date) VALUES (?, ?)").execute(arguments: [user, date.description])
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
            try TrackerQuotas.savedFoods.check(current: SavedFoodRecord.filter(SavedFoodRecord.Columns.user == user).fetchCount(db))
            var record = SavedFoodRecord(
                user: user, food: SavedFood(id: 0, name: draft.name, meals: draft.meals, grams: draft.grams, per100g: draft.per100g))
            try record.insert(db)
            return record.food
        }
    }

    func food(_ id: Int64, user: String) throws -> SavedFood {
        try writer.read { db in try Self.food(id, user: user, db).food }
    }

    private static func food(_ id: Int64, user: String, _ db: Database) throws -> SavedFoodRecord {
        guard let record = try SavedFoodRecord.owned(id, by: user).fetchOne(db) else {
            throw ServiceError.notFound("no saved food \(id)", field: "id")
        }
        return record
    }

    func editFood(_ id: Int64, user: String, _ change: (inout SavedFood) throws -> Void) throws -> SavedFood {
        try writer.write { db in
            var food = try Self.food(id, user: user, db).food
            try change(&food)
            food.id = id
            let record = SavedFoodRecord(user: user, food: food)
            try record.update(db)
            return record.food
        }
    }

    func deleteFood(_ id: Int64, user: String) throws {
        try writer.write { db in _ = try Self.food(id, user: user, db).delete(db) }
    }

    /// The user's saved foods by name; with `meal`, those suiting it (no meals = every meal).
    func foods(user: String, meal: Meal?) throws -> [SavedFood] {
        try writer.read { db in
            try SavedFoodRecord.filter(SavedFoodRecord.Columns.user == user)
                .order(SavedFoodRecord.Columns.name.collating(.nocase), SavedFoodRecord.Columns.id).fetchAll(db)
                .map(\.food)
                .filter { food in meal.map { food.meals.isEmpty || food.meals.contains($0) } ?? true }
        }
    }

    // MARK: Products

    /// The product `user` sees for `code`: their own if they added one, else the shared one.
    func product(code: String, user: String) throws -> Product? {
        try writer.read { db in
            if let own = try OwnProductRecord.fetchOne(db, key: [OwnProductRecord.owner.name: user, ProductRecord.Columns.code.name: code]) {
                return own.product
            }
            return try ProductRecord.fetchOne(db, key: code)?.product
        }
    }

    /// Adds (or replaces) a product of `user`'s own; shared products and other users' are untouched.
    func addOwnProduct(_ product: Product, user: String) throws {
        try writer.write { db in
            let record = OwnProductRecord(owner: user, product: product)
            if try !record.exists(db) {
                try TrackerQuotas.ownProducts.check(current: OwnProductRecord.filter(OwnProductRecord.owner == user).fetchCount(db))
            }
            try record.save(db)
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
            let record = ProductRecord(product, source: source)
            if try record.exists(db) { replaced += 1 } else { added += 1 }
            try record.save(db)
        }
        return ProductImportResult(added: added, replaced: replaced)
    }

    /// Loads the shipped products when the database holds an older seed (first start, new release).
    @discardableResult
    public func loadProductSeedIfNeeded(_ seed: ProductSeed) throws -> Int? {
        try writer.write { db in
            let loaded = try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'productSeedVersion'")) ?? 0
            guard loaded < seed.version else { return nil }
            _ = try Self.upsert(seed.products, source: "seed", db)
            try db.cachedStatement(sql: "UPDATE meta SET value = ? WHERE key = 'productSeedVersion'").execute(arguments: [seed.version])
            return seed.products.count
        }
    }
}
