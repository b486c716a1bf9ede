public import Foundation
import GRDB
public import SousRuntime
public import SousSchema
public import SousWire

/// Who a plan call is for: the person (whose profile gives the time zone, so the week is their
/// own today and six days on) and the household whose plan it is.
public struct PlanMember: Sendable, Equatable {
    public let user: String
    public let household: String

    public init(user: String, household: String) {
        self.user = user
        self.household = household
    }

    /// A person alone in the household of their own (whose id is their user id).
    public static func alone(_ user: String) -> PlanMember { PlanMember(user: user, household: user) }
}

/// The planner's data: profiles, selections and slots. Every write is one transaction that reads
/// the user's time zone inside it, so the week a write is checked against is the one it lands in.
/// The same statements run on SQLite and PostgreSQL.
public final class PlannerStore: Sendable {
    public let database: SousDatabase
    public init(database: SousDatabase) {
        self.database = database
    }

    // MARK: Profiles

    /// The user's profile, or the defaults if they never saved one.
    public func profile(user: String) throws(ServiceError) -> CookingProfile {
        try storage { try database.read { session in try Self.profile(session, user: user) } }
    }

    /// Replaces the user's profile (already validated).
    func save(_ profile: CookingProfile, user: String, now: Date) throws(ServiceError) {
        try storage {
            let record = try ProfileRecord(user: user, profile: profile, updatedAt: now)
            try database.write { session in try session.insert(record, onConflict: .replace) }
        }
    }

    func resetProfile(user: String) throws(ServiceError) {
        try storage { try database.write { session in _ = try session.execute(#"DELETE FROM profile WHERE "user" = ?"#, [user]) } }
    }

    static func profile(_ session: any SQLSession, user: String) throws -> CookingProfile {
        try session.fetchOne(ProfileRecord.self, ProfileRecord.selectByUser, [user])?.profile ?? .defaults
    }

    // MARK: The week and history

    /// The user's current week and selection.
    public func week(member: PlanMember, now: Date) throws(ServiceError) -> WeekPlan {
        try storage { try database.read { session in try Self.week(session, member: member, now: now) } }
    }

    static func week(_ session: any SQLSession, member: PlanMember, now: Date) throws -> WeekPlan {
        let profile = try Self.profile(session, user: member.user)
        let window = PlanWindow(now: now, profile: profile)
        return WeekPlan(
            today: window.today, timeZone: profile.timeZone,
            days: try Self.days(session, member: member, from: window.today, to: window.last, today: window.today),
            selection: try Self.selection(session, household: member.household, window: window),
            version: try Self.version(session, household: member.household)
        )
    }

    /// Any dates, marked against the user's today.
    func days(member: PlanMember, range: PlanDateRange, now: Date) throws(ServiceError) -> [PlanDay] {
        try storage {
            try database.read { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                return try Self.days(session, member: member, from: range.from, to: range.to, today: window.today)
            }
        }
    }

    /// The window the user sees now (for checks done before a write, and for exports).
    func window(user: String, now: Date) throws(ServiceError) -> PlanWindow {
        PlanWindow(now: now, profile: try profile(user: user))
    }

    func selection(member: PlanMember, now: Date) throws(ServiceError) -> [SelectedRecipe] {
        try storage {
            try database.read { session in
                try Self.selection(
                    session, household: member.household, window: PlanWindow(now: now, profile: try Self.profile(session, user: member.user)))
            }
        }
    }

    /// The selected recipe's stored name, or nil if it is not in the selection.
    func selectedName(member: PlanMember, recipe: String) throws(ServiceError) -> String? {
        try storage {
            try database.read { session in
                try session.value(String.self, #"SELECT name FROM selection WHERE household = ? AND recipe = ?"#, [member.household, recipe])
            }
        }
    }

    /// Slots `recipe` fills in the visible week.
    func plannedSlots(member: PlanMember, recipe: String, now: Date) throws(ServiceError) -> Int {
        try weekHousehold(member: member, now: now).plannedSlots(of: recipe)
    }

    /// The user's household size and every recipe's slots in their visible week, in one read,
    /// valid until their next midnight.
    func weekHousehold(member: PlanMember, now: Date) throws(ServiceError) -> WeekHousehold {
        try storage {
            try database.read { session in
                let profile = try Self.profile(session, user: member.user)
                let window = PlanWindow(now: now, profile: profile)
                let planned = try session.rows(
                    #"SELECT recipe, COUNT(*) AS slots FROM slot WHERE household = ? AND date BETWEEN ? AND ? GROUP BY recipe ORDER BY recipe"#,
                    [member.household, window.today.description, window.last.description]
                ).map { row in PlannedRecipe(recipe: row["recipe"], slots: row["slots"]) }
                let people = try HouseholdStore.people(session, household: member.household, profile: profile)
                return WeekHousehold(people: people, planned: planned, validUntil: window.moves)
            }
        }
    }

    // MARK: Selection writes

    /// Adds a recipe to the selection; false if it was already there.
    func add(member: PlanMember, recipe: String, name: String, now: Date) throws(ServiceError) -> Bool {
        try storage {
            try writePlan(member.household) { session in
                try session.insert(SelectionRecord(household: member.household, recipe: recipe, name: name, addedAt: now), onConflict: .ignore) > 0
            }
        }
    }

    /// Removes a recipe from the selection and clears the slots holding it from today on (past
    /// days are history and keep what was planned). Returns the cleared dates.
    func remove(member: PlanMember, recipe: String, now: Date) throws(ServiceError) -> [LocalDate] {
        try storage {
            try writePlan(member.household) { session in
                let removed = try session.execute(#"DELETE FROM selection WHERE household = ? AND recipe = ?"#, [member.household, recipe])
                guard removed > 0 else { throw ServiceError.notFound("\(recipe) is not in your plan", field: "id") }
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                let coming: SQLArguments = [member.household, recipe, window.today.description]
                let records = try session.fetchAll(
                    SlotRecord.self, #"SELECT * FROM slot WHERE household = ? AND recipe = ? AND date >= ?"#, coming)
                try session.execute(#"DELETE FROM slot WHERE household = ? AND recipe = ? AND date >= ?"#, coming)
                for record in records { try Self.forgetServings(session, household: member.household, record.ref) }
                return Set(records.map(\.ref.date)).sorted()
            }
        }
    }

    // MARK: Slot writes

    /// Puts a recipe into a slot of the week, adding it to the selection if missing. A cooked
    /// mark on the slot is dropped: it was about the meal that was there.
    func put(
        member: PlanMember, assignment: SlotAssignment, name: String, now: Date, idempotent scope: IdempotencyScope? = nil
    ) throws(ServiceError) -> PlanSlot {
        try storage {
            try writePlan(member.household, idempotent: scope) { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                try window.check(SlotRef(date: assignment.date, slot: assignment.slot))
                try session.insert(
                    SelectionRecord(household: member.household, recipe: assignment.recipe, name: name, addedAt: now), onConflict: .ignore)
                let ref = SlotRef(date: assignment.date, slot: assignment.slot)
                // The whole row replaced: the cooked mark and the servings eaten go with the meal.
                try Self.forgetServings(session, household: member.household, ref)
                try session.insert(
                    SlotRecord(household: member.household, ref: ref, recipe: assignment.recipe, recipeName: name), onConflict: .replace)
                return try Self.slot(session, member: member, ref)
            }
        }
    }

    /// Moves a slot's meal (with its cooked mark) to another slot; an occupied target swaps.
    func move(member: PlanMember, move: SlotMove, now: Date) throws(ServiceError) -> [PlanSlot] {
        try storage {
            try writePlan(member.household) { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                try window.check(move.from, field: "from.")
                try window.check(move.to, field: "to.")
                guard var source = try Self.slotRecord(session, household: member.household, move.from) else {
                    throw ServiceError.notFound("nothing is planned for \(Self.label(move.from))", field: "from")
                }
                // A meal moved onto its own slot stays where it is.
                if move.from == move.to { return [try Self.slot(session, member: member, move.from)] }
                var target = try Self.slotRecord(session, household: member.household, move.to)
                try session.execute(Self.deleteSlot, SlotRecord.key(move.from, household: member.household))
                try session.execute(Self.deleteSlot, SlotRecord.key(move.to, household: member.household))
                try Self.swapServings(session, household: member.household, move.from, move.to)
                source.ref = move.to
                try session.insert(source)
                if target != nil {
                    target!.ref = move.from
                    try session.insert(target!)
                }
                return [try Self.slot(session, member: member, move.from), try Self.slot(session, member: member, move.to)]
            }
        }
    }

    /// Empties a slot of the week (an empty slot stays empty).
    func clear(member: PlanMember, ref: SlotRef, now: Date) throws(ServiceError) -> PlanSlot {
        try storage {
            try writePlan(member.household) { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                try window.check(ref)
                try session.execute(Self.deleteSlot, SlotRecord.key(ref, household: member.household))
                try Self.forgetServings(session, household: member.household, ref)
                return try Self.slot(session, member: member, ref)
            }
        }
    }

    /// How far back a meal can still be marked as cooked.
    static let cookedDaysBack = 7

    /// Marks a planned meal as cooked (keeping the first time it was marked), and says whose
    /// diaries already have a serving of it. Throws conflict if the member's does and nobody
    /// else was named (`others`), so a repeat never logs a serving twice.
    func markCooked(member: PlanMember, ref: SlotRef, others: [String], now: Date) throws(ServiceError) -> (slot: PlanSlot, logged: Set<String>) {
        try storage {
            try writePlan(member.household) { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                try PlanWindow.check(slot: ref.slot)
                guard ref.date <= window.today else {
                    throw ServiceError.badRequest(
                        "\(ref.date) is after today (\(window.today)): mark a meal cooked on its day or later", field: "date")
                }
                guard ref.date >= window.today.adding(days: -Self.cookedDaysBack) else {
                    throw ServiceError.badRequest("\(ref.date) is more than \(Self.cookedDaysBack) days ago", field: "date")
                }
                let current = try Self.slot(session, member: member, ref)
                guard current.recipe != nil else { throw ServiceError.notFound("nothing is planned for \(Self.label(ref))", field: "slot") }
                let logged = Set(
                    try session.values(
                        String.self, #"SELECT "user" FROM slot_eaten WHERE household = ? AND date = ? AND slot = ?"#,
                        SlotRecord.key(ref, household: member.household)))
                if let entry = current.diaryEntry, others.allSatisfy(logged.contains) {
                    throw ServiceError.conflict("\(Self.label(ref)) is already cooked and in your diary (entry \(entry))", field: "slot")
                }
                try session.execute(
                    #"UPDATE slot SET cooked_at = ? WHERE household = ? AND date = ? AND slot = ? AND cooked_at IS NULL"#,
                    [now.timeIntervalSince1970, member.household, ref.date.description, ref.slot])
                return (try Self.slot(session, member: member, ref), logged)
            }
        }
    }

    /// Records the diary entry the tracker made in `eater`'s diary for a cooked slot, if the slot
    /// still holds `recipe`, and builds the reply in the same transaction (so a keyed
    /// `plan.cooked` stores that reply with the write). The slot in the reply is `member`'s view.
    func recordDiaryEntry<Reply>(
        _ entry: Int64, eater: String, member: PlanMember, ref: SlotRef, recipe: String, reply: (PlanSlot) -> Reply
    ) throws(ServiceError) -> Reply {
        try storage {
            try writePlan(member.household) { session in
                try session.execute(
                    """
                    INSERT INTO slot_eaten (household, date, slot, "user", diary_entry)
                    SELECT household, date, slot, ?, ? FROM slot WHERE household = ? AND date = ? AND slot = ? AND recipe = ?
                    ON CONFLICT (household, date, slot, "user") DO NOTHING
                    """, [eater, entry, member.household, ref.date.description, ref.slot, recipe])
                return reply(try Self.slot(session, member: member, ref))
            }
        }
    }

    /// Forgets who ate the meal at `ref` (it was replaced or cleared); their diaries keep it.
    static func forgetServings(_ session: any SQLSession, household: String, _ ref: SlotRef) throws {
        try session.execute("DELETE FROM slot_eaten WHERE household = ? AND date = ? AND slot = ?", SlotRecord.key(ref, household: household))
    }

    /// The servings eaten of the meals at `first` and `second` change places with their meals.
    private static func swapServings(_ session: any SQLSession, household: String, _ first: SlotRef, _ second: SlotRef) throws {
        let move = "UPDATE slot_eaten SET date = ?, slot = ? WHERE household = ? AND date = ? AND slot = ?"
        // Slot 0 holds no meal: a place to park the first's while the second's move.
        try session.execute(move, [first.date.description, 0, household, first.date.description, first.slot])
        try session.execute(move, [first.date.description, first.slot, household, second.date.description, second.slot])
        try session.execute(move, [second.date.description, second.slot, household, first.date.description, 0])
    }

    // MARK: Helpers

    /// A write to the household's plan: its version moves in the same transaction, so a
    /// `plan.wait` that reads the new version reads the change with it.
    func writePlan<T>(_ household: String, _ body: (any SQLSession) throws -> T) throws -> T {
        try database.write { session in
            let value = try body(session)
            try Self.moveVersion(session, household: household)
            return value
        }
    }

    /// ``writePlan(_:_:)`` whose value is a keyed write's reply (``SousDatabase/write(idempotent:_:)``).
    func writePlan<Reply: Encodable>(
        _ household: String, idempotent scope: IdempotencyScope?, _ body: (any SQLSession) throws -> Reply
    ) throws -> Reply {
        try database.write(idempotent: scope) { session in
            let value = try body(session)
            try Self.moveVersion(session, household: household)
            return value
        }
    }

    private static func moveVersion(_ session: any SQLSession, household: String) throws {
        try session.execute(
            "INSERT INTO plan_version (household, version) VALUES (?, 1) ON CONFLICT (household) DO UPDATE SET version = plan_version.version + 1",
            [household])
    }

    /// The household's plan version (0 before its first change).
    func version(household: String) throws(ServiceError) -> Int64 {
        try storage { try database.read { session in try Self.version(session, household: household) } }
    }

    static func version(_ session: any SQLSession, household: String) throws -> Int64 {
        try session.value(Int64.self, "SELECT version FROM plan_version WHERE household = ?", [household]) ?? 0
    }

    private static let deleteSlot = #"DELETE FROM slot WHERE household = ? AND date = ? AND slot = ?"#

    private static func selection(_ session: any SQLSession, household: String, window: PlanWindow) throws -> [SelectedRecipe] {
        // Ordered here rather than by the statement: a handful of rows, and SQLite would sort
        // them with a sorter of its own on every week read. Columns read by position.
        try session.rows(
            """
            SELECT s.id, s.recipe, s.name, s.added_at,
                (SELECT COUNT(*) FROM slot WHERE slot.household = s.household AND slot.recipe = s.recipe AND slot.date BETWEEN ? AND ?) AS planned
            FROM selection s WHERE s.household = ?
            """, [window.today.description, window.last.description, household]
        )
        .map { row -> (Int64, SelectedRecipe) in
            let recipe = SelectedRecipe(
                id: row["recipe"], name: row["name"], addedAt: Date(timeIntervalSince1970: row["added_at"]), plannedSlots: row["planned"])
            return (row["id"], recipe)
        }
        .sorted { $0.0 < $1.0 }.map { $0.1 }
    }

    /// The household's days, each slot with the member's own diary entry for it.
    static func days(_ session: any SQLSession, member: PlanMember, from: LocalDate, to: LocalDate, today: LocalDate) throws -> [PlanDay] {
        let records = try session.rows(
            """
            SELECT s.*, e.diary_entry FROM slot s
            LEFT JOIN slot_eaten e ON e.household = s.household AND e.date = s.date AND e.slot = s.slot AND e."user" = ?
            WHERE s.household = ? AND s.date BETWEEN ? AND ?
            """, [member.user, member.household, from.description, to.description]
        )
        .map(SlotRecord.init(row:))
        let filled = Dictionary(records.map { ($0.ref, $0.planSlot) }, uniquingKeysWith: { first, _ in first })
        let count = from.days(to: to) + 1
        return (0..<max(count, 0)).map { offset in
            let date = from.adding(days: offset)
            let slots = PlanSlotKind.slots.map { number in
                filled[SlotRef(date: date, slot: number)] ?? PlanSlot(date: date, slot: number, meal: PlanSlotKind.meal(of: number)!)
            }
            return PlanDay(date: date, weekday: date.isoWeekday, isToday: date == today, slots: slots)
        }
    }

    static func slotRecord(_ session: any SQLSession, household: String, _ ref: SlotRef) throws -> SlotRecord? {
        try session.fetchOne(
            SlotRecord.self, #"SELECT * FROM slot WHERE household = ? AND date = ? AND slot = ?"#, SlotRecord.key(ref, household: household))
    }

    /// The slot, with the member's own diary entry for it.
    private static func slot(_ session: any SQLSession, member: PlanMember, _ ref: SlotRef) throws -> PlanSlot {
        let row = try session.rows(
            """
            SELECT s.*, e.diary_entry FROM slot s
            LEFT JOIN slot_eaten e ON e.household = s.household AND e.date = s.date AND e.slot = s.slot AND e."user" = ?
            WHERE s.household = ? AND s.date = ? AND s.slot = ?
            """, [member.user, member.household, ref.date.description, ref.slot]
        ).first
        return try row.map(SlotRecord.init(row:))?.planSlot ?? PlanSlot(date: ref.date, slot: ref.slot, meal: PlanSlotKind.meal(of: ref.slot)!)
    }

    static func label(_ ref: SlotRef) -> String {
        "\(PlanSlotKind.meal(of: ref.slot)?.rawValue ?? "slot \(ref.slot)") on \(ref.date)"
    }

    func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        try ServiceError.storage("planner storage failed", work)
    }
}
