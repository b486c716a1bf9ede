import Foundation
import GRDB
public import SousRuntime
public import SousSchema
public import SousWire

/// The planner's data: profiles, selections and slots. Every write is one transaction that reads
/// the user's time zone inside it, so the week a write is checked against is the one it lands in.
public final class PlannerStore: Sendable {
    public let database: SousDatabase
    private var writer: SousDatabase { database }

    public init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Profiles

    /// The user's profile, or the defaults if they never saved one.
    public func profile(user: String) throws(ServiceError) -> CookingProfile {
        try storage { try writer.read { try Self.profile($0, user: user) } }
    }

    /// Replaces the user's profile (already validated).
    func save(_ profile: CookingProfile, user: String, now: Date) throws(ServiceError) {
        try storage {
            try writer.write { db in
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO profile (user, people, patience, diets, allergens, dislikes, equipment, filter_diets,
                            filter_allergens, filter_dislikes, filter_equipment, filter_patience, time_zone, reminders_enabled, reminder_hour, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        user, profile.people, profile.patience, try Self.list(profile.diets.map(\.rawValue)),
                        try Self.list(profile.allergens.map(\.rawValue)),
                        try Self.list(profile.dislikes), try Self.list(profile.equipment.map(\.rawValue)), profile.filterDiets,
                        profile.filterAllergens, profile.filterDislikes, profile.filterEquipment,
                        profile.filterPatience, profile.timeZone, profile.remindersEnabled, profile.reminderHour, now.timeIntervalSince1970,
                    ])
            }
        }
    }

    func resetProfile(user: String) throws(ServiceError) {
        try storage { try writer.write { try $0.execute(sql: "DELETE FROM profile WHERE user = ?", arguments: [user]) } }
    }

    static func profile(_ db: Database, user: String) throws -> CookingProfile {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM profile WHERE user = ?", arguments: [user]) else { return .defaults }
        return CookingProfile(
            people: row["people"], patience: row["patience"],
            diets: try list(row["diets"]).compactMap(Diet.init(rawValue:)),
            allergens: try list(row["allergens"]).compactMap(Allergen.init(rawValue:)),
            dislikes: try list(row["dislikes"]),
            equipment: try list(row["equipment"]).compactMap(Appliance.init(rawValue:)),
            filterDiets: row["filter_diets"], filterAllergens: row["filter_allergens"], filterDislikes: row["filter_dislikes"],
            filterEquipment: row["filter_equipment"], filterPatience: row["filter_patience"],
            timeZone: row["time_zone"], remindersEnabled: row["reminders_enabled"], reminderHour: row["reminder_hour"]
        )
    }

    // MARK: The week and history

    /// The user's current week and selection.
    func week(user: String, now: Date) throws(ServiceError) -> WeekPlan {
        try storage {
            try writer.read { db in
                let profile = try Self.profile(db, user: user)
                let window = PlanWindow(now: now, profile: profile)
                return WeekPlan(
                    today: window.today, timeZone: profile.timeZone,
                    days: try Self.days(db, user: user, from: window.today, to: window.last, today: window.today),
                    selection: try Self.selection(db, user: user, window: window)
                )
            }
        }
    }

    /// Any dates, marked against the user's today.
    func days(user: String, range: PlanDateRange, now: Date) throws(ServiceError) -> [PlanDay] {
        try storage {
            try writer.read { db in
                let window = PlanWindow(now: now, profile: try Self.profile(db, user: user))
                return try Self.days(db, user: user, from: range.from, to: range.to, today: window.today)
            }
        }
    }

    /// The window the user sees now (for checks done before a write, and for exports).
    func window(user: String, now: Date) throws(ServiceError) -> PlanWindow {
        PlanWindow(now: now, profile: try profile(user: user))
    }

    func selection(user: String, now: Date) throws(ServiceError) -> [SelectedRecipe] {
        try storage {
            try writer.read { db in
                try Self.selection(db, user: user, window: PlanWindow(now: now, profile: try Self.profile(db, user: user)))
            }
        }
    }

    /// The selected recipe's stored name, or nil if it is not in the selection.
    func selectedName(user: String, recipe: String) throws(ServiceError) -> String? {
        try storage {
            try writer.read { try String.fetchOne($0, sql: "SELECT name FROM selection WHERE user = ? AND recipe = ?", arguments: [user, recipe]) }
        }
    }

    /// Slots `recipe` fills in the visible week.
    func plannedSlots(user: String, recipe: String, now: Date) throws(ServiceError) -> Int {
        try storage {
            try writer.read { db in
                let window = PlanWindow(now: now, profile: try Self.profile(db, user: user))
                return try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM slot WHERE user = ? AND recipe = ? AND date BETWEEN ? AND ?",
                    arguments: [user, recipe, window.today.description, window.last.description]) ?? 0
            }
        }
    }

    // MARK: Selection writes

    /// Adds a recipe to the selection; false if it was already there.
    func add(user: String, recipe: String, name: String, now: Date) throws(ServiceError) -> Bool {
        try storage {
            try writer.write { db in
                try Self.insertSelection(db, user: user, recipe: recipe, name: name, now: now)
                return db.changesCount > 0
            }
        }
    }

    /// Removes a recipe from the selection and clears the slots holding it from today on (past
    /// days are history and keep what was planned). Returns the cleared dates.
    func remove(user: String, recipe: String, now: Date) throws(ServiceError) -> [LocalDate] {
        try storage {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM selection WHERE user = ? AND recipe = ?", arguments: [user, recipe])
                guard db.changesCount > 0 else { throw ServiceError.notFound("\(recipe) is not in your plan", field: "id") }
                let window = PlanWindow(now: now, profile: try Self.profile(db, user: user))
                let dates = try String.fetchAll(
                    db, sql: "SELECT DISTINCT date FROM slot WHERE user = ? AND recipe = ? AND date >= ? ORDER BY date",
                    arguments: [user, recipe, window.today.description])
                try db.execute(
                    sql: "DELETE FROM slot WHERE user = ? AND recipe = ? AND date >= ?", arguments: [user, recipe, window.today.description])
                return dates.compactMap(LocalDate.init)
            }
        }
    }

    // MARK: Slot writes

    /// Puts a recipe into a slot of the week, adding it to the selection if missing. A cooked
    /// mark on the slot is dropped: it was about the meal that was there.
    func put(user: String, assignment: SlotAssignment, name: String, now: Date) throws(ServiceError) -> PlanSlot {
        try storage {
            try writer.write { db in
                let window = PlanWindow(now: now, profile: try Self.profile(db, user: user))
                try window.check(SlotRef(date: assignment.date, slot: assignment.slot))
                try Self.insertSelection(db, user: user, recipe: assignment.recipe, name: name, now: now)
                try db.execute(
                    sql: "INSERT OR REPLACE INTO slot (user, date, slot, recipe, recipe_name) VALUES (?, ?, ?, ?, ?)",
                    arguments: [user, assignment.date.description, assignment.slot, assignment.recipe, name])
                return try Self.slot(db, user: user, date: assignment.date, slot: assignment.slot)
            }
        }
    }

    /// Moves a slot's meal (with its cooked mark) to another slot; an occupied target swaps.
    func move(user: String, move: SlotMove, now: Date) throws(ServiceError) -> [PlanSlot] {
        try storage {
            try writer.write { db in
                let window = PlanWindow(now: now, profile: try Self.profile(db, user: user))
                try window.check(move.from, field: "from.")
                try window.check(move.to, field: "to.")
                let select = "SELECT * FROM slot WHERE user = ? AND date = ? AND slot = ?"
                guard let source = try Row.fetchOne(db, sql: select, arguments: [user, move.from.date.description, move.from.slot]) else {
                    throw ServiceError.notFound("nothing is planned for \(Self.label(move.from))", field: "from")
                }
                let target = try Row.fetchOne(db, sql: select, arguments: [user, move.to.date.description, move.to.slot])
                let delete = "DELETE FROM slot WHERE user = ? AND date = ? AND slot = ?"
                try db.execute(sql: delete, arguments: [user, move.from.date.description, move.from.slot])
                try db.execute(sql: delete, arguments: [user, move.to.date.description, move.to.slot])
                try Self.insert(row: source, at: move.to, user: user, db)
                if let target { try Self.insert(row: target, at: move.from, user: user, db) }
                return [
                    try Self.slot(db, user: user, date: move.from.date, slot: move.from.slot),
                    try Self.slot(db, user: user, date: move.to.date, slot: move.to.slot),
                ]
            }
        }
    }

    /// Empties a slot of the week (an empty slot stays empty).
    func clear(user: String, ref: SlotRef, now: Date) throws(ServiceError) -> PlanSlot {
        try storage {
            try writer.write { db in
                let window = PlanWindow(now: now, profile: try Self.profile(db, user: user))
                try window.check(ref)
                try db.execute(sql: "DELETE FROM slot WHERE user = ? AND date = ? AND slot = ?", arguments: [user, ref.date.description, ref.slot])
                return try Self.slot(db, user: user, date: ref.date, slot: ref.slot)
            }
        }
    }

    /// How far back a meal can still be marked as cooked.
    static let cookedDaysBack = 7

    /// Marks a planned meal as cooked (keeping the first time it was marked). Throws conflict if
    /// its serving is already in the diary, so a repeat never logs it twice.
    func markCooked(user: String, ref: SlotRef, now: Date) throws(ServiceError) -> PlanSlot {
        try storage {
            try writer.write { db in
                let window = PlanWindow(now: now, profile: try Self.profile(db, user: user))
                try PlanWindow.check(slot: ref.slot)
                guard ref.date <= window.today else {
                    throw ServiceError.badRequest(
                        "\(ref.date) is after today (\(window.today)): mark a meal cooked on its day or later", field: "date")
                }
                guard ref.date >= window.today.adding(days: -Self.cookedDaysBack) else {
                    throw ServiceError.badRequest("\(ref.date) is more than \(Self.cookedDaysBack) days ago", field: "date")
                }
                let current = try Self.slot(db, user: user, date: ref.date, slot: ref.slot)
                guard current.recipe != nil else { throw ServiceError.notFound("nothing is planned for \(Self.label(ref))", field: "slot") }
                if let entry = current.diaryEntry {
                    throw ServiceError.conflict("\(Self.label(ref)) is already cooked and in your diary (entry \(entry))", field: "slot")
                }
                try db.execute(
                    sql: "UPDATE slot SET cooked_at = coalesce(cooked_at, ?) WHERE user = ? AND date = ? AND slot = ?",
                    arguments: [now.timeIntervalSince1970, user, ref.date.description, ref.slot])
                return try Self.slot(db, user: user, date: ref.date, slot: ref.slot)
            }
        }
    }

    /// Records the diary entry the tracker made for a cooked slot, if the slot still holds `recipe`.
    /// Links the slot to its diary entry and builds the reply in the same transaction (so a
    /// keyed `plan.cooked` stores that reply with the write).
    func recordDiaryEntry<Reply>(_ entry: Int64, user: String, ref: SlotRef, recipe: String, reply: (PlanSlot) -> Reply) throws(ServiceError) -> Reply
    {
        try storage {
            try writer.write { db in
                try db.execute(
                    sql: "UPDATE slot SET diary_entry = ? WHERE user = ? AND date = ? AND slot = ? AND recipe = ?",
                    arguments: [entry, user, ref.date.description, ref.slot, recipe])
                return reply(try Self.slot(db, user: user, date: ref.date, slot: ref.slot))
            }
        }
    }

    // MARK: Helpers

    private static func insertSelection(_ db: Database, user: String, recipe: String, name: String, now: Date) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO selection (user, recipe, name, added_at) VALUES (?, ?, ?, ?)",
            arguments: [user, recipe, name, now.timeIntervalSince1970])
    }

    private static func insert(row: Row, at ref: SlotRef, user: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO slot (user, date, slot, recipe, recipe_name, cooked_at, diary_entry) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                user, ref.date.description, ref.slot, row["recipe"] as String, row["recipe_name"] as String,
                row["cooked_at"] as Double?, row["diary_entry"] as Int64?,
            ])
    }

    private static func selection(_ db: Database, user: String, window: PlanWindow) throws -> [SelectedRecipe] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT s.recipe, s.name, s.added_at,
                    (SELECT COUNT(*) FROM slot WHERE slot.user = s.user AND slot.recipe = s.recipe AND slot.date BETWEEN ? AND ?) AS planned
                FROM selection s WHERE s.user = ? ORDER BY s.id
                """, arguments: [window.today.description, window.last.description, user]
        ).map { row in
            SelectedRecipe(id: row["recipe"], name: row["name"], addedAt: Date(timeIntervalSince1970: row["added_at"]), plannedSlots: row["planned"])
        }
    }

    private static func days(_ db: Database, user: String, from: LocalDate, to: LocalDate, today: LocalDate) throws -> [PlanDay] {
        let rows = try Row.fetchAll(
            db, sql: "SELECT * FROM slot WHERE user = ? AND date BETWEEN ? AND ?",
            arguments: [user, from.description, to.description])
        var filled: [SlotRef: PlanSlot] = [:]
        for row in rows {
            guard let slot = planSlot(row) else { continue }
            filled[SlotRef(date: slot.date, slot: slot.slot)] = slot
        }
        let count = from.days(to: to) + 1
        return (0..<max(count, 0)).map { offset in
            let date = from.adding(days: offset)
            let slots = PlanSlotKind.slots.map { number in
                filled[SlotRef(date: date, slot: number)] ?? PlanSlot(date: date, slot: number, meal: PlanSlotKind.meal(of: number)!)
            }
            return PlanDay(date: date, weekday: date.isoWeekday, isToday: date == today, slots: slots)
        }
    }

    private static func slot(_ db: Database, user: String, date: LocalDate, slot number: Int) throws -> PlanSlot {
        let row = try Row.fetchOne(
            db, sql: "SELECT * FROM slot WHERE user = ? AND date = ? AND slot = ?", arguments: [user, date.description, number])
        return row.flatMap(planSlot) ?? PlanSlot(date: date, slot: number, meal: PlanSlotKind.meal(of: number)!)
    }

    private static func planSlot(_ row: Row) -> PlanSlot? {
        guard let date = LocalDate(row["date"] as String), let meal = PlanSlotKind.meal(of: row["slot"]) else { return nil }
        return PlanSlot(
            date: date, slot: row["slot"], meal: meal, recipe: row["recipe"], recipeName: row["recipe_name"],
            cookedAt: (row["cooked_at"] as Double?).map(Date.init(timeIntervalSince1970:)), diaryEntry: row["diary_entry"]
        )
    }

    static func label(_ ref: SlotRef) -> String {
        "\(PlanSlotKind.meal(of: ref.slot)?.rawValue ?? "slot \(ref.slot)") on \(ref.date)"
    }

    private static func list(_ values: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
    }

    private static func list(_ text: String) throws -> [String] {
        try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    private func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        do {
            return try work()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .internal("planner storage failed: \(error)")
        }
    }
}
