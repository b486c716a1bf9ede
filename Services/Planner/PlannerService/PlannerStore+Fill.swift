import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// Writing a fill's choices, and undoing a fill.
extension PlannerStore {
    /// Writes `choices` into the slots that are still empty (one filled meanwhile keeps what it
    /// has), adding their recipes to the selection, and records them as one fill. `reply` gets
    /// the fill's number (0 when nothing was written), the slots written and the week after, and
    /// builds the reply in the same transaction (so a keyed `plan.fill` stores it with the write).
    func fill<Reply>(
        member: PlanMember, choices: [FilledSlot], seed: UInt64, now: Date, reply: (Int64, Set<SlotRef>, [PlanDay]) -> Reply
    ) throws(ServiceError) -> Reply {
        try storage {
            try writePlan(member.household) { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                let fill = (try session.value(Int64.self, #"SELECT MAX(id) FROM plan_fill WHERE household = ?"#, [member.household]) ?? 0) + 1
                var written: Set<SlotRef> = []
                for choice in choices {
                    let ref = SlotRef(date: choice.date, slot: choice.slot)
                    guard window.contains(ref.date), try Self.slotRecord(session, household: member.household, ref) == nil else { continue }
                    let selected =
                        try session.value(
                            Int.self, #"SELECT 1 FROM selection WHERE household = ? AND recipe = ?"#, [member.household, choice.recipe]) != nil
                    if !selected {
                        try session.insert(SelectionRecord(household: member.household, recipe: choice.recipe, name: choice.recipeName, addedAt: now))
                        try session.execute(
                            #"INSERT INTO plan_fill_recipe (household, fill, recipe) VALUES (?, ?, ?)"#, [member.household, fill, choice.recipe])
                    }
                    try session.insert(SlotRecord(household: member.household, ref: ref, recipe: choice.recipe, recipeName: choice.recipeName))
                    try session.execute(
                        #"INSERT INTO plan_fill_slot (household, fill, date, slot, recipe) VALUES (?, ?, ?, ?, ?)"#,
                        [member.household, fill, ref.date.description, ref.slot, choice.recipe])
                    written.insert(ref)
                }
                if !written.isEmpty {
                    try session.execute(
                        #"INSERT INTO plan_fill (household, id, seed, created_at) VALUES (?, ?, ?, ?)"#,
                        [member.household, fill, String(seed), now.timeIntervalSince1970])
                }
                let days = try Self.days(session, member: member, from: window.today, to: window.last, today: window.today)
                return reply(written.isEmpty ? 0 : fill, written, days)
            }
        }
    }

    /// Undoes fill `number` (default the latest): empties the slots from today on that still
    /// hold the recipe it put there and are not cooked, takes out of the selection the recipes
    /// it added there that no slot holds any more, and forgets the fill.
    func unfill(member: PlanMember, number: Int64?, now: Date) throws(ServiceError) -> PlanUnfillResult {
        try storage {
            try writePlan(member.household) { session in
                let window = PlanWindow(now: now, profile: try Self.profile(session, user: member.user))
                let fill: Int64
                if let number {
                    guard
                        try session.value(Int64.self, #"SELECT id FROM plan_fill WHERE household = ? AND id = ?"#, [member.household, number]) != nil
                    else {
                        throw ServiceError.notFound("no fill \(number) to undo (it may be undone already)", field: "fill")
                    }
                    fill = number
                } else {
                    guard let latest = try session.value(Int64.self, #"SELECT MAX(id) FROM plan_fill WHERE household = ?"#, [member.household]) else {
                        throw ServiceError.notFound("there is no fill to undo", field: "fill")
                    }
                    fill = latest
                }
                let rows = try session.rows(
                    #"SELECT date, slot, recipe FROM plan_fill_slot WHERE household = ? AND fill = ? ORDER BY date, slot"#, [member.household, fill])
                var cleared: [SlotRef] = []
                var kept: [SlotRef] = []
                for row in rows {
                    let text: String = row["date"]
                    guard let date = LocalDate(text) else { throw ServiceError.internal("fill slot date \(text) is not a date") }
                    let ref = SlotRef(date: date, slot: row["slot"])
                    let current = try Self.slotRecord(session, household: member.household, ref)
                    if window.contains(date), let current, current.recipe == row["recipe"], current.cookedAt == nil {
                        try session.execute(
                            #"DELETE FROM slot WHERE household = ? AND date = ? AND slot = ?"#, SlotRecord.key(ref, household: member.household))
                        cleared.append(ref)
                    } else {
                        kept.append(ref)
                    }
                }
                let added = try session.values(
                    String.self, #"SELECT recipe FROM plan_fill_recipe WHERE household = ? AND fill = ? ORDER BY recipe"#, [member.household, fill])
                var unselected: [String] = []
                for recipe in added
                where try session.value(Int.self, #"SELECT 1 FROM slot WHERE household = ? AND recipe = ? LIMIT 1"#, [member.household, recipe])
                    == nil
                {
                    try session.execute(#"DELETE FROM selection WHERE household = ? AND recipe = ?"#, [member.household, recipe])
                    unselected.append(recipe)
                }
                for table in ["plan_fill_slot", "plan_fill_recipe"] {
                    try session.execute(#"DELETE FROM \#(table) WHERE household = ? AND fill = ?"#, [member.household, fill])
                }
                try session.execute(#"DELETE FROM plan_fill WHERE household = ? AND id = ?"#, [member.household, fill])
                return PlanUnfillResult(fill: fill, cleared: cleared, kept: kept, unselected: unselected)
            }
        }
    }
}
