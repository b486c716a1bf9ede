public import Foundation
public import MessagePack
public import SousWire

// The tracker's own requests and replies (the part other services call is in
// TrackerContract.swift). Every day-based request takes an optional date: left out, it means
// "today" in the user's time zone from the planner profile (UTC when the planner cannot be
// reached; replies that carry `timeZone` say which zone was used).

// MARK: - Diary

/// Adds one food to the diary. Give exactly one source: `food` with `per100g` (typed in),
/// `ingredient` (a catalog ingredient id) or `barcode` (a product in the tracker's table).
@MessagePackCodable
public struct DiaryAdd: Codable, Equatable, Sendable {
    public var date: LocalDate?
    public var meal: Meal
    /// 0 < grams ≤ 5000.
    public var grams: Double
    /// The name of a typed-in food (with `per100g`), or a name overriding the source's.
    public var food: String?
    public var per100g: Macros?
    public var ingredient: String?
    public var barcode: String?

    public init(
        date: LocalDate? = nil, meal: Meal, grams: Double, food: String? = nil, per100g: Macros? = nil, ingredient: String? = nil,
        barcode: String? = nil
    ) {
        self.date = date
        self.meal = meal
        self.grams = grams
        self.food = food
        self.per100g = per100g
        self.ingredient = ingredient
        self.barcode = barcode
    }
}

/// Changes any fields of an entry; fields left out keep their value.
@MessagePackCodable
public struct DiaryEdit: Codable, Equatable, Sendable {
    public var id: Int64
    public var date: LocalDate?
    public var meal: Meal?
    public var food: String?
    public var grams: Double?
    public var per100g: Macros?

    public init(id: Int64, date: LocalDate? = nil, meal: Meal? = nil, food: String? = nil, grams: Double? = nil, per100g: Macros? = nil) {
        self.id = id
        self.date = date
        self.meal = meal
        self.food = food
        self.grams = grams
        self.per100g = per100g
    }
}

@MessagePackCodable
public struct EntryID: Codable, Equatable, Sendable {
    public var id: Int64

    public init(id: Int64) { self.id = id }
}

/// A day to look at; nil means today in the user's time zone.
@MessagePackCodable
public struct DayRequest: Codable, Equatable, Sendable {
    public var date: LocalDate?

    public init(date: LocalDate? = nil) { self.date = date }
}

/// The day a reply is about and how "today" was worked out.
@MessagePackCodable
public struct ResolvedDay: Codable, Equatable, Sendable {
    public var date: LocalDate
    /// The IANA zone "today" was taken in; nil when the request named its date.
    public var timeZone: String?
    /// Set when the planner could not be asked for the user's time zone and UTC was used.
    public var note: String?

    public init(date: LocalDate, timeZone: String?, note: String? = nil) {
        self.date = date
        self.timeZone = timeZone
        self.note = note
    }
}

@MessagePackCodable
public struct DiaryDay: Codable, Equatable, Sendable {
    public var day: ResolvedDay
    /// In meal order, then in the order they were logged.
    public var entries: [DiaryEntry]

    public init(day: ResolvedDay, entries: [DiaryEntry]) {
        self.day = day
        self.entries = entries
    }
}

/// Daily targets: kcal and grams of each macro.
@MessagePackCodable
public struct Goals: Codable, Equatable, Sendable {
    public var kcal: Double
    public var carbohydrates: Double
    public var protein: Double
    public var fat: Double

    public init(kcal: Double, carbohydrates: Double, protein: Double, fat: Double) {
        self.kcal = kcal
        self.carbohydrates = carbohydrates
        self.protein = protein
        self.fat = fat
    }

    /// In force before a user sets any: 2000 kcal, 250 g carbohydrates, 75 g protein, 65 g fat.
    public static let `default` = Goals(kcal: 2000, carbohydrates: 250, protein: 75, fat: 65)
}

@MessagePackCodable
public struct MealGroup: Codable, Equatable, Sendable {
    public var meal: Meal
    public var entries: [DiaryEntry]
    public var totals: Macros

    public init(meal: Meal, entries: [DiaryEntry], totals: Macros) {
        self.meal = meal
        self.entries = entries
        self.totals = totals
    }
}

/// A day against the goals in force that day.
@MessagePackCodable
public struct DailySummary: Codable, Equatable, Sendable {
    public var day: ResolvedDay
    public var goals: Goals
    /// The date the goals took effect; nil for the default goals.
    public var goalsFrom: LocalDate?
    public var totals: Macros
    /// Goal minus totals (negative when over).
    public var remaining: Macros
    /// Totals as a percentage of each goal.
    public var percent: Macros
    /// Only meals with entries, breakfast first.
    public var meals: [MealGroup]
    public var water: Int
    public var coffee: Int

    public init(
        day: ResolvedDay, goals: Goals, goalsFrom: LocalDate?, totals: Macros, remaining: Macros, percent: Macros, meals: [MealGroup], water: Int,
        coffee: Int
    ) {
        self.day = day
        self.goals = goals
        self.goalsFrom = goalsFrom
        self.totals = totals
        self.remaining = remaining
        self.percent = percent
        self.meals = meals
        self.water = water
        self.coffee = coffee
    }
}

/// An inclusive date range of at most 366 days.
@MessagePackCodable
public struct DateRange: Codable, Equatable, Sendable {
    public var from: LocalDate
    public var to: LocalDate

    public init(from: LocalDate, to: LocalDate) {
        self.from = from
        self.to = to
    }
}

@MessagePackCodable
public struct DayTotals: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var totals: Macros
    public var kcalGoal: Double
    public var entries: Int
    /// Every goal in force that day (kcal, carbohydrates, protein, fat): what a chart of each
    /// macro is drawn against. Absent in replies of trackers before it was added.
    public var goals: Goals?

    public init(date: LocalDate, totals: Macros, kcalGoal: Double, entries: Int, goals: Goals? = nil) {
        self.date = date
        self.totals = totals
        self.kcalGoal = kcalGoal
        self.entries = entries
        self.goals = goals
    }
}

/// Every day of the range, empty days included (for charts).
@MessagePackCodable
public struct DiaryHistory: Codable, Equatable, Sendable {
    public var days: [DayTotals]

    public init(days: [DayTotals]) { self.days = days }
}

/// Averages over the logged days of one ISO week (Monday first) inside the range.
@MessagePackCodable
public struct WeekAverage: Codable, Equatable, Sendable {
    public var weekStart: LocalDate
    public var daysLogged: Int
    public var average: Macros

    public init(weekStart: LocalDate, daysLogged: Int, average: Macros) {
        self.weekStart = weekStart
        self.daysLogged = daysLogged
        self.average = average
    }
}

/// Share of energy from each macro, in percent (4 kcal/g carbohydrates and protein, 9 kcal/g fat).
@MessagePackCodable
public struct MacroSplit: Codable, Equatable, Sendable {
    public var carbohydrates: Double
    public var protein: Double
    public var fat: Double

    public init(carbohydrates: Double, protein: Double, fat: Double) {
        self.carbohydrates = carbohydrates
        self.protein = protein
        self.fat = fat
    }
}

/// Analysis of a range; only days with at least one entry count.
@MessagePackCodable
public struct DiaryAnalysis: Codable, Equatable, Sendable {
    public var range: DateRange
    public var daysLogged: Int
    public var weeks: [WeekAverage]
    public var macroSplit: MacroSplit
    /// Logged days whose kcal were within ±10 % of that day's kcal goal.
    public var daysWithinKcalGoal: Int

    public init(range: DateRange, daysLogged: Int, weeks: [WeekAverage], macroSplit: MacroSplit, daysWithinKcalGoal: Int) {
        self.range = range
        self.daysLogged = daysLogged
        self.weeks = weeks
        self.macroSplit = macroSplit
        self.daysWithinKcalGoal = daysWithinKcalGoal
    }
}

/// A food logged the day before, ready to add again with ``DiaryAdd``.
@MessagePackCodable
public struct RecentFood: Codable, Equatable, Sendable {
    public var food: String
    public var meal: Meal
    public var grams: Double
    public var per100g: Macros
    public var source: EntrySource

    public init(food: String, meal: Meal, grams: Double, per100g: Macros, source: EntrySource) {
        self.food = food
        self.meal = meal
        self.grams = grams
        self.per100g = per100g
        self.source = source
    }
}

@MessagePackCodable
public struct RecentFoods: Codable, Equatable, Sendable {
    /// The day the foods were logged on (the day before the requested one).
    public var date: LocalDate
    public var foods: [RecentFood]

    public init(date: LocalDate, foods: [RecentFood]) {
        self.date = date
        self.foods = foods
    }
}

/// The diary of a range as RFC 4180 CSV (header row, CRLF line ends).
@MessagePackCodable
public struct DiaryExport: Codable, Equatable, Sendable {
    public var csv: String
    public var rows: Int

    public init(csv: String, rows: Int) {
        self.csv = csv
        self.rows = rows
    }
}

// MARK: - Water and coffee

@MessagePackCodable
public enum Drink: String, Codable, Sendable, CaseIterable {
    case water, coffee
}

/// Adds (positive) or removes (negative) glasses of water or cups of coffee; counts never go below 0.
@MessagePackCodable
public struct DrinkChange: Codable, Equatable, Sendable {
    public var date: LocalDate?
    public var drink: Drink
    /// −20…20, not 0.
    public var delta: Int

    public init(date: LocalDate? = nil, drink: Drink, delta: Int) {
        self.date = date
        self.drink = drink
        self.delta = delta
    }
}

@MessagePackCodable
public struct DrinkCounts: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var water: Int
    public var coffee: Int

    public init(date: LocalDate, water: Int, coffee: Int) {
        self.date = date
        self.water = water
        self.coffee = coffee
    }
}

// MARK: - Goals

/// Sets goals from a date on (default today); earlier days keep the goals they had. Give either
/// `goals` or a `preset` name (the preset's split of the given or current kcal).
@MessagePackCodable
public struct GoalsChange: Codable, Equatable, Sendable {
    public var from: LocalDate?
    public var goals: Goals?
    public var preset: String?
    /// With a preset: the energy to split (default: the preset's own, e.g. 1600 for cutting).
    public var kcal: Double?

    public init(from: LocalDate? = nil, goals: Goals? = nil, preset: String? = nil, kcal: Double? = nil) {
        self.from = from
        self.goals = goals
        self.preset = preset
        self.kcal = kcal
    }
}

@MessagePackCodable
public struct GoalsInForce: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var goals: Goals
    /// The date they took effect; nil for the defaults.
    public var from: LocalDate?

    public init(date: LocalDate, goals: Goals, from: LocalDate?) {
        self.date = date
        self.goals = goals
        self.from = from
    }
}

/// A named macro split with a one-line explanation.
@MessagePackCodable
public struct GoalPreset: Codable, Equatable, Sendable {
    public var name: String
    public var explanation: String
    /// Percent of energy from each macro (sums to 100).
    public var split: MacroSplit
    /// The preset's suggested energy, and its goals at that energy.
    public var goals: Goals

    public init(name: String, explanation: String, split: MacroSplit, goals: Goals) {
        self.name = name
        self.explanation = explanation
        self.split = split
        self.goals = goals
    }
}

@MessagePackCodable
public struct GoalPresets: Codable, Equatable, Sendable {
    public var presets: [GoalPreset]

    public init(presets: [GoalPreset]) { self.presets = presets }
}

// MARK: - Saved foods

/// A food the user keeps for quick logging ("my diet").
@MessagePackCodable
public struct SavedFood: Codable, Equatable, Sendable {
    public var id: Int64
    public var name: String
    /// The meals it suits (empty: any meal).
    public var meals: [Meal]
    /// One portion, in grams.
    public var grams: Double
    public var per100g: Macros

    public init(id: Int64, name: String, meals: [Meal], grams: Double, per100g: Macros) {
        self.id = id
        self.name = name
        self.meals = meals
        self.grams = grams
        self.per100g = per100g
    }
}

@MessagePackCodable
public struct SavedFoodDraft: Codable, Equatable, Sendable {
    public var name: String
    public var meals: [Meal]
    public var grams: Double
    public var per100g: Macros

    public init(name: String, meals: [Meal] = [], grams: Double, per100g: Macros) {
        self.name = name
        self.meals = meals
        self.grams = grams
        self.per100g = per100g
    }
}

@MessagePackCodable
public struct SavedFoodEdit: Codable, Equatable, Sendable {
    public var id: Int64
    public var name: String?
    public var meals: [Meal]?
    public var grams: Double?
    public var per100g: Macros?

    public init(id: Int64, name: String? = nil, meals: [Meal]? = nil, grams: Double? = nil, per100g: Macros? = nil) {
        self.id = id
        self.name = name
        self.meals = meals
        self.grams = grams
        self.per100g = per100g
    }
}

@MessagePackCodable
public struct SavedFoodFilter: Codable, Equatable, Sendable {
    /// Only foods suiting this meal (foods with no meals suit every meal).
    public var meal: Meal?

    public init(meal: Meal? = nil) { self.meal = meal }
}

@MessagePackCodable
public struct SavedFoodList: Codable, Equatable, Sendable {
    public var foods: [SavedFood]

    public init(foods: [SavedFood]) { self.foods = foods }
}

/// Logs `quantity` portions of a saved food (grams = quantity × the food's portion).
@MessagePackCodable
public struct SavedFoodLog: Codable, Equatable, Sendable {
    public var id: Int64
    public var date: LocalDate?
    /// Default: the food's first meal, else snack.
    public var meal: Meal?
    /// Portions, > 0 (default 1).
    public var quantity: Double?

    public init(id: Int64, date: LocalDate? = nil, meal: Meal? = nil, quantity: Double? = nil) {
        self.id = id
        self.date = date
        self.meal = meal
        self.quantity = quantity
    }
}

// MARK: - Products

/// A packaged product known by its barcode.
@MessagePackCodable
public struct Product: Codable, Equatable, Sendable {
    /// EAN-13, EAN-8 or UPC-A digits with a valid check digit.
    public var code: String
    public var name: String
    public var brand: String?
    /// As printed on the pack, e.g. "500 g".
    public var quantity: String?
    public var per100g: Macros
    /// Open Food Facts tags, e.g. "en:gluten".
    public var allergens: [String]
    /// USDA SR28 food number the nutrition came from (shipped sample products).
    public var usdaNdb: String?
    /// Where the tracker has it from, in replies: "sample" (shipped), "import" (or the source an
    /// operator named), "openfoodfacts", or "yours" (`products.add`). Ignored on input.
    public var source: String?
    /// When it was looked up in Open Food Facts (looked up again after 30 days).
    public var fetchedAt: Date?

    public init(
        code: String, name: String, brand: String?, quantity: String?, per100g: Macros, allergens: [String], usdaNdb: String? = nil,
        source: String? = nil, fetchedAt: Date? = nil
    ) {
        self.code = code
        self.name = name
        self.brand = brand
        self.quantity = quantity
        self.per100g = per100g
        self.allergens = allergens
        self.usdaNdb = usdaNdb
        self.source = source
        self.fetchedAt = fetchedAt
    }
}

@MessagePackCodable
public struct BarcodeLookup: Codable, Equatable, Sendable {
    public var code: String

    public init(code: String) { self.code = code }
}

/// A batch of parsed products (at most 1000) to add or replace by code.
@MessagePackCodable
public struct ProductImport: Codable, Equatable, Sendable {
    public var source: String
    public var products: [Product]

    public init(source: String, products: [Product]) {
        self.source = source
        self.products = products
    }
}

@MessagePackCodable
public struct ProductImportResult: Codable, Equatable, Sendable {
    /// New codes.
    public var added: Int
    /// Codes that were already known and were replaced.
    public var replaced: Int

    public init(added: Int, replaced: Int) {
        self.added = added
        self.replaced = replaced
    }
}

// MARK: - Methods

extension TrackerAPI {
    // The diary's writes and `drinks.change` change nothing but this service's database: their
    // idempotency key is checked by their own transaction (``KeyCheck/atCommit``).
    public static let addEntry = Method<Tracker, DiaryAdd, DiaryEntry>.write("diary.add", .user, keyCheck: .atCommit)
    public static let editEntry = Method<Tracker, DiaryEdit, DiaryEntry>.write("diary.edit", .user, keyCheck: .atCommit)
    public static let deleteEntry = Method<Tracker, EntryID, Empty>.write("diary.delete", .user, keyCheck: .atCommit)
    /// One day's entries.
    public static let listEntries = Method<Tracker, DayRequest, DiaryDay>.read("diary.list", .user)
    public static let summary = Method<Tracker, DayRequest, DailySummary>.read("diary.summary", .user)
    public static let history = Method<Tracker, DateRange, DiaryHistory>.read("diary.history", .user, lane: .heavy)
    public static let analysis = Method<Tracker, DateRange, DiaryAnalysis>.read("diary.analysis", .user, lane: .heavy)
    /// Foods logged the day before the requested day.
    public static let yesterday = Method<Tracker, DayRequest, RecentFoods>.read("diary.yesterday", .user)
    public static let export = Method<Tracker, DateRange, DiaryExport>.read("diary.export", .user, lane: .heavy)

    public static let changeDrink = Method<Tracker, DrinkChange, DrinkCounts>.write("drinks.change", .user, keyCheck: .atCommit)
    public static let drinks = Method<Tracker, DayRequest, DrinkCounts>.read("drinks.get", .user)

    public static let goals = Method<Tracker, DayRequest, GoalsInForce>.read("goals.get", .user)
    public static let setGoals = Method<Tracker, GoalsChange, GoalsInForce>.write(
        "goals.set", .user, keyCheck: .atCommit, fields: FieldRule(oneOf: ["goals", "preset"]))
    public static let presets = Method<Tracker, Empty, GoalPresets>.read("goals.presets", .user)

    public static let createFood = Method<Tracker, SavedFoodDraft, SavedFood>.write("foods.create", .user, keyCheck: .atCommit)
    public static let editFood = Method<Tracker, SavedFoodEdit, SavedFood>.write("foods.edit", .user, keyCheck: .atCommit)
    public static let deleteFood = Method<Tracker, EntryID, Empty>.write("foods.delete", .user, keyCheck: .atCommit)
    public static let listFoods = Method<Tracker, SavedFoodFilter, SavedFoodList>.read("foods.list", .user)
    public static let logFood = Method<Tracker, SavedFoodLog, DiaryEntry>.write("foods.log", .user, keyCheck: .atCommit)

    /// A product by barcode: badRequest `code` for a malformed code, notFound for an unknown one.
    public static let product = Method<Tracker, BarcodeLookup, Product>.read("products.get", .user)
    public static let importProducts = Method<Tracker, ProductImport, ProductImportResult>.write("products.import", .operator)
    /// A product of the caller's own (a barcode the shared table lacks, or their own reading of
    /// one): only they see it, ahead of the shared one; it never replaces anyone else's.
    public static let addProduct = Method<Tracker, Product, Product>.write("products.add", .user, keyCheck: .atCommit)
}

extension TrackerTopics {
    /// The topic of the ``ActivityEvent`` every user action publishes.
    public static let activity = EventTopics.activity
}
