import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SousClient
import SousSchema
import SousWire

/// The household's week: 7 days × lunch and dinner, planned, moved (drag and drop or a menu),
/// cleared, filled, cooked into the diaries, and its calendar.
struct WeekPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/week") { _, context in try await weekPage(context) }
        router.post("/week/put") { _, context in
            try await act(context) { form, token in
                let assignment = SlotAssignment(
                    date: try Self.date(form, "date"), slot: try Self.slot(form, "slot"), recipe: try form.required("recipe", label: "Recipe"))
                _ = try await app.backend.planner.call(PlannerAPI.putSlot, assignment, session: token)
            }
        }
        router.post("/week/move") { _, context in
            try await act(context) { form, token in
                let from = SlotRef(date: try Self.date(form, "fromDate"), slot: try Self.slot(form, "fromSlot"))
                let to: SlotRef
                if let target = form.text("to") {
                    // The menu sends "date slot" in one value.
                    let parts = target.split(separator: " ")
                    guard parts.count == 2, let date = LocalDate(String(parts[0])), let slot = Int(parts[1]), (1...2).contains(slot) else {
                        throw WebError.field("to", "Choose a slot of this week to move to")
                    }
                    to = SlotRef(date: date, slot: slot)
                } else {
                    to = SlotRef(date: try Self.date(form, "toDate"), slot: try Self.slot(form, "toSlot"))
                }
                _ = try await app.backend.planner.call(PlannerAPI.moveSlot, SlotMove(from: from, to: to), session: token)
            }
        }
        router.post("/week/choose") { _, context in
            try await act(context) { form, token in
                _ = try await app.backend.planner.call(
                    PlannerAPI.addRecipe, RecipeID(id: try form.required("recipe", label: "Recipe")), session: token)
            }
        }
        router.post("/week/clear") { _, context in
            try await act(context) { form, token in
                let slot = SlotRef(date: try Self.date(form, "date"), slot: try Self.slot(form, "slot"))
                _ = try await app.backend.planner.call(PlannerAPI.clearSlot, slot, session: token)
            }
        }
        router.post("/week/cooked") { _, context in
            var notice: String?
            let response = try await act(context) { form, token in
                let cooked = CookedSlot(
                    date: try Self.date(form, "date"), slot: try Self.slot(form, "slot"),
                    alsoEatenBy: form.all("alsoEatenBy").isEmpty ? nil : form.all("alsoEatenBy"))
                let result = try await app.backend.planner.call(PlannerAPI.cooked, cooked, session: token)
                notice =
                    result.logged ? "Logged a serving in your diary." : "Marked cooked; your diary could not be written: \(result.loggingError ?? "")"
            }
            return notice == nil ? response : try await weekPage(context, notice: notice)
        }
        router.post("/week/fill") { _, context in
            var notice: String?
            let response = try await act(context) { form, token in
                let fill = PlanFill(weeklyBudget: try form.number("weeklyBudget", label: "Weekly budget", in: 0...10_000))
                let result = try await app.backend.planner.call(PlannerAPI.fill, fill, session: token)
                notice =
                    "Filled \(result.filled.count) slot\(result.filled.count == 1 ? "" : "s")"
                    + (result.unfilled.isEmpty ? "." : "; \(result.unfilled.count) left empty: \(result.unfilled.first!.reason)")
            }
            return notice == nil ? response : try await weekPage(context, notice: notice)
        }
        router.post("/week/unfill") { _, context in
            try await act(context) { _, token in
                _ = try await app.backend.planner.call(PlannerAPI.unfill, PlanFillRef(), session: token)
            }
        }
        router.get("/week/calendar.ics") { _, context in
            let session = try context.signedIn()
            let export = try await app.backend.planner.call(PlannerAPI.calendar, CalendarRequest(), session: session.token)
            return Response(
                status: .ok, headers: [.contentType: "text/calendar; charset=utf-8", .contentDisposition: "attachment; filename=\"sous-week.ics\""],
                body: ResponseBody(byteBuffer: ByteBuffer(string: export.calendar)))
        }
    }

    /// A week action: done, back to the week (or, from a script, 204); refused, the week again
    /// with the reason.
    private func act(_ context: WebContext, _ action: (Form, String) async throws -> Void) async throws -> Response {
        let session = try context.signedIn()
        return try await app.submit {
            try await action(context.form, session.token)
            return context.form.has("fetch") ? Response(status: .noContent) : Views.seeOther("/week")
        } orShow: { error in
            try await weekPage(context, error: error)
        }
    }

    static func date(_ form: Form, _ name: String) throws(WebError) -> LocalDate {
        guard let text = form.text(name), let date = LocalDate(text) else { throw .field(name, "Choose a day of this week") }
        return date
    }

    static func slot(_ form: Form, _ name: String) throws(WebError) -> Int {
        guard let slot = try form.integer(name, label: "Slot", in: 1...2) else { throw .field(name, "Choose lunch or dinner") }
        return slot
    }

    private func weekPage(_ context: WebContext, error: WebError? = nil, notice: String? = nil) async throws -> Response {
        let session = try context.signedIn()
        async let household = app.backend.planner.call(HouseholdAPI.get, Empty(), session: session.token)
        let week = try await app.backend.planner.call(PlannerAPI.getPlan, Empty(), session: session.token)
        let others = try await household.members.filter { $0.user != session.user }.map { ["user": $0.user, "name": $0.name] }
        let selection = week.selection.map { recipe -> [String: Any] in
            var values: [String: Any] = ["id": recipe.id, "name": recipe.name]
            if recipe.plannedSlots > 0 { values["plannedSlots"] = recipe.plannedSlots }
            return values
        }
        let targets = week.days.flatMap { day in
            [1, 2].map { slot in ["value": "\(day.date) \(slot)", "label": "\(Show.weekday(day.weekday)) \(slot == 1 ? "lunch" : "dinner")"] }
        }
        let days = week.days.map { day -> [String: Any] in
            let label = day.isToday ? "Today, \(Show.weekday(day.weekday))" : "\(Show.weekday(day.weekday)) \(day.date.day)"
            return [
                "label": label, "isToday": day.isToday,
                "slots": day.slots.map { slot -> [String: Any] in
                    var values: [String: Any] = [
                        "date": slot.date.description, "slot": slot.slot, "meal": slot.meal.rawValue, "dayLabel": label,
                        "cooked": slot.cookedAt != nil, "canCook": slot.cookedAt == nil && slot.date <= week.today,
                        "targets": targets.filter { $0["value"] != "\(slot.date) \(slot.slot)" },
                    ]
                    if let recipe = slot.recipe {
                        values["recipe"] = recipe
                        values["recipeName"] = slot.recipeName ?? recipe
                    }
                    return values
                },
            ]
        }
        return app.views.page(
            "week", title: "This week", section: "week", ["days": days, "selection": selection, "others": others], context: context,
            status: error?.status ?? .ok, error: error, notice: notice)
    }
}
