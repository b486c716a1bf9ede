public import Foundation
public import MessagePack
public import SousWire

// The planner's own methods (the profile editing, the selection, the week's slots, cooked-it and
// the calendar export). The part other services call lives in `PlannerProfile.swift`.

/// A partial profile update: only the fields that are set change.
@MessagePackCodable
public struct ProfileUpdate: Codable, Equatable, Sendable {
    public var people: Int?
    public var patience: Int?
    public var diets: [Diet]?
    public var allergens: [Allergen]?
    /// Catalog ingredient ids; unknown ids are rejected naming `dislikes.<index>`.
    public var dislikes: [String]?
    public var equipment: [Appliance]?
    public var filterDiets: Bool?
    public var filterAllergens: Bool?
    public var filterDislikes: Bool?
    public var filterEquipment: Bool?
    public var filterPatience: Bool?
    /// IANA time zone name, e.g. "Pacific/Auckland".
    public var timeZone: String?
    public var remindersEnabled: Bool?
    public var reminderHour: Int?
    public var units: UnitSystem?

    public init(
        people: Int? = nil, patience: Int? = nil, diets: [Diet]? = nil, allergens: [Allergen]? = nil, dislikes: [String]? = nil,
        equipment: [Appliance]? = nil, filterDiets: Bool? = nil, filterAllergens: Bool? = nil, filterDislikes: Bool? = nil,
        filterEquipment: Bool? = nil, filterPatience: Bool? = nil, timeZone: String? = nil, remindersEnabled: Bool? = nil, reminderHour: Int? = nil,
        units: UnitSystem? = nil
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

    /// `profile` with this update's fields applied.
    public func applied(to profile: CookingProfile) -> CookingProfile {
        var result = profile
        if let people { result.people = people }
        if let patience { result.patience = patience }
        if let diets { result.diets = diets }
        if let allergens { result.allergens = allergens }
        if let dislikes { result.dislikes = dislikes }
        if let equipment { result.equipment = equipment }
        if let filterDiets { result.filterDiets = filterDiets }
        if let filterAllergens { result.filterAllergens = filterAllergens }
        if let filterDislikes { result.filterDislikes = filterDislikes }
        if let filterEquipment { result.filterEquipment = filterEquipment }
        if let filterPatience { result.filterPatience = filterPatience }
        if let timeZone { result.timeZone = timeZone }
        if let remindersEnabled { result.remindersEnabled = remindersEnabled }
        if let reminderHour { result.reminderHour = reminderHour }
        if let units { result.units = units }
        return result
    }
}

/// One of the two daily plan slots.
public enum PlanSlotKind {
    /// Slot 1: lunch; slot 2: dinner.
    public static let slots = 1...2

    /// The diary meal a slot maps onto.
    public static func meal(of slot: Int) -> Meal? {
        switch slot {
        case 1: .lunch
        case 2: .dinner
        default: nil
        }
    }
}

/// A slot of the plan: a date and 1 (lunch) or 2 (dinner).
@MessagePackCodable
public struct SlotRef: Codable, Hashable, Sendable {
    public var date: LocalDate
    /// 1 = lunch, 2 = dinner.
    public var slot: Int

    public init(date: LocalDate, slot: Int) {
        self.date = date
        self.slot = slot
    }
}

/// Puts `recipe` into a slot (adding it to the selection if it is not there yet).
@MessagePackCodable
public struct SlotAssignment: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var slot: Int
    public var recipe: String

    public init(date: LocalDate, slot: Int, recipe: String) {
        self.date = date
        self.slot = slot
        self.recipe = recipe
    }
}

/// Moves a slot's recipe to another slot; an occupied target swaps the two.
@MessagePackCodable
public struct SlotMove: Codable, Equatable, Sendable {
    public var from: SlotRef
    public var to: SlotRef

    public init(from: SlotRef, to: SlotRef) {
        self.from = from
        self.to = to
    }
}

/// One slot of one day as the plan shows it.
@MessagePackCodable
public struct PlanSlot: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var slot: Int
    public var meal: Meal
    /// The recipe id, nil for an empty slot.
    public var recipe: String?
    /// The recipe's name as the catalog gave it when it was planned.
    public var recipeName: String?
    /// When the user said they cooked it.
    public var cookedAt: Date?
    /// The diary entry the tracker created for it, once logging succeeded.
    public var diaryEntry: Int64?

    public init(
        date: LocalDate, slot: Int, meal: Meal, recipe: String? = nil, recipeName: String? = nil, cookedAt: Date? = nil, diaryEntry: Int64? = nil
    ) {
        self.date = date
        self.slot = slot
        self.meal = meal
        self.recipe = recipe
        self.recipeName = recipeName
        self.cookedAt = cookedAt
        self.diaryEntry = diaryEntry
    }
}

@MessagePackCodable
public struct PlanDay: Codable, Equatable, Sendable {
    public var date: LocalDate
    /// 1 = Monday … 7 = Sunday.
    public var weekday: Int
    public var isToday: Bool
    /// Lunch, then dinner.
    public var slots: [PlanSlot]

    public init(date: LocalDate, weekday: Int, isToday: Bool, slots: [PlanSlot]) {
        self.date = date
        self.weekday = weekday
        self.isToday = isToday
        self.slots = slots
    }
}

/// A recipe in the user's selection (the carousel).
@MessagePackCodable
public struct SelectedRecipe: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var addedAt: Date
    /// Slots it fills in the visible week.
    public var plannedSlots: Int

    public init(id: String, name: String, addedAt: Date, plannedSlots: Int) {
        self.id = id
        self.name = name
        self.addedAt = addedAt
        self.plannedSlots = plannedSlots
    }
}

@MessagePackCodable
public struct PlanSelection: Codable, Equatable, Sendable {
    /// In the order they were added.
    public var recipes: [SelectedRecipe]

    public init(recipes: [SelectedRecipe]) { self.recipes = recipes }
}

/// The visible week: today and the six days after it in the user's time zone.
@MessagePackCodable
public struct WeekPlan: Codable, Equatable, Sendable {
    public var today: LocalDate
    public var timeZone: String
    public var days: [PlanDay]
    public var selection: [SelectedRecipe]
    /// The household's plan version: it changes with every change to the selection or the slots,
    /// whichever member made it (`plan.wait`). 0 before the first.
    public var version: Int64

    public init(today: LocalDate, timeZone: String, days: [PlanDay], selection: [SelectedRecipe], version: Int64 = 0) {
        self.today = today
        self.timeZone = timeZone
        self.days = days
        self.selection = selection
        self.version = version
    }
}

/// `plan.wait`: wait for the household's plan to change.
@MessagePackCodable
public struct PlanWait: Codable, Equatable, Sendable {
    /// The plan version the caller has (``WeekPlan/version``); the answer comes as soon as the
    /// plan's differs.
    public var after: Int64
    /// How long to wait when it does not: 0 to 25 seconds (default 20).
    public var waitSeconds: Double?

    public init(after: Int64, waitSeconds: Double? = nil) {
        self.after = after
        self.waitSeconds = waitSeconds
    }
}

/// `plan.wait`'s answer.
@MessagePackCodable
public struct PlanVersionNow: Codable, Equatable, Sendable {
    public var version: Int64
    /// Whether it differs from `after` (false: the wait ran out); read the week again when true.
    public var changed: Bool

    public init(version: Int64, changed: Bool) {
        self.version = version
        self.changed = changed
    }
}

/// Inclusive dates, at most 366 days.
@MessagePackCodable
public struct PlanDateRange: Codable, Equatable, Sendable {
    public var from: LocalDate
    public var to: LocalDate

    public init(from: LocalDate, to: LocalDate) {
        self.from = from
        self.to = to
    }
}

@MessagePackCodable
public struct PlanDays: Codable, Equatable, Sendable {
    public var days: [PlanDay]
    public init(days: [PlanDay]) { self.days = days }
}

/// `plan.cooked`: the slot whose meal was cooked, and who else ate it.
@MessagePackCodable
public struct CookedSlot: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var slot: Int
    /// Other members of the caller's household who ate it too (user ids, at most 20): each gets
    /// one serving in their own diary, once however often the meal is marked.
    public var alsoEatenBy: [String]?

    public init(date: LocalDate, slot: Int, alsoEatenBy: [String]? = nil) {
        self.date = date
        self.slot = slot
        self.alsoEatenBy = alsoEatenBy
    }

    public var ref: SlotRef { SlotRef(date: date, slot: slot) }
}

/// What "cooked it" did: the slot as recorded, and whether the tracker logged the serving.
@MessagePackCodable
public struct CookedResult: Codable, Equatable, Sendable {
    /// The slot, with the caller's own diary entry.
    public var slot: PlanSlot
    /// True when the caller's diary has the serving (now, or from an earlier attempt).
    public var logged: Bool
    /// The entry logged now; nil when it was logged before or could not be.
    public var diaryEntry: DiaryEntry?
    /// Why logging failed, in a sentence a user can act on; nil when it worked.
    public var loggingError: String?
    /// The other members named in `alsoEatenBy`, in that order.
    public var others: [MemberServing]
    /// What the meal took out of the household's pantry (`pantry.cook`); nil when the groceries
    /// service could not be asked (``pantryError`` says why).
    public var pantry: PantryTaken?
    public var pantryError: String?

    public init(
        slot: PlanSlot, logged: Bool, diaryEntry: DiaryEntry?, loggingError: String?, others: [MemberServing] = [], pantry: PantryTaken? = nil,
        pantryError: String? = nil
    ) {
        self.pantry = pantry
        self.pantryError = pantryError
        self.slot = slot
        self.logged = logged
        self.diaryEntry = diaryEntry
        self.loggingError = loggingError
        self.others = others
    }
}

/// One other member's serving of a cooked meal.
@MessagePackCodable
public struct MemberServing: Codable, Equatable, Sendable {
    public var user: String
    /// True when their diary has the serving (now, or from an earlier mark).
    public var logged: Bool
    /// Their diary entry, when it was logged by this call.
    public var diaryEntry: DiaryEntry?
    /// Why it could not be logged; nil when it was.
    public var error: String?

    public init(user: String, logged: Bool, diaryEntry: DiaryEntry?, error: String?) {
        self.user = user
        self.logged = logged
        self.diaryEntry = diaryEntry
        self.error = error
    }
}

/// Which dates to export; both nil means the visible week.
@MessagePackCodable
public struct CalendarRequest: Codable, Equatable, Sendable {
    public var from: LocalDate?
    public var to: LocalDate?

    public init(from: LocalDate? = nil, to: LocalDate? = nil) {
        self.from = from
        self.to = to
    }
}

/// An RFC 5545 calendar (CRLF line endings), one event per filled slot.
@MessagePackCodable
public struct CalendarExport: Codable, Equatable, Sendable {
    public var calendar: String
    public var events: Int

    public init(calendar: String, events: Int) {
        self.calendar = calendar
        self.events = events
    }
}

extension PlannerAPI {
    // The profile's and the plan's writes change nothing but this service's database (reading
    // the catalog): their idempotency key is checked by their own transaction
    // (``KeyCheck/atCommit``). `plan.cooked`, which also logs in the tracker, checks it first.
    /// Changes the fields the update sets; answers the whole new profile.
    public static let updateProfile = Method<Planner, ProfileUpdate, CookingProfile>.write("profile.update", .user, keyCheck: .atCommit)
    /// Back to the defaults.
    public static let resetProfile = Method<Planner, Empty, CookingProfile>.write("profile.reset", .user, keyCheck: .atCommit)

    /// The visible week with the selection.
    public static let getPlan = Method<Planner, Empty, WeekPlan>.read("plan.get", .household)
    /// Any dates, past ones included (history).
    public static let history = Method<Planner, PlanDateRange, PlanDays>.read("plan.history", .household, lane: .heavy)
    public static let selection = Method<Planner, Empty, PlanSelection>.read("plan.selection", .household)
    /// Adds a catalog recipe to the selection (notFound if the catalog has no such recipe).
    public static let addRecipe = Method<Planner, RecipeID, PlanSelection>.write("plan.add", .household, keyCheck: .atCommit)
    /// Removes a recipe from the selection and clears every slot from today on that holds it.
    public static let removeRecipe = Method<Planner, RecipeID, PlanSelection>.write("plan.remove", .household, keyCheck: .atCommit)
    public static let putSlot = Method<Planner, SlotAssignment, PlanSlot>.write("plan.put", .household, keyCheck: .atCommit)
    /// Answers both slots after the move.
    public static let moveSlot = Method<Planner, SlotMove, PlanDays>.write("plan.move", .household, keyCheck: .atCommit)
    public static let clearSlot = Method<Planner, SlotRef, PlanSlot>.write("plan.clear", .household, keyCheck: .atCommit)
    /// Records that the slot's meal was cooked and asks the tracker to log one serving.
    public static let cooked = Method<Planner, CookedSlot, CookedResult>.write("plan.cooked", .household, keyCheck: .resumable)
    /// Answers when the household's plan changes (any member's change), or after the wait.
    public static let wait = Method<Planner, PlanWait, PlanVersionNow>.read("plan.wait", .household, activity: false)
    /// iCalendar of the visible week or a date range.
    public static let calendar = Method<Planner, CalendarRequest, CalendarExport>.read("plan.ics", .household, lane: .heavy)
}
