import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// The planner's part of a user's archive: the cooking profile, the selection and every filled
/// slot (past days included). The account itself (name, e-mail, password) is not in it: an
/// archive is imported into an account its owner made.
extension PlannerStore {
    func archive(user: String) throws(ServiceError) -> PlannerArchive {
        try storage {
            try database.read { session in
                PlannerArchive(
                    profile: try Self.profile(session, user: user),
                    selection: try session.fetchAll(SelectionRecord.self, #"SELECT * FROM selection WHERE "user" = ? ORDER BY id"#, [user]).map {
                        ArchivedSelection(recipe: $0.recipe, name: $0.name, addedAt: $0.addedAt)
                    },
                    slots: try session.fetchAll(SlotRecord.self, #"SELECT * FROM slot WHERE "user" = ? ORDER BY date, slot"#, [user]).map(\.planSlot))
            }
        }
    }

    /// Writes a checked archive for `user` in one transaction (nothing when `dryRun`); conflict
    /// when the user already has a profile, a selection or slots.
    func restore(_ archive: PlannerArchive, user: String, dryRun: Bool, now: Date) throws(ServiceError) -> ArchiveImported {
        let counts = ["selection": archive.selection.count, "slots": archive.slots.count]
        return try storage {
            try database.write { session in
                try session.requireNoRows(of: user, in: ["profile", "selection", "slot"], what: "a profile or a plan in the planner")
                guard !dryRun else { return ArchiveImported(counts: counts) }
                try session.insert(ProfileRecord(user: user, profile: archive.profile, updatedAt: now))
                for picked in archive.selection {
                    try session.insert(SelectionRecord(user: user, recipe: picked.recipe, name: picked.name, addedAt: picked.addedAt))
                }
                for slot in archive.slots {
                    guard let recipe = slot.recipe else { continue }
                    try session.insert(
                        SlotRecord(
                            user: user, ref: SlotRef(date: slot.date, slot: slot.slot), recipe: recipe, recipeName: slot.recipeName ?? recipe,
                            cookedAt: slot.cookedAt, diaryEntry: slot.diaryEntry))
                }
                return ArchiveImported(counts: counts)
            }
        }
    }
}

extension PlannerHandlers {
    func exportArchive(_ request: Empty, user: String, context: RequestContext) throws -> PlannerArchive {
        try store.archive(user: user)
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
        var checked = archive
        checked.profile = profile
        let result = try store.restore(checked, user: user, dryRun: request.dryRun ?? false, now: now)
        if request.dryRun != true {
            profileChanged(user: user, profile: profile)
            planChanged(user: user, dates: Array(Set(archive.slots.map(\.date))).sorted())
        }
        return result
    }

    /// A recipe id and name as stored: 1–200 characters each.
    static func checkRecipe(_ id: String, name: String, field: String) throws(ServiceError) {
        guard !id.isEmpty, id.count <= 200 else { throw .badRequest("a recipe id is 1 to 200 characters", field: "\(field).recipe") }
        guard !name.isEmpty, name.count <= 200 else { throw .badRequest("a recipe name is 1 to 200 characters", field: "\(field).name") }
    }
}
