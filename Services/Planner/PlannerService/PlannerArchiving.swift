import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// The planner's part of a user's archive: the cooking profile, and the selection and every
/// filled slot (past days included) of their household's plan, which every member exports. The
/// account itself (name, e-mail, password) is not in it: an archive is imported into an
/// account its owner made, and its plan only into a household nobody else is in.
extension PlannerStore {
    func archive(member: PlanMember) throws(ServiceError) -> PlannerArchive {
        try storage {
            try database.read { session in
                let household = [member.household]
                return PlannerArchive(
                    profile: try Self.profile(session, user: member.user),
                    selection: try session.fetchAll(SelectionRecord.self, #"SELECT * FROM selection WHERE household = ? ORDER BY id"#, household).map
                    {
                        ArchivedSelection(recipe: $0.recipe, name: $0.name, addedAt: $0.addedAt)
                    },
                    // Each slot with the exporter's own serving of it.
                    slots: try session.fetchAll(
                        SlotRecord.self,
                        """
                        SELECT s.*, e.diary_entry FROM slot s
                        LEFT JOIN slot_eaten e ON e.household = s.household AND e.date = s.date AND e.slot = s.slot AND e."user" = ?
                        WHERE s.household = ? ORDER BY s.date, s.slot
                        """, [member.user, member.household]
                    ).map(\.planSlot),
                    friends: try FriendStore.list(session, user: member.user),
                    templates: try Self.templates(session, household: member.household))
            }
        }
    }

    /// Writes a checked archive for `member` in one transaction (nothing when `dryRun`); conflict
    /// when the user already has a profile, their household a selection or slots, or when the
    /// archive holds a plan and others share the household.
    func restore(_ archive: PlannerArchive, member: PlanMember, dryRun: Bool, now: Date) throws(ServiceError) -> ArchiveImported {
        let templates = archive.templates ?? []
        let counts = ["selection": archive.selection.count, "slots": archive.slots.count, "templates": templates.count]
        return try storage {
            try writePlan(member.household) { session in
                try session.requireNoRows(of: member.user, in: ["profile"], what: "a profile in the planner")
                try session.requireNoRows(
                    of: member.household, in: ["selection", "slot", "plan_template"], column: "household", what: "a plan in the planner")
                if !archive.selection.isEmpty || !archive.slots.isEmpty || !templates.isEmpty,
                    try HouseholdStore.members(session, household: member.household).count > 1
                {
                    throw ServiceError.conflict(
                        "your household is shared: an archive's plan is imported only into a household nobody else is in (household.leave first)",
                        field: "archive.slots")
                }
                guard !dryRun else { return ArchiveImported(counts: counts) }
                try session.insert(ProfileRecord(user: member.user, profile: archive.profile, updatedAt: now))
                if let friends = archive.friends {
                    try FriendStore.save(.init(shareWithAll: friends.shareWithAll, competes: friends.competes), session, user: member.user)
                }
                for picked in archive.selection {
                    try session.insert(
                        SelectionRecord(household: member.household, recipe: picked.recipe, name: picked.name, addedAt: picked.addedAt))
                }
                for slot in archive.slots {
                    guard let recipe = slot.recipe else { continue }
                    try session.insert(
                        SlotRecord(
                            household: member.household, ref: SlotRef(date: slot.date, slot: slot.slot), recipe: recipe,
                            recipeName: slot.recipeName ?? recipe,
                            cookedAt: slot.cookedAt))
                    if let entry = slot.diaryEntry {
                        try session.execute(
                            #"INSERT INTO slot_eaten (household, date, slot, "user", diary_entry) VALUES (?, ?, ?, ?, ?)"#,
                            [member.household, slot.date.description, slot.slot, member.user, entry])
                    }
                }
                for template in templates {
                    try session.execute(
                        #"INSERT INTO plan_template (household, name, created_at, repeat_every, repeat_from, repeat_by) VALUES (?, ?, ?, ?, ?, ?)"#,
                        [
                            member.household, template.name, template.createdAt.timeIntervalSince1970, template.repeats?.everyWeeks,
                            template.repeats?.from.description, template.repeats == nil ? nil : member.user,
                        ])
                    for slot in template.slots {
                        try session.execute(
                            #"INSERT INTO plan_template_slot (household, template, weekday, slot, recipe, recipe_name) VALUES (?, ?, ?, ?, ?, ?)"#,
                            [member.household, template.name, slot.weekday, slot.slot, slot.recipe, slot.recipeName])
                    }
                }
                return ArchiveImported(counts: counts)
            }
        }
    }
}

extension PlannerHandlers {
    func exportArchive(_ request: Empty, user: String, context: RequestContext) throws -> PlannerArchive {
        try store.archive(member: try member(user, context))
    }

    /// Checks the profile as `profile.update` does (dislikes against the catalog), the selection
    /// and the slots, then writes them; announces the profile and the plan.
    func importArchive(_ request: PlannerArchiveImport, user: String, context: RequestContext) async throws -> ArchiveImported {
        let archive = request.archive
        try ArchiveFormat.check(archive.version)
        let given = archive.profile
        let update = ProfileUpdate(
            people: given.people, patience: given.patience, diets: given.diets, allergens: given.allergens, dislikes: given.dislikes,
            equipment: given.equipment, filterDiets: given.filterDiets, filterAllergens: given.filterAllergens,
            filterDislikes: given.filterDislikes, filterEquipment: given.filterEquipment, filterPatience: given.filterPatience,
            timeZone: given.timeZone, remindersEnabled: given.remindersEnabled, reminderHour: given.reminderHour, units: given.units)
        let profile: CookingProfile
        do {
            profile = try await ProfileValidation.validated(update, over: .defaults, catalog: catalog, user: user, context: context)
        } catch let error as ServiceError {
            throw error.nested(under: "archive.profile")
        }
        var picked: Set<String> = []
        for (index, selection) in archive.selection.enumerated() {
            try Self.checkRecipe(selection.recipe, name: selection.name, field: "archive.selection.\(index)")
            guard picked.insert(selection.recipe).inserted else {
                throw ServiceError.badRequest("\(selection.recipe) is picked twice", field: "archive.selection.\(index).recipe")
            }
        }
        var filled: Set<SlotRef> = []
        for (index, slot) in archive.slots.enumerated() {
            let field = "archive.slots.\(index)"
            try PlanWindow.check(slot: slot.slot, field: "\(field).slot")
            guard let recipe = slot.recipe else { throw ServiceError.badRequest("a slot in an archive holds a recipe", field: "\(field).recipe") }
            try Self.checkRecipe(recipe, name: slot.recipeName ?? recipe, field: field)
            guard filled.insert(SlotRef(date: slot.date, slot: slot.slot)).inserted else {
                throw ServiceError.badRequest(
                    "\(PlannerStore.label(SlotRef(date: slot.date, slot: slot.slot))) is in the archive twice", field: field)
            }
        }
        try Self.checkTemplates(archive.templates ?? [])
        var checked = archive
        checked.profile = profile
        let member = try member(user, context)
        let result = try store.restore(checked, member: member, dryRun: request.dryRun ?? false, now: now)
        if request.dryRun != true {
            profileChanged(user: user, profile: profile)
            planChanged(member, dates: Array(Set(archive.slots.map(\.date))).sorted())
        }
        return result
    }

    /// Templates as `plan.saveTemplate` and `plan.repeatTemplate` would have made them.
    static func checkTemplates(_ templates: [PlanTemplate]) throws(ServiceError) {
        guard templates.count <= PlannerStore.maxTemplates else {
            throw .badRequest("at most \(PlannerStore.maxTemplates) templates", field: "archive.templates")
        }
        var names: Set<String> = []
        for (index, template) in templates.enumerated() {
            let field = "archive.templates.\(index)"
            let name = try templateName(template.name, field: "\(field).name")
            guard name == template.name, names.insert(name).inserted else {
                throw .badRequest("\"\(template.name)\" is not a template name, or is in the archive twice", field: "\(field).name")
            }
            guard !template.slots.isEmpty, template.slots.count <= 14 else {
                throw .badRequest("a template holds 1 to 14 meals", field: "\(field).slots")
            }
            var taken: Set<[Int]> = []
            for (position, slot) in template.slots.enumerated() {
                let slotField = "\(field).slots.\(position)"
                guard (1...7).contains(slot.weekday) else { throw .badRequest("weekday is 1 (Monday) to 7 (Sunday)", field: "\(slotField).weekday") }
                try PlanWindow.check(slot: slot.slot, field: "\(slotField).slot")
                try checkRecipe(slot.recipe, name: slot.recipeName, field: slotField)
                guard taken.insert([slot.weekday, slot.slot]).inserted else {
                    throw .badRequest("weekday \(slot.weekday) slot \(slot.slot) is in the template twice", field: slotField)
                }
            }
            if let repeats = template.repeats, !(1...8).contains(repeats.everyWeeks) {
                throw .badRequest("everyWeeks must be 1 to 8", field: "\(field).repeats.everyWeeks")
            }
        }
    }

    /// A recipe id and name as stored: 1–200 characters each.
    static func checkRecipe(_ id: String, name: String, field: String) throws(ServiceError) {
        guard !id.isEmpty, id.count <= 200 else { throw .badRequest("a recipe id is 1 to 200 characters", field: "\(field).recipe") }
        guard !name.isEmpty, name.count <= 200 else { throw .badRequest("a recipe name is 1 to 200 characters", field: "\(field).name") }
    }
}
