import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// Templates: the household's week kept under a name, applied again by hand or every few weeks.
extension PlannerStore {
    /// Templates one household keeps, at most.
    static let maxTemplates = 50

    /// Keeps the visible week's planned meals as template `name` (replacing one of that name
    /// only when `replace`; its repeat is kept).
    func saveTemplate(member: PlanMember, name: String, replace: Bool, now: Date) throws(ServiceError) -> PlanTemplate {
        try storage {
            try database.write { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                let days = try Self.days(session, member: member, from: window.today, to: window.last, today: window.today)
                let slots = days.flatMap(\.slots).compactMap { slot -> TemplateSlot? in
                    guard let recipe = slot.recipe else { return nil }
                    return TemplateSlot(weekday: slot.date.isoWeekday, slot: slot.slot, recipe: recipe, recipeName: slot.recipeName ?? recipe)
                }
                guard !slots.isEmpty else {
                    throw ServiceError.badRequest("nothing is planned this week: plan some meals, then save them as a template", field: "name")
                }
                let existing = try Self.templateRow(session, household: member.household, name: name)
                if existing != nil {
                    guard replace else {
                        throw ServiceError.conflict("a template named \"\(name)\" exists; choose another name or replace it", field: "name")
                    }
                    try session.execute(#"DELETE FROM plan_template_slot WHERE household = ? AND template = ?"#, [member.household, name])
                    try session.execute(
                        #"UPDATE plan_template SET created_at = ? WHERE household = ? AND name = ?"#,
                        [now.timeIntervalSince1970, member.household, name])
                } else {
                    let count = try session.value(Int.self, #"SELECT COUNT(*) FROM plan_template WHERE household = ?"#, [member.household]) ?? 0
                    guard count < Self.maxTemplates else {
                        throw ServiceError(
                            .quotaExceeded, "a household keeps at most \(Self.maxTemplates) templates; delete one first", field: "name")
                    }
                    try session.execute(
                        #"INSERT INTO plan_template (household, name, created_at) VALUES (?, ?, ?)"#,
                        [member.household, name, now.timeIntervalSince1970])
                }
                for slot in slots {
                    try session.execute(
                        #"INSERT INTO plan_template_slot (household, template, weekday, slot, recipe, recipe_name) VALUES (?, ?, ?, ?, ?, ?)"#,
                        [member.household, name, slot.weekday, slot.slot, slot.recipe, slot.recipeName])
                }
                return try Self.template(session, household: member.household, name: name)!
            }
        }
    }

    func templates(household: String) throws(ServiceError) -> [PlanTemplate] {
        try storage { try database.read { session in try Self.templates(session, household: household) } }
    }

    func template(household: String, name: String) throws(ServiceError) -> PlanTemplate {
        let found = try storage { try database.read { session in try Self.template(session, household: household, name: name) } }
        guard let found else { throw ServiceError.notFound("your household has no template \"\(name)\"", field: "template") }
        return found
    }

    func deleteTemplate(household: String, name: String) throws(ServiceError) -> [PlanTemplate] {
        try storage {
            try database.write { session in
                guard try session.execute(#"DELETE FROM plan_template WHERE household = ? AND name = ?"#, [household, name]) == 1 else {
                    throw ServiceError.notFound("your household has no template \"\(name)\"", field: "template")
                }
                for table in ["plan_template_slot", "plan_template_applied"] {
                    try session.execute(#"DELETE FROM \#(table) WHERE household = ? AND template = ?"#, [household, name])
                }
                return try Self.templates(session, household: household)
            }
        }
    }

    /// How a template application goes: which dates, how it meets planned slots, and which of
    /// its recipes the catalog no longer has.
    struct TemplateApplication: Sendable {
        var from: LocalDate
        var to: LocalDate
        var mode: TemplateMode
        /// Recipes of the template the catalog no longer has (deleted, or no longer visible).
        var gone: Set<String>
        /// Only these dates (a repeat's weeks), and each at most once for the template: a date
        /// applied before, whose slots someone changed afterwards, is left as they made it.
        var onlyOnce: Set<LocalDate>?
    }

    /// Applies `template` to the days of `application` as one write: slots written, slots left
    /// and why, and the week after.
    func applyTemplate(
        member: PlanMember, template: PlanTemplate, _ application: TemplateApplication, now: Date
    ) throws(ServiceError) -> TemplateApplied {
        try storage {
            try writePlan(member.household) { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                let meals = Dictionary(template.slots.map { (Key(weekday: $0.weekday, slot: $0.slot), $0) }, uniquingKeysWith: { first, _ in first })
                var changed: [SlotRef] = []
                var skipped: [SkippedSlot] = []
                var date = max(application.from, window.today)
                while date <= min(application.to, window.last) {
                    defer { date = date.adding(days: 1) }
                    if let dates = application.onlyOnce {
                        guard dates.contains(date) else { continue }
                        let inserted = try session.execute(
                            #"INSERT INTO plan_template_applied (household, template, date) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"#,
                            [member.household, template.name, date.description])
                        guard inserted == 1 else { continue }
                    }
                    for number in PlanSlotKind.slots {
                        let ref = SlotRef(date: date, slot: number)
                        let meal = meals[Key(weekday: date.isoWeekday, slot: number)]
                        let current = try Self.slotRecord(session, household: member.household, ref)
                        if current?.recipe == meal?.recipe { continue }
                        if let current, application.mode == .fill || current.cookedAt != nil {
                            guard let meal else { continue }
                            let why = current.cookedAt != nil ? "cooked already" : "\(current.recipeName) is planned there"
                            skipped.append(SkippedSlot(date: date, slot: number, recipe: meal.recipe, reason: why))
                            continue
                        }
                        guard let meal else {
                            try session.execute(
                                #"DELETE FROM slot WHERE household = ? AND date = ? AND slot = ?"#, SlotRecord.key(ref, household: member.household))
                            try Self.forgetServings(session, household: member.household, ref)
                            changed.append(ref)
                            continue
                        }
                        guard !application.gone.contains(meal.recipe) else {
                            skipped.append(
                                SkippedSlot(
                                    date: date, slot: number, recipe: meal.recipe, reason: "\(meal.recipeName) is no longer in the catalog"))
                            continue
                        }
                        try session.insert(
                            SelectionRecord(household: member.household, recipe: meal.recipe, name: meal.recipeName, addedAt: now),
                            onConflict: .ignore)
                        try Self.forgetServings(session, household: member.household, ref)
                        try session.insert(
                            SlotRecord(household: member.household, ref: ref, recipe: meal.recipe, recipeName: meal.recipeName), onConflict: .replace)
                        changed.append(ref)
                    }
                }
                let days = try Self.days(session, member: member, from: window.today, to: window.last, today: window.today)
                return TemplateApplied(template: template, changed: changed, skipped: skipped, days: days)
            }
        }
    }

    /// Sets (or, with `every` nil, ends) the template's repeat, following `member`'s week.
    func setRepeat(member: PlanMember, name: String, every: Int?, from: LocalDate?) throws(ServiceError) -> PlanTemplate {
        try storage {
            try database.write { session in
                let updated = try session.execute(
                    #"UPDATE plan_template SET repeat_every = ?, repeat_from = ?, repeat_by = ? WHERE household = ? AND name = ?"#,
                    [every, every == nil ? nil : from?.description, every == nil ? nil : member.user, member.household, name])
                guard updated == 1 else { throw ServiceError.notFound("your household has no template \"\(name)\"", field: "template") }
                // A new repeat starts afresh: the dates an earlier one filled may be filled again.
                try session.execute(#"DELETE FROM plan_template_applied WHERE household = ? AND template = ?"#, [member.household, name])
                return try Self.template(session, household: member.household, name: name)!
            }
        }
    }

    /// A template that repeats, with whose week it follows.
    struct Repeating: Sendable {
        var member: PlanMember
        var template: PlanTemplate
        var repeats: TemplateRepeat
    }

    /// Every template that repeats, of every household.
    func repeatingTemplates() throws(ServiceError) -> [Repeating] {
        try storage {
            try database.read { session in
                let rows = try session.rows(
                    #"SELECT household, name, repeat_by FROM plan_template WHERE repeat_every IS NOT NULL ORDER BY household, name"#)
                return try rows.compactMap { row -> Repeating? in
                    let household: String = row["household"]
                    guard let template = try Self.template(session, household: household, name: row["name"]), let repeats = template.repeats
                    else { return nil }
                    return Repeating(member: PlanMember(user: row["repeat_by"], household: household), template: template, repeats: repeats)
                }
            }
        }
    }

    // MARK: Reading

    private struct Key: Hashable {
        var weekday: Int
        var slot: Int
    }

    private static func templateRow(_ session: any SQLSession, household: String, name: String) throws -> Row? {
        try session.rows(#"SELECT * FROM plan_template WHERE household = ? AND name = ?"#, [household, name]).first
    }

    static func template(_ session: any SQLSession, household: String, name: String) throws -> PlanTemplate? {
        guard let row = try templateRow(session, household: household, name: name) else { return nil }
        return try template(session, row: row)
    }

    static func templates(_ session: any SQLSession, household: String) throws -> [PlanTemplate] {
        try session.rows(#"SELECT * FROM plan_template WHERE household = ? ORDER BY name"#, [household]).map { try template(session, row: $0) }
    }

    private static func template(_ session: any SQLSession, row: Row) throws -> PlanTemplate {
        let household: String = row["household"]
        let name: String = row["name"]
        let slots = try session.rows(
            #"SELECT weekday, slot, recipe, recipe_name FROM plan_template_slot WHERE household = ? AND template = ? ORDER BY weekday, slot"#,
            [household, name]
        ).map { TemplateSlot(weekday: $0["weekday"], slot: $0["slot"], recipe: $0["recipe"], recipeName: $0["recipe_name"]) }
        var repeats: TemplateRepeat?
        if let every = row["repeat_every"] as Int?, let text = row["repeat_from"] as String? {
            guard let from = LocalDate(text) else { throw DatabaseError(message: "template repeat date \(text) is not a date") }
            repeats = TemplateRepeat(everyWeeks: every, from: from)
        }
        return PlanTemplate(name: name, slots: slots, createdAt: Date(timeIntervalSince1970: row["created_at"]), repeats: repeats)
    }
}
