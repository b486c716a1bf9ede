public import MessagePack
public import SousWire

// Recommendations: recipes that fit what is left of the day (the catalog's `recipes.suggest`)
// and a week filled under the profile's constraints (the planner's `plan.fill`).

// MARK: - recipes.suggest

/// What to suggest a recipe for: the rest of a day in the caller's diary.
@MessagePackCodable
public struct RecipeSuggestionRequest: Codable, Equatable, Sendable {
    /// The diary day; default today in the user's time zone.
    public var date: LocalDate?
    /// Meals still to eat that day (1–6; default 1): each gets an equal share of what is left.
    public var meals: Int?
    /// Only recipes of this dish type.
    public var dishType: DishType?
    /// Filter by this profile instead of the saved one.
    public var profile: RecipeFilterProfile?
    /// Switches over the profile's own (see `recipes.search`).
    public var switches: FilterSwitches?
    /// How many suggestions (1–20; default 5).
    public var limit: Int?

    public init(
        date: LocalDate? = nil, meals: Int? = nil, dishType: DishType? = nil, profile: RecipeFilterProfile? = nil, switches: FilterSwitches? = nil,
        limit: Int? = nil
    ) {
        self.date = date
        self.meals = meals
        self.dishType = dishType
        self.profile = profile
        self.switches = switches
        self.limit = limit
    }
}

/// Suggestions, best first, with what they were measured against.
@MessagePackCodable
public struct RecipeSuggestions: Codable, Equatable, Sendable {
    public var date: LocalDate
    /// What the diary leaves of the day's goals (negative when over), from the tracker.
    public var remaining: Macros
    /// What one serving should bring: the remaining amounts (never below zero) shared by the
    /// meals still to eat.
    public var target: Macros
    public var suggestions: [RecipeSuggestion]
    /// Recipes that passed the filters and were scored: the closest in kcal, at most
    /// ``maxConsidered``.
    public var considered: Int
    /// Whether the grocery list was read; false when the groceries service did not answer
    /// (suggestions are then ranked without it).
    public var groceryListRead: Bool
    /// Why there are no suggestions (the day's kcal goal is reached, or no recipe passes the
    /// filters); nil when there are some.
    public var explanation: String?

    public init(
        date: LocalDate, remaining: Macros, target: Macros, suggestions: [RecipeSuggestion], considered: Int, groceryListRead: Bool,
        explanation: String? = nil
    ) {
        self.date = date
        self.remaining = remaining
        self.target = target
        self.suggestions = suggestions
        self.considered = considered
        self.groceryListRead = groceryListRead
        self.explanation = explanation
    }

    /// Recipes closest in kcal that are scored in full.
    public static let maxConsidered = 60
}

@MessagePackCodable
public struct RecipeSuggestion: Codable, Equatable, Sendable {
    public var recipe: RecipeSummary
    /// One serving's energy and macros.
    public var perServing: Macros
    /// How close a serving comes to the target, 0–100 (100: exactly on it). kcal counts twice
    /// as much as each macro.
    public var fit: Double
    /// The recipe's ingredients already on the caller's grocery list (unchecked lines), by name.
    public var onGroceryList: [String]
    /// Why it was picked, one sentence each: the fit, the cost, the grocery list, the filters.
    public var reasons: [String]

    public init(recipe: RecipeSummary, perServing: Macros, fit: Double, onGroceryList: [String], reasons: [String]) {
        self.recipe = recipe
        self.perServing = perServing
        self.fit = fit
        self.onGroceryList = onGroceryList
        self.reasons = reasons
    }
}

extension CatalogAPI {
    /// Recipes passing the profile's filters, ranked by how a serving fits what is left of the
    /// day's goals, then by cost per serving and what is already on the grocery list.
    public static let suggest = Method<Catalog, RecipeSuggestionRequest, RecipeSuggestions>.read("recipes.suggest", .user, lane: .heavy)
}

// MARK: - plan.fill

/// An inclusive range of kcal.
@MessagePackCodable
public struct KcalRange: Codable, Equatable, Sendable {
    public var min: Double
    public var max: Double

    public init(min: Double, max: Double) {
        self.min = min
        self.max = max
    }
}

/// Puts recipes into the empty slots of the visible week.
@MessagePackCodable
public struct PlanFill: Codable, Equatable, Sendable {
    /// First and last day to fill; default the whole visible week.
    public var from: LocalDate?
    public var to: LocalDate?
    /// Which slots (1 lunch, 2 dinner); default both.
    public var slots: [Int]?
    /// Only recipes of this dish type; default main course.
    public var dishType: DishType?
    /// A recipe is planned at most once within this many consecutive days, counting what is
    /// already planned and the days before today (0–28; default 7; 0 allows repeats).
    public var noRepeatDays: Int?
    /// EUR for every planned meal of the visible week at the profile's number of people,
    /// including the meals already planned.
    public var weeklyBudget: Double?
    /// kcal per person for a day's planned meals (lunch and dinner) together.
    public var dailyKcal: KcalRange?
    /// The same seed, plan and catalog give the same choices; default a random seed (the reply
    /// says which).
    public var seed: UInt64?

    public init(
        from: LocalDate? = nil, to: LocalDate? = nil, slots: [Int]? = nil, dishType: DishType? = nil, noRepeatDays: Int? = nil,
        weeklyBudget: Double? = nil, dailyKcal: KcalRange? = nil, seed: UInt64? = nil
    ) {
        self.from = from
        self.to = to
        self.slots = slots
        self.dishType = dishType
        self.noRepeatDays = noRepeatDays
        self.weeklyBudget = weeklyBudget
        self.dailyKcal = dailyKcal
        self.seed = seed
    }
}

/// A slot `plan.fill` filled, and why with that recipe.
@MessagePackCodable
public struct FilledSlot: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var slot: Int
    public var recipe: String
    public var recipeName: String
    public var kcalPerServing: Double
    public var costPerServing: Double
    public var reasons: [String]

    public init(date: LocalDate, slot: Int, recipe: String, recipeName: String, kcalPerServing: Double, costPerServing: Double, reasons: [String]) {
        self.date = date
        self.slot = slot
        self.recipe = recipe
        self.recipeName = recipeName
        self.kcalPerServing = kcalPerServing
        self.costPerServing = costPerServing
        self.reasons = reasons
    }
}

/// An empty slot `plan.fill` left empty, and why.
@MessagePackCodable
public struct UnfilledSlot: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var slot: Int
    public var reason: String

    public init(date: LocalDate, slot: Int, reason: String) {
        self.date = date
        self.slot = slot
        self.reason = reason
    }
}

@MessagePackCodable
public struct PlanFillResult: Codable, Equatable, Sendable {
    /// Names this fill for `plan.unfill`; 0 when nothing was filled.
    public var fill: Int64
    /// The seed used: pass it again for the same choices.
    public var seed: UInt64
    public var filled: [FilledSlot]
    public var unfilled: [UnfilledSlot]
    /// Recipes that passed the profile's filters and the dish type.
    public var candidates: Int
    /// EUR for every planned meal of the week after the fill (at the profile's number of
    /// people); recipes the catalog no longer has count nothing.
    public var weekCost: Double
    /// The week after the fill.
    public var days: [PlanDay]

    public init(
        fill: Int64, seed: UInt64, filled: [FilledSlot], unfilled: [UnfilledSlot], candidates: Int, weekCost: Double, days: [PlanDay]
    ) {
        self.fill = fill
        self.seed = seed
        self.filled = filled
        self.unfilled = unfilled
        self.candidates = candidates
        self.weekCost = weekCost
        self.days = days
    }
}

/// A fill to undo; default the latest.
@MessagePackCodable
public struct PlanFillRef: Codable, Equatable, Sendable {
    public var fill: Int64?
    public init(fill: Int64? = nil) { self.fill = fill }
}

@MessagePackCodable
public struct PlanUnfillResult: Codable, Equatable, Sendable {
    public var fill: Int64
    /// Slots emptied: those still holding what the fill put there, from today on.
    public var cleared: [SlotRef]
    /// Slots the fill filled that were kept: cooked, changed since, or in the past.
    public var kept: [SlotRef]
    /// Recipes the fill had added to the selection, taken out again (those no slot holds now).
    public var unselected: [String]

    public init(fill: Int64, cleared: [SlotRef], kept: [SlotRef], unselected: [String] = []) {
        self.fill = fill
        self.cleared = cleared
        self.kept = kept
        self.unselected = unselected
    }
}

extension PlannerAPI {
    /// Fills the week's empty slots under the profile's filters and the request's constraints.
    public static let fill = Method<Planner, PlanFill, PlanFillResult>.write("plan.fill", .household, lane: .heavy)
    /// Undoes a fill: empties the slots it filled that still hold its recipes.
    public static let unfill = Method<Planner, PlanFillRef, PlanUnfillResult>.write("plan.unfill", .household)
}
