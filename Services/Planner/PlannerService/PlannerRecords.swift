import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

// The planner's tables as records: each names its columns once and reads and writes itself,
// with the same statements on SQLite and PostgreSQL (``SQLRecord``).

/// A user's saved cooking profile (`profile`); users who never saved one have no row.
struct ProfileRecord: Sendable, SQLRecord {
    static let tableName = "profile"
    static let primaryKey = ["user"]

    var user: String
    var profile: CookingProfile
    var updatedAt: Date
    /// The profile's lists as stored, each a JSON array of strings: diets, allergens, dislikes,
    /// equipment.
    private var lists: [String]

    init(user: String, profile: CookingProfile, updatedAt: Date) throws {
        self.user = user
        self.profile = profile
        self.updatedAt = updatedAt
        lists = [
            try JSONColumn.encode(profile.diets.map(\.rawValue)), try JSONColumn.encode(profile.allergens.map(\.rawValue)),
            try JSONColumn.encode(profile.dislikes), try JSONColumn.encode(profile.equipment.map(\.rawValue)),
        ]
    }

    init(row: Row) throws {
        try self.init { position in row[position.column] }
    }

    /// The table's columns, in the order of ``columnNames``, ``values`` and ``selectByUser``
    /// (their raw values are their places in a row of it).
    enum Position: Int, CaseIterable {
        case user, people, patience, diets, allergens, dislikes, equipment, filterDiets, filterAllergens, filterDislikes, filterEquipment
        case filterPatience, timeZone, remindersEnabled, reminderHour, updatedAt, units

        var column: String {
            switch self {
            case .filterDiets: "filter_diets"
            case .filterAllergens: "filter_allergens"
            case .filterDislikes: "filter_dislikes"
            case .filterEquipment: "filter_equipment"
            case .filterPatience: "filter_patience"
            case .timeZone: "time_zone"
            case .remindersEnabled: "reminders_enabled"
            case .reminderHour: "reminder_hour"
            case .updatedAt: "updated_at"
            default: "\(self)"
            }
        }
    }

    private init(_ value: (Position) -> DatabaseValue) throws {
        func read<T: DatabaseValueConvertible>(_ position: Position) throws -> T {
            let stored = value(position)
            guard let read = T.fromDatabaseValue(stored) else {
                throw ServiceError.internal("profile column \(position.column) holds \(stored)")
            }
            return read
        }
        let diets: String = try read(.diets)
        let allergens: String = try read(.allergens)
        let dislikes: String = try read(.dislikes)
        let equipment: String = try read(.equipment)
        user = try read(.user)
        lists = [diets, allergens, dislikes, equipment]
        profile = CookingProfile(
            people: try read(.people), patience: try read(.patience),
            diets: try JSONColumn.decode([String].self, from: diets).compactMap(Diet.init(rawValue:)),
            allergens: try JSONColumn.decode([String].self, from: allergens).compactMap(Allergen.init(rawValue:)),
            dislikes: try JSONColumn.decode([String].self, from: dislikes),
            equipment: try JSONColumn.decode([String].self, from: equipment).compactMap(Appliance.init(rawValue:)),
            filterDiets: try read(.filterDiets), filterAllergens: try read(.filterAllergens), filterDislikes: try read(.filterDislikes),
            filterEquipment: try read(.filterEquipment), filterPatience: try read(.filterPatience), timeZone: try read(.timeZone),
            remindersEnabled: try read(.remindersEnabled), reminderHour: try read(.reminderHour),
            units: UnitSystem(rawValue: try read(.units)) ?? .metric
        )
        updatedAt = Date(timeIntervalSince1970: try read(.updatedAt))
    }

    static let columnNames = Position.allCases.map(\.column)

    /// One user's row.
    static let selectByUser = "SELECT \(columnNames.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) FROM profile WHERE \"user\" = ?"

    /// Booleans as 0 and 1 on both engines.
    var values: SQLArguments {
        [
            user, profile.people, profile.patience, lists[0], lists[1], lists[2], lists[3],
            profile.filterDiets, profile.filterAllergens, profile.filterDislikes, profile.filterEquipment, profile.filterPatience,
            profile.timeZone, profile.remindersEnabled, profile.reminderHour, updatedAt.timeIntervalSince1970, profile.units.rawValue,
        ]
    }
}

/// A recipe the household picked for the week (`selection`), in the order they picked them (its
/// `id`, numbered by the database: never written here).
struct SelectionRecord: Sendable, SQLRecord {
    static let tableName = "selection"
    /// The key a row is known by (`UNIQUE (household, recipe)`); `id` only orders the rows.
    static let primaryKey = ["household", "recipe"]

    enum Columns {
        static let id = Column("id")
        static let household = Column("household")
        static let recipe = Column("recipe")
        static let name = Column("name")
        static let addedAt = Column("added_at")
    }

    var household: String
    var recipe: String
    var name: String
    var addedAt: Date

    init(household: String, recipe: String, name: String, addedAt: Date) {
        self.household = household
        self.recipe = recipe
        self.name = name
        self.addedAt = addedAt
    }

    init(row: Row) {
        household = row[Columns.household]
        recipe = row[Columns.recipe]
        name = row[Columns.name]
        addedAt = Date(timeIntervalSince1970: row[Columns.addedAt])
    }

    static let columnNames = [Columns.household, Columns.recipe, Columns.name, Columns.addedAt].map(\.name)

    var values: SQLArguments { [household, recipe, name, addedAt.timeIntervalSince1970] }
}

/// A filled slot of a day (`slot`); an empty slot has no row. `diaryEntry` is one member's serving
/// of it (`slot_eaten`), read with the slot where a read joins it for that member, never written
/// with the slot.
struct SlotRecord: Sendable, SQLRecord {
    static let tableName = "slot"
    static let primaryKey = ["household", "date", "slot"]

    enum Columns {
        static let household = Column("household")
        static let date = Column("date")
        static let slot = Column("slot")
        static let recipe = Column("recipe")
        static let recipeName = Column("recipe_name")
        static let cookedAt = Column("cooked_at")
        static let diaryEntry = Column("diary_entry")
    }

    var household: String
    var ref: SlotRef
    var recipe: String
    var recipeName: String
    var cookedAt: Date?
    var diaryEntry: Int64?

    init(household: String, ref: SlotRef, recipe: String, recipeName: String, cookedAt: Date? = nil, diaryEntry: Int64? = nil) {
        self.household = household
        self.ref = ref
        self.recipe = recipe
        self.recipeName = recipeName
        self.cookedAt = cookedAt
        self.diaryEntry = diaryEntry
    }

    init(row: Row) throws {
        let text: String = row[Columns.date]
        guard let date = LocalDate(text) else { throw DatabaseError(message: "slot date \(text) is not a date") }
        household = row[Columns.household]
        ref = SlotRef(date: date, slot: row[Columns.slot])
        recipe = row[Columns.recipe]
        recipeName = row[Columns.recipeName]
        cookedAt = (row[Columns.cookedAt] as Double?).map(Date.init(timeIntervalSince1970:))
        diaryEntry = row.hasColumn(Columns.diaryEntry.name) ? row[Columns.diaryEntry] : nil
    }

    static let columnNames = [Columns.household, Columns.date, Columns.slot, Columns.recipe, Columns.recipeName, Columns.cookedAt].map(\.name)

    var values: SQLArguments {
        [household, ref.date.description, ref.slot, recipe, recipeName, cookedAt?.timeIntervalSince1970]
    }

    /// The primary key of the household's slot at `ref`, for `household = ? AND date = ? AND slot = ?`.
    static func key(_ ref: SlotRef, household: String) -> SQLArguments {
        [household, ref.date.description, ref.slot]
    }

    var planSlot: PlanSlot {
        PlanSlot(
            date: ref.date, slot: ref.slot, meal: PlanSlotKind.meal(of: ref.slot) ?? .dinner, recipe: recipe, recipeName: recipeName,
            cookedAt: cookedAt, diaryEntry: diaryEntry)
    }
}
