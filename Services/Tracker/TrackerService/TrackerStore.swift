import Foundation
import GRDB
public import SousRuntime
import SousSchema
import SousWire

/// The tracker's data: every read and write, each write one transaction, always scoped to a user.
public final class TrackerStore: Sendable {
    public let database: SousDatabase

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

    func insert(_ new: NewEntry, user: String, at time: Date, idempotent scope: IdempotencyScope? = nil) throws -> DiaryEntry {
        try database.write(idempotent: scope) { session in
            try TrackerQuotas.diaryEntriesPerDay.check(
                current: session.value(Int.self, #"SELECT COUNT(*) FROM diary_entry WHERE "user" = ? AND date = ?"#, [user, new.date.description])
                    ?? 0)
            let id = try DiaryEntryRecord.insert(new, user: user, loggedAt: time, session)
            return DiaryEntry(
                id: id, date: new.date, meal: new.meal, food: new.food, grams: new.grams, per100g: new.per100g, source: new.source, loggedAt: time)
        }
    }

    /// One of the user's entries; notFound (field `id`) for another user's or an unknown id.
    func entry(_ id: Int64, user: String) throws -> DiaryEntry {
        try database.read { session in try Self.entry(id, user: user, session) }
    }

    private static func entry(_ id: Int64, user: String, _ session: any SQLSession) throws -> DiaryEntry {
        guard let record = try DiaryEntryRecord.owned(id, by: user, session) else {
            throw ServiceError.notFound("no diary entry \(id)", field: "id")
        }
        return record.entry
    }

    /// Replaces an entry's fields (validated by the caller) and returns the old and new entry.
    func update(_ id: Int64, user: String, _ change: (inout DiaryEntry) throws -> Void) throws -> (old: DiaryEntry, new: DiaryEntry) {
        try database.write { session in
            let old = try Self.entry(id, user: user, session)
            var new = old
            try change(&new)
            // Only what a user may edit; the id, source and logging time stay.
            new.id = old.id
            new.source = old.source
            new.loggedAt = old.loggedAt
            try DiaryEntryRecord.update(new, user: user, session)
            return (old, new)
        }
    }

    func delete(_ id: Int64, user: String) throws -> DiaryEntry {
        try database.write { session in
            let entry = try Self.entry(id, user: user, session)
            try session.execute(#"DELETE FROM diary_entry WHERE id = ? AND "user" = ?"#, [id, user])
            return entry
        }
    }

    /// Entries from `from` to `to` inclusive, by date, meal, then logging order.
    func entries(user: String, from: LocalDate, to: LocalDate) throws -> [DiaryEntry] {
        try database.read { session in
            try session.fetchAll(
                DiaryEntryRecord.self, #"SELECT * FROM diary_entry WHERE "user" = ? AND date BETWEEN ? AND ?"#,
                [user, from.description, to.description]
            )
            .map(\.entry).sorted { ($0.date, $0.meal.order, $0.id) < ($1.date, $1.meal.order, $1.id) }
        }
    }

    /// The dates with at least one entry, up to and including `through`, oldest first.
    func loggedDates(user: String, through: LocalDate) throws -> [LocalDate] {
        try database.read { session in
            try session.values(
                String.self, #"SELECT DISTINCT date FROM diary_entry WHERE "user" = ? AND date <= ? ORDER BY date"#, [user, through.description]
            ).compactMap(LocalDate.init)
        }
    }

    // MARK: Goals

    /// Every goal change of the user, oldest first.
    func goalHistory(user: String) throws -> GoalHistory {
        try database.read { session in try Self.goalHistory(user: user, session) }
    }

    private static func goalHistory(user: String, _ session: any SQLSession) throws -> GoalHistory {
        let records = try session.fetchAll(GoalRecord.self, #"SELECT * FROM goal WHERE "user" = ? ORDER BY from_date"#, [user])
        return GoalHistory(changes: records.map { GoalHistory.Change(from: $0.from, goals: $0.goals) })
    }

    /// Which meals of each day are logged and its energy against the goal then in force, read in
    /// one transaction with two statements whatever the count (a reminder pass asks for a
    /// thousand days at once): the entries of the batch's users on the batch's dates (a reminder
    /// batch has a date or two), and those users' goals.
    func statuses(of days: [DiaryStatusBatch.Day]) throws -> [DiaryStatus] {
        guard !days.isEmpty else { return [] }
        let users = Set(days.map(\.user)).sqlJSONArray
        let dates = Set(days.map(\.date.description)).sqlJSONArray
        return try database.read { session in
            let values = session.engine.jsonArrayValues
            // In index order, as a day's own read gives them: its kcal is summed in the same order.
            let records = try session.fetchAll(
                DiaryEntryRecord.self,
                #"SELECT * FROM diary_entry WHERE "user" IN (\#(values)) AND date IN (\#(values)) ORDER BY "user", date, id"#, [users, dates])
            var entries: [DayKey: [DiaryEntry]] = [:]
            for record in records { entries[DayKey(user: record.user, date: record.entry.date), default: []].append(record.entry) }
            let goalRecords = try session.fetchAll(
                GoalRecord.self, #"SELECT * FROM goal WHERE "user" IN (\#(values)) ORDER BY "user", from_date"#, [users])
            let goals = Dictionary(grouping: goalRecords, by: \.user).mapValues { records in
                GoalHistory(changes: records.map { GoalHistory.Change(from: $0.from, goals: $0.goals) })
            }
            return days.map { day in
                let entries = entries[DayKey(user: day.user, date: day.date)] ?? []
                return DiaryStatus(
                    date: day.date, mealsLogged: Array(Set(entries.map(\.meal))).sorted(), kcal: DiaryMath.totals(entries).kcal,
                    kcalGoal: (goals[day.user] ?? GoalHistory(changes: [])).inForce(on: day.date).goals.kcal)
            }
        }
    }

    private struct DayKey: Hashable {
        let user: String
        let date: LocalDate
    }

    /// Sets the goals from `from` on; a change on the same date replaces the earlier one.
    func setGoals(_ goals: Goals, from: LocalDate, user: String) throws {
        try database.write { session in try session.insert(GoalRecord(user: user, from: from, goals: goals), onConflict: .replace) }
    }

    // MARK: Water and coffee

    func drinks(user: String, date: LocalDate) throws -> DrinkCounts {
        try database.read { session in try Self.drinks(user: user, date: date, session) }
    }

    func drinks(user: String, from: LocalDate, to: LocalDate) throws -> [LocalDate: DrinkCounts] {
        try database.read { session in
            let rows = try session.rows(
                #"SELECT date, water, coffee FROM drinks WHERE "user" = ? AND date BETWEEN ? AND ?"#, [user, from.description, to.description])
            var result: [LocalDate: DrinkCounts] = [:]
            for row in rows {
                if let date = LocalDate(row["date"] as String) { result[date] = DrinkCounts(date: date, water: row["water"], coffee: row["coffee"]) }
            }
            return result
        }
    }

    private static func drinks(user: String, date: LocalDate, _ session: any SQLSession) throws -> DrinkCounts {
        let row = try session.rows(#"SELECT water, coffee FROM drinks WHERE "user" = ? AND date = ?"#, [user, date.description]).first
        return DrinkCounts(date: date, water: row?["water"] ?? 0, coffee: row?["coffee"] ?? 0)
    }

    /// Adds `delta` to one drink's count, stopping at 0.
    func changeDrink(_ drink: Drink, by delta: Int, user: String, date: LocalDate, idempotent scope: IdempotencyScope? = nil) throws -> DrinkCounts {
        try database.write(idempotent: scope) { session in
            try session.execute(#"INSERT INTO drinks ("user", date) VALUES (?, ?) ON CONFLICT DO NOTHING"#, [user, date.description])
            try session.execute(drink == .water ? Self.changeWater : Self.changeCoffee, [delta, delta, user, date.description])
            return try Self.drinks(user: user, date: date, session)
        }
    }

    private static let changeWater = #"UPDATE drinks SET water = CASE WHEN water + ? < 0 THEN 0 ELSE water + ? END WHERE "user" = ? AND date = ?"#
    private static let changeCoffee =
        #"UPDATE drinks SET coffee = CASE WHEN coffee + ? < 0 THEN 0 ELSE coffee + ? END WHERE "user" = ? AND date = ?"#

    // MARK: Saved foods

    func createFood(_ draft: SavedFoodDraft, user: String) throws -> SavedFood {
        try database.write { session in
            try TrackerQuotas.savedFoods.check(current: session.value(Int.self, #"SELECT COUNT(*) FROM saved_food WHERE "user" = ?"#, [user]) ?? 0)
            return try SavedFoodRecord.insert(
                SavedFood(id: 0, name: draft.name, meals: draft.meals, grams: draft.grams, per100g: draft.per100g), user: user, session)
        }
    }

    func food(_ id: Int64, user: String) throws -> SavedFood {
        try database.read { session in try Self.food(id, user: user, session) }
    }

    private static func food(_ id: Int64, user: String, _ session: any SQLSession) throws -> SavedFood {
        guard let record = try SavedFoodRecord.owned(id, by: user, session) else {
            throw ServiceError.notFound("no saved food \(id)", field: "id")
        }
        return record.food
    }

    func editFood(_ id: Int64, user: String, _ change: (inout SavedFood) throws -> Void) throws -> SavedFood {
        try database.write { session in
            var food = try Self.food(id, user: user, session)
            try change(&food)
            food.id = id
            food.meals = SavedFoodRecord.sorted(food.meals)
            try SavedFoodRecord.update(food, user: user, session)
            return food
        }
    }

    func deleteFood(_ id: Int64, user: String) throws {
        try database.write { session in
            _ = try Self.food(id, user: user, session)
            try session.execute(#"DELETE FROM saved_food WHERE id = ? AND "user" = ?"#, [id, user])
        }
    }

    /// The user's saved foods by name (ASCII letters without case), then by id; with `meal`,
    /// those suiting it (no meals = every meal).
    func foods(user: String, meal: Meal?) throws -> [SavedFood] {
        try database.read { session in
            try session.fetchAll(SavedFoodRecord.self, #"SELECT * FROM saved_food WHERE "user" = ? ORDER BY lower(name), id"#, [user])
                .map(\.food)
                .filter { food in meal.map { food.meals.isEmpty || food.meals.contains($0) } ?? true }
        }
    }

    // MARK: Products

    /// The product `user` sees for `code`: their own if they added one, else the shared one.
    func product(code: String, user: String) throws -> Product? {
        try database.read { session in
            if let own = try session.fetchOne(OwnProductRecord.self, "SELECT * FROM user_product WHERE owner = ? AND code = ?", [user, code]) {
                var product = own.product
                product.source = "yours"
                return product
            }
            return try session.fetchOne(ProductRecord.self, "SELECT * FROM product WHERE code = ?", [code])?.product
        }
    }

    /// Keeps what Open Food Facts gave for a code, dated; an operator's or the shipped product
    /// of that code is never replaced by it.
    func keepLookedUp(_ product: Product, at date: Date) throws {
        try database.write { session in
            let source = try session.value(String.self, "SELECT source FROM product WHERE code = ?", [product.code])
            guard source == nil || source == ProductRecord.openFoodFacts else { return }
            try session.insert(ProductRecord(product, source: ProductRecord.openFoodFacts, fetchedAt: date), onConflict: .replace)
        }
    }

    /// Adds (or replaces) a product of `user`'s own; shared products and other users' are untouched.
    func addOwnProduct(_ product: Product, user: String) throws {
        try database.write { session in
            let exists = try session.value(Int.self, "SELECT 1 FROM user_product WHERE owner = ? AND code = ?", [user, product.code]) != nil
            if !exists {
                try TrackerQuotas.ownProducts.check(
                    current: session.value(Int.self, "SELECT COUNT(*) FROM user_product WHERE owner = ?", [user]) ?? 0)
            }
            try session.insert(OwnProductRecord(owner: user, product: product), onConflict: .replace)
        }
    }

    /// Adds or replaces products by code in one transaction.
    func upsert(_ products: [Product], source: String) throws -> ProductImportResult {
        try database.write { session in try Self.upsert(products, source: source, session) }
    }

    private static func upsert(_ products: [Product], source: String, _ session: any SQLSession) throws -> ProductImportResult {
        var added = 0
        var replaced = 0
        for product in products {
            if try session.value(Int.self, "SELECT 1 FROM product WHERE code = ?", [product.code]) != nil { replaced += 1 } else { added += 1 }
            try session.insert(ProductRecord(product, source: source), onConflict: .replace)
        }
        return ProductImportResult(added: added, replaced: replaced)
    }

    /// Loads the shipped products when the database holds an older seed (first start, new release).
    @discardableResult
    public func loadProductSeedIfNeeded(_ seed: ProductSeed) throws -> Int? {
        try database.write { session in
            let loaded = try session.value(Int.self, "SELECT value FROM meta WHERE key = 'productSeedVersion'") ?? 0
            guard loaded < seed.version else { return nil }
            _ = try Self.upsert(seed.products, source: "seed", session)
            try session.execute("UPDATE meta SET value = ? WHERE key = 'productSeedVersion'", [seed.version])
            return seed.products.count
        }
    }
}
