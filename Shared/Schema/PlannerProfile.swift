public import Foundation
public import MessagePack
public import SousWire

/// A user's cooking profile, owned by the planner and read by the other services.
@MessagePackCodable
public struct CookingProfile: Codable, Equatable, Sendable {
    /// People to cook for, 1–50.
    public var people: Int
    /// Highest energy level the user will cook, 1 ("might not eat") – 5 ("love elaborate meals").
    public var patience: Int
    public var diets: [Diet]
    public var allergens: [Allergen]
    /// Catalog ingredient ids.
    public var dislikes: [String]
    public var equipment: [Appliance]
    /// Each filter layer of the default recipe search, switched on or off as one: diets,
    /// allergens, dislikes, equipment, patience. Switching one off keeps its list.
    public var filterDiets: Bool
    public var filterAllergens: Bool
    public var filterDislikes: Bool
    public var filterEquipment: Bool
    public var filterPatience: Bool
    /// IANA time zone name, e.g. "Europe/Rome".
    public var timeZone: String
    public var remindersEnabled: Bool
    /// Local hour of the daily reminder, 0–23.
    public var reminderHour: Int
    /// How quantities are shown to this user: metric (as stored) or US customary.
    public var units: UnitSystem

    public init(
        people: Int = 2, patience: Int = 5, diets: [Diet] = [], allergens: [Allergen] = [], dislikes: [String] = [],
        equipment: [Appliance] = Appliance.allCases, filterDiets: Bool = true, filterAllergens: Bool = true, filterDislikes: Bool = true,
        filterEquipment: Bool = true, filterPatience: Bool = true, timeZone: String = "UTC", remindersEnabled: Bool = true, reminderHour: Int = 19,
        units: UnitSystem = .metric
    ) {
        self.units = units
        self.people = people
        self.patience = patience
        self.diets = diets
        self.allergens = allergens
        self.dislikes = dislikes
        self.equipment = equipment
        self.filterDiets = filterDiets
        self.filterAllergens = filterAllergens
        self.filterDislikes = filterDislikes
        self.filterEquipment = filterEquipment
        self.filterPatience = filterPatience
        self.timeZone = timeZone
        self.remindersEnabled = remindersEnabled
        self.reminderHour = reminderHour
    }

    /// The defaults every user starts with.
    public static let defaults = CookingProfile()

    /// The catalog filter this profile asks for, honouring its filter switches.
    public var recipeFilter: (profile: RecipeFilterProfile, switches: FilterSwitches) {
        (
            RecipeFilterProfile(diets: diets, allergens: allergens, dislikes: dislikes, equipment: equipment, patience: patience),
            FilterSwitches(
                diets: filterDiets, allergens: filterAllergens, dislikes: filterDislikes, equipment: filterEquipment, patience: filterPatience)
        )
    }

    private enum CodingKeys: String, CodingKey {
        case people, patience, diets, allergens, dislikes, equipment, filterDiets, filterAllergens, filterDislikes, filterEquipment, filterPatience
        case timeZone, remindersEnabled, reminderHour, units
    }

    /// Switches added after the first release read as on when a sender leaves them out, and the
    /// units as metric.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        people = try container.decode(Int.self, forKey: .people)
        patience = try container.decode(Int.self, forKey: .patience)
        diets = try container.decode([Diet].self, forKey: .diets)
        allergens = try container.decode([Allergen].self, forKey: .allergens)
        dislikes = try container.decode([String].self, forKey: .dislikes)
        equipment = try container.decode([Appliance].self, forKey: .equipment)
        filterDiets = try container.decode(Bool.self, forKey: .filterDiets)
        filterAllergens = try container.decodeIfPresent(Bool.self, forKey: .filterAllergens) ?? true
        filterDislikes = try container.decodeIfPresent(Bool.self, forKey: .filterDislikes) ?? true
        filterEquipment = try container.decode(Bool.self, forKey: .filterEquipment)
        filterPatience = try container.decode(Bool.self, forKey: .filterPatience)
        timeZone = try container.decode(String.self, forKey: .timeZone)
        remindersEnabled = try container.decode(Bool.self, forKey: .remindersEnabled)
        reminderHour = try container.decode(Int.self, forKey: .reminderHour)
        units = try container.decodeIfPresent(UnitSystem.self, forKey: .units) ?? .metric
    }
}

/// How quantities are shown: metric (g, kg, ml, l, as Sous stores them) or US customary (oz, lb,
/// cups, quarts; spoons and pieces as they are).
@MessagePackCodable
public enum UnitSystem: String, Codable, Sendable, CaseIterable {
    case metric
    case us
}

public enum PlannerAPI {
    /// The caller's profile (the defaults if they never set one).
    public static let getProfile = Method<Planner, Empty, CookingProfile>.read("profile.get", .user, activity: false)
    /// How many times the groceries should buy a recipe: the slots it fills in the caller's
    /// visible week, or 1 if none.
    public static let suggestedMultiplier = Method<Planner, RecipeID, SuggestedMultiplier>.read("plan.multiplier", .household, activity: false)
    /// The caller's household size and the slots a recipe fills in their visible week, in one
    /// read: what a service adding the recipe to a list needs. The recipe is not looked up (the
    /// caller reads it itself): an id nobody knows fills no slot.
    public static let household = Method<Planner, RecipeID, RecipeHousehold>.read("plan.household", .household, activity: false)
    /// The caller's household for the whole visible week in one read: `people` and every planned
    /// recipe's slots, valid until the week moves on. What a service keeps per user to scale
    /// recipes without asking each time (dropping it on `planner.profile.changed` and
    /// `planner.plan.changed` for the user).
    public static let weekHousehold = Method<Planner, Empty, WeekHousehold>.read("plan.weekHousehold", .household, activity: false)
}

@MessagePackCodable
public struct WeekHousehold: Codable, Equatable, Sendable {
    /// People the caller cooks for (their profile's `people`).
    public var people: Int
    /// Each recipe in a slot of the visible week and the slots it fills, by recipe id.
    public var planned: [PlannedRecipe]
    /// The caller's next midnight, when the visible week moves on a day: the counts hold until then.
    public var validUntil: Date

    public init(people: Int, planned: [PlannedRecipe], validUntil: Date) {
        self.people = people
        self.planned = planned
        self.validUntil = validUntil
    }

    /// Slots `recipe` fills in the visible week (0 when it is not planned).
    public func plannedSlots(of recipe: String) -> Int {
        planned.first { $0.recipe == recipe }?.slots ?? 0
    }

    /// What `plan.household` answers for `recipe`.
    public func household(of recipe: String) -> RecipeHousehold {
        RecipeHousehold(recipe: recipe, people: people, plannedSlots: plannedSlots(of: recipe))
    }
}

@MessagePackCodable
public struct PlannedRecipe: Codable, Equatable, Sendable {
    public var recipe: String
    public var slots: Int

    public init(recipe: String, slots: Int) {
        self.recipe = recipe
        self.slots = slots
    }
}

@MessagePackCodable
public struct RecipeHousehold: Codable, Equatable, Sendable {
    public var recipe: String
    /// People the caller cooks for (their profile's `people`).
    public var people: Int
    /// Slots the recipe fills in the visible week (0 when it is not planned).
    public var plannedSlots: Int

    public init(recipe: String, people: Int, plannedSlots: Int) {
        self.recipe = recipe
        self.people = people
        self.plannedSlots = plannedSlots
    }
}

@MessagePackCodable
public struct SuggestedMultiplier: Codable, Equatable, Sendable {
    public var recipe: String
    /// Slots the recipe fills in the visible week, at least 1.
    public var multiplier: Int
    /// Slots it fills (0 when it is not planned).
    public var plannedSlots: Int

    public init(recipe: String, multiplier: Int, plannedSlots: Int) {
        self.recipe = recipe
        self.multiplier = multiplier
        self.plannedSlots = plannedSlots
    }
}

public enum PlannerTopics {
    /// ``ProfileChangedEvent``: a profile was updated or reset.
    public static let profileChanged = Topic<ProfileChangedEvent>("planner.profile.changed")
    /// ``PlanChangedEvent``: the selection or a slot changed.
    public static let planChanged = Topic<PlanChangedEvent>("planner.plan.changed")
}

@MessagePackCodable
public struct ProfileChangedEvent: Codable, Equatable, Sendable {
    public var user: String
    public var profile: CookingProfile

    public init(user: String, profile: CookingProfile) {
        self.user = user
        self.profile = profile
    }
}

@MessagePackCodable
public struct PlanChangedEvent: Codable, Equatable, Sendable {
    /// A member of the household whose plan changed: the event is published for each.
    public var user: String
    /// The household whose plan it is (nil when only the household the user belongs to changed).
    public var household: String?
    /// The dates whose slots changed (empty when only the selection did).
    public var dates: [LocalDate]

    public init(user: String, household: String? = nil, dates: [LocalDate]) {
        self.user = user
        self.household = household
        self.dates = dates
    }
}
