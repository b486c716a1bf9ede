import Foundation
import GRDB
import SousRuntime
import SousSchema

// The planner's tables as GRDB records: each names its columns once and reads and writes itself.

/// A user's saved cooking profile (`profile`); users who never saved one have no row.
struct ProfileRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "profile"

    enum Columns {
        static let user = Column("user")
        static let people = Column("people")
        static let patience = Column("patience")
        static let diets = Column("diets")
        static let allergens = Column("allergens")
        static let dislikes = Column("dislikes")
        static let equipment = Column("equipment")
        static let filterDiets = Column("filter_diets")
        static let filterAllergens = Column("filter_allergens")
        static let filterDislikes = Column("filter_dislikes")
        static let filterEquipment = Column("filter_equipment")
        static let filterPatience = Column("filter_patience")
        static let timeZone = Column("time_zone")
        static let remindersEnabled = Column("reminders_enabled")
        static let reminderHour = Column("reminder_hour")
        static let updatedAt = Column("updated_at")
    }

    var user: String
    var profile: CookingProfile
    var updatedAt: Date

    init(user: String, profile: CookingProfile, updatedAt: Date) {
        self.user = user
        self.profile = profile
        self.updatedAt = updatedAt
    }

    init(row: Row) throws {
        user = row[Columns.user]
        profile = CookingProfile(
            people: row[Columns.people], patience: row[Columns.patience],
            diets: try JSONColumn.decode([String].self, from: row[Columns.diets]).compactMap(Diet.init(rawValue:)),
            allergens: try JSONColumn.decode([String].self, from: row[Columns.allergens]).compactMap(Allergen.init(rawValue:)),
            dislikes: try JSONColumn.decode([String].self, from: row[Columns.dislikes]),
            equipment: try JSONColumn.decode([String].self, from: row[Columns.equipment]).compactMap(Appliance.init(rawValue:)),
            filterDiets: row[Columns.filterDiets], filterAllergens: row[Columns.filterAllergens], filterDislikes: row[Columns.filterDislikes],
            filterEquipment: row[Columns.filterEquipment], filterPatience: row[Columns.filterPatience],
            timeZone: row[Columns.timeZone], remindersEnabled: row[Columns.remindersEnabled], reminderHour: row[Columns.reminderHour]
        )
        updatedAt = Date(timeIntervalSince1970: row[Columns.updatedAt])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.user] = user
        container[Columns.people] = profile.people
        container[Columns.patience] = profile.patience
        container[Columns.diets] = try JSONColumn.encode(profile.diets.map(\.rawValue))
        container[Columns.allergens] = try JSONColumn.encode(profile.allergens.map(\.rawValue))
        container[Columns.dislikes] = try JSONColumn.encode(profile.dislikes)
        container[Columns.equipment] = try JSONColumn.encode(profile.equipment.map(\.rawValue))
        container[Columns.filterDiets] = profile.filterDiets
        container[Columns.filterAllergens] = profile.filterAllergens
        container[Columns.filterDislikes] = profile.filterDislikes
        container[Columns.filterEquipment] = profile.filterEquipment
        container[Columns.filterPatience] = profile.filterPatience
        container[Columns.timeZone] = profile.timeZone
        container[Columns.remindersEnabled] = profile.remindersEnabled
        container[Columns.reminderHour] = profile.reminderHour
        container[Columns.updatedAt] = updatedAt.timeIntervalSince1970
    }
}

/// A recipe the user picked for the week (`selection`), in the order they picked them.
struct SelectionRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "selection"

    enum Columns {
        static let id = Column("id")
        static let user = Column("user")
        static let recipe = Column("recipe")
        static let name = Column("name")
        static let addedAt = Column("added_at")
    }

    var user: String
    var recipe: String
    var name: String
    var addedAt: Date

    init(user: String, recipe: String, name: String, addedAt: Date) {
        self.user = user
        self.recipe = recipe
        self.name = name
        self.addedAt = addedAt
    }

    init(row: Row) {
        user = row[Columns.user]
        recipe = row[Columns.recipe]
        name = row[Columns.name]
        addedAt = Date(timeIntervalSince1970: row[Columns.addedAt])
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.recipe] = recipe
        container[Columns.name] = name
        container[Columns.addedAt] = addedAt.timeIntervalSince1970
    }
}

/// A filled slot of a day (`slot`); an empty slot has no row.
struct SlotRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "slot"

    enum Columns {
        static let user = Column("user")
        static let date = Column("date")
        static let slot = Column("slot")
        static let recipe = Column("recipe")
        static let recipeName = Column("recipe_name")
        static let cookedAt = Column("cooked_at")
        static let diaryEntry = Column("diary_entry")
    }

    var user: String
    var ref: SlotRef
    var recipe: String
    var recipeName: String
    var cookedAt: Date?
    var diaryEntry: Int64?

    init(user: String, ref: SlotRef, recipe: String, recipeName: String, cookedAt: Date? = nil, diaryEntry: Int64? = nil) {
        self.user = user
        self.ref = ref
        self.recipe = recipe
        self.recipeName = recipeName
        self.cookedAt = cookedAt
        self.diaryEntry = diaryEntry
    }

    init(row: Row) throws {
        let text: String = row[Columns.date]
        guard let date = LocalDate(text) else { throw DatabaseError(message: "slot date \(text) is not a date") }
        user = row[Columns.user]
        ref = SlotRef(date: date, slot: row[Columns.slot])
        recipe = row[Columns.recipe]
        recipeName = row[Columns.recipeName]
        cookedAt = (row[Columns.cookedAt] as Double?).map(Date.init(timeIntervalSince1970:))
        diaryEntry = row[Columns.diaryEntry]
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.user] = user
        container[Columns.date] = ref.date.description
        container[Columns.slot] = ref.slot
        container[Columns.recipe] = recipe
        container[Columns.recipeName] = recipeName
        container[Columns.cookedAt] = cookedAt?.timeIntervalSince1970
        container[Columns.diaryEntry] = diaryEntry
    }

    /// The user's slot at `ref`.
    static func at(_ ref: SlotRef, user: String) -> QueryInterfaceRequest<SlotRecord> {
        filter(Columns.user == user && Columns.date == ref.date.description && Columns.slot == ref.slot)
    }

    var planSlot: PlanSlot {
        PlanSlot(
            date: ref.date, slot: ref.slot, meal: PlanSlotKind.meal(of: ref.slot) ?? .dinner, recipe: recipe, recipeName: recipeName,
            cookedAt: cookedAt, diaryEntry: diaryEntry)
    }
}
