public import SousWire

/// A user's cooking profile, owned by the planner and read by the other services.
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
    public var filterDiets: Bool
    public var filterEquipment: Bool
    public var filterPatience: Bool
    /// IANA time zone name, e.g. "Europe/Rome".
    public var timeZone: String
    public var remindersEnabled: Bool
    /// Local hour of the daily reminder, 0–23.
    public var reminderHour: Int

    public init(
        people: Int = 2, patience: Int = 5, diets: [Diet] = [], allergens: [Allergen] = [], dislikes: [String] = [],
        equipment: [Appliance] = Appliance.allCases, filterDiets: Bool = true, filterEquipment: Bool = true, filterPatience: Bool = true,
        timeZone: String = "UTC", remindersEnabled: Bool = true, reminderHour: Int = 19
    ) {
        self.people = people
        self.patience = patience
        self.diets = diets
        self.allergens = allergens
        self.dislikes = dislikes
        self.equipment = equipment
        self.filterDiets = filterDiets
        self.filterEquipment = filterEquipment
        self.filterPatience = filterPatience
        self.timeZone = timeZone
        self.remindersEnabled = remindersEnabled
        self.reminderHour = reminderHour
    }

    /// The defaults every user starts with.
    public static let defaults = CookingProfile()

    /// The catalog filter this profile asks for, honouring its automatic filter switches.
    public var recipeFilter: (profile: RecipeFilterProfile, switches: FilterSwitches) {
        (
            RecipeFilterProfile(diets: diets, allergens: allergens, dislikes: dislikes, equipment: equipment, patience: patience),
            FilterSwitches(diets: filterDiets, equipment: filterEquipment, patience: filterPatience)
        )
    }
}

public enum PlannerAPI {
    /// The caller's profile (the defaults if they never set one).
    public static let getProfile = Method<Empty, CookingProfile>.read("profile.get", .user)
    /// How many times the groceries should buy a recipe: the slots it fills in the caller's
    /// visible week, or 1 if none.
    public static let suggestedMultiplier = Method<RecipeID, SuggestedMultiplier>.read("plan.multiplier", .user)
}

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
    public static let profileChanged = "planner.profile.changed"
    /// ``PlanChangedEvent``: the selection or a slot changed.
    public static let planChanged = "planner.plan.changed"
}

public struct ProfileChangedEvent: Codable, Equatable, Sendable {
    public var user: String
    public var profile: CookingProfile

    public init(user: String, profile: CookingProfile) {
        self.user = user
        self.profile = profile
    }
}

public struct PlanChangedEvent: Codable, Equatable, Sendable {
    public var user: String
    /// The dates whose slots changed (empty when only the selection did).
    public var dates: [LocalDate]

    public init(user: String, dates: [LocalDate]) {
        self.user = user
        self.dates = dates
    }
}
