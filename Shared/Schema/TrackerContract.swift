public import Foundation
public import MessagePack
public import SousWire

// The part of the tracker's schema other services call: the planner logs cooked meals, the
// notifier asks whether a day's dinner is already logged.

/// Energy and macros per 100 g of a food.
@MessagePackCodable
public struct Macros: Codable, Equatable, Sendable {
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

    public static let zero = Macros(kcal: 0, carbohydrates: 0, protein: 0, fat: 0)
}

extension Nutrition {
    /// Energy and the three macros, without fibre, sugar and salt.
    public var macros: Macros { Macros(kcal: kcal, carbohydrates: carbohydrates, protein: protein, fat: fat) }
}

extension Goals {
    /// The goals as the amounts they set.
    public var macros: Macros { Macros(kcal: kcal, carbohydrates: carbohydrates, protein: protein, fat: fat) }
}

/// Where a diary entry's food came from.
@MessagePackCodable
public enum EntrySourceKind: String, Codable, Sendable, CaseIterable {
    case manual, ingredient, product, savedFood, recipe
}

@MessagePackCodable
public struct EntrySource: Codable, Equatable, Sendable {
    public var kind: EntrySourceKind
    /// The ingredient id, barcode, saved food id or recipe id; nil for typed-in food.
    public var reference: String?

    public init(kind: EntrySourceKind, reference: String? = nil) {
        self.kind = kind
        self.reference = reference
    }
}

/// One food in a user's diary.
@MessagePackCodable
public struct DiaryEntry: Codable, Equatable, Sendable {
    public var id: Int64
    public var date: LocalDate
    public var meal: Meal
    public var food: String
    public var grams: Double
    public var per100g: Macros
    public var source: EntrySource
    public var loggedAt: Date

    public init(id: Int64, date: LocalDate, meal: Meal, food: String, grams: Double, per100g: Macros, source: EntrySource, loggedAt: Date) {
        self.id = id
        self.date = date
        self.meal = meal
        self.food = food
        self.grams = grams
        self.per100g = per100g
        self.source = source
        self.loggedAt = loggedAt
    }

    /// What this entry adds to the day: per-100 g values scaled by its grams.
    public var totals: Macros {
        let factor = grams / 100
        return Macros(
            kcal: per100g.kcal * factor, carbohydrates: per100g.carbohydrates * factor, protein: per100g.protein * factor, fat: per100g.fat * factor)
    }
}

/// Logs servings of a catalog recipe (the planner's "cooked it" sends one serving).
@MessagePackCodable
public struct RecipeServingLog: Codable, Equatable, Sendable {
    /// The day; left out, today in the user's time zone (as every day-based tracker request).
    public var date: LocalDate?
    public var meal: Meal
    public var recipe: String
    /// Servings eaten, > 0 and ≤ 50.
    public var servings: Double

    public init(date: LocalDate? = nil, meal: Meal, recipe: String, servings: Double = 1) {
        self.date = date
        self.meal = meal
        self.recipe = recipe
        self.servings = servings
    }
}

@MessagePackCodable
public struct DiaryStatusRequest: Codable, Equatable, Sendable {
    /// The day; left out, today in the user's time zone.
    public var date: LocalDate?

    public init(date: LocalDate? = nil) { self.date = date }
}

/// A cheap look at one day: which meals have entries, energy logged and its goal.
@MessagePackCodable
public struct DiaryStatus: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var mealsLogged: [Meal]
    public var kcal: Double
    public var kcalGoal: Double

    public init(date: LocalDate, mealsLogged: [Meal], kcal: Double, kcalGoal: Double) {
        self.date = date
        self.mealsLogged = mealsLogged
        self.kcal = kcal
        self.kcalGoal = kcalGoal
    }
}

/// Several users' days asked at once: what the notifier's reminder pass asks for each batch of
/// due reminders, instead of one `diary.status` round trip per reminder.
@MessagePackCodable
public struct DiaryStatusBatch: Codable, Equatable, Sendable {
    @MessagePackCodable
    public struct Day: Codable, Equatable, Sendable {
        public var user: String
        public var date: LocalDate

        public init(user: String, date: LocalDate) {
            self.user = user
            self.date = date
        }
    }

    /// At most ``limit``.
    public var days: [Day]

    public static let limit = 1_000

    public init(days: [Day]) { self.days = days }
}

/// The status of each asked day, in the order asked.
@MessagePackCodable
public struct DiaryStatuses: Codable, Equatable, Sendable {
    public var statuses: [DiaryStatus]

    public init(statuses: [DiaryStatus]) { self.statuses = statuses }
}

/// Published on every diary change (``TrackerTopics``).
@MessagePackCodable
public struct DiaryEntryEvent: Codable, Equatable, Sendable {
    public var user: String
    public var entry: Int64
    public var date: LocalDate
    public var meal: Meal

    public init(user: String, entry: Int64, date: LocalDate, meal: Meal) {
        self.user = user
        self.entry = entry
        self.date = date
        self.meal = meal
    }
}

public enum TrackerTopics {
    public static let entryLogged = Topic<DiaryEntryEvent>("tracker.entry.logged")
    public static let entryChanged = Topic<DiaryEntryEvent>("tracker.entry.changed")
    public static let entryDeleted = Topic<DiaryEntryEvent>("tracker.entry.deleted")
}

public enum TrackerAPI {
    /// Logs servings of a recipe with the catalog's nutrition per serving.
    public static let logRecipeServing = Method<Tracker, RecipeServingLog, DiaryEntry>.write("diary.logRecipe", .user, keyCheck: .atCommit)
    /// Which meals of a day are logged and the energy against the goal.
    public static let diaryStatus = Method<Tracker, DiaryStatusRequest, DiaryStatus>.read("diary.status", .user, activity: false)
    /// `diary.status` of many users' days in one call; for Sous services only (the notifier),
    /// since each day names its user.
    public static let diaryStatuses = Method<Tracker, DiaryStatusBatch, DiaryStatuses>.read("diary.statuses", .service)
}
