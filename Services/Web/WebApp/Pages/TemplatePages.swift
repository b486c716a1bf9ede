import Foundation
import Hummingbird
import SousClient
import SousSchema
import SousWire

/// Weeks that repeat: the household's week saved under a name, applied again (filling the empty
/// slots or replacing the week), repeated every few weeks, deleted. Every action is a form.
struct TemplatePages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/week/templates") { _, context in try await templatesPage(context) }
        router.post("/week/templates/save") { _, context in
            try await act(context) { form, token in
                let save = TemplateSave(name: try form.required("name", label: "Name"), replace: form.text("replace") == "1")
                let saved = try await app.backend.planner.call(PlannerAPI.saveTemplate, save, session: token)
                return "Saved this week as “\(saved.name)” (\(Self.meals(saved.slots.count)))."
            }
        }
        router.post("/week/templates/apply") { _, context in
            try await act(context) { form, token in
                let mode = try form.text("mode").map { text -> TemplateMode in
                    guard let mode = TemplateMode(rawValue: text) else {
                        throw WebError.field("mode", "Choose to fill the empty slots or replace the week")
                    }
                    return mode
                }
                let applied = try await app.backend.planner.call(
                    PlannerAPI.applyTemplate, TemplateApply(template: try form.required("template", label: "Template"), mode: mode), session: token)
                return Self.summary(of: applied)
            }
        }
        router.post("/week/templates/repeat") { _, context in
            try await act(context) { form, token in
                guard let every = try form.integer("everyWeeks", label: "Every", in: 0...8) else {
                    throw WebError.field("everyWeeks", "Choose how often it repeats")
                }
                let from = try form.text("from").map { text -> LocalDate in
                    guard let date = LocalDate(text) else { throw WebError.field("from", "The first week starts on a date") }
                    return date
                }
                let setting = TemplateRepeatSetting(template: try form.required("template", label: "Template"), everyWeeks: every, from: from)
                let applied = try await app.backend.planner.call(PlannerAPI.repeatTemplate, setting, session: token)
                return every == 0
                    ? "“\(applied.template.name)” no longer repeats."
                    : "“\(applied.template.name)” repeats every \(Self.weeks(every)). \(Self.summary(of: applied))"
            }
        }
        router.post("/week/templates/delete") { _, context in
            try await act(context) { form, token in
                let name = try form.required("template", label: "Template")
                _ = try await app.backend.planner.call(PlannerAPI.deleteTemplate, TemplateRef(template: name), session: token)
                return "Deleted “\(name)”."
            }
        }
    }

    /// A template action: done, the page again saying what it did; refused, the page with the reason.
    private func act(_ context: WebContext, _ action: (Form, String) async throws -> String) async throws -> Response {
        let session = try context.signedIn()
        return try await app.submit {
            let notice = try await action(context.form, session.token)
            return try await templatesPage(context, notice: notice)
        } orShow: { error in
            try await templatesPage(context, error: error)
        }
    }

    static func meals(_ count: Int) -> String { "\(count) meal\(count == 1 ? "" : "s")" }
    static func weeks(_ count: Int) -> String { count == 1 ? "week" : "\(count) weeks" }

    /// "Planned 3 meals; 1 slot left as it was: …", as the week changed.
    static func summary(of applied: TemplateApplied) -> String {
        let changed =
            applied.changed.isEmpty ? "The week already was as “\(applied.template.name)” makes it." : "Planned \(meals(applied.changed.count))."
        guard let first = applied.skipped.first else { return changed }
        let count = applied.skipped.count
        return
            "\(changed) \(count) slot\(count == 1 ? "" : "s") left as \(count == 1 ? "it was" : "they were"): \(first.reason)\(count > 1 ? ", …" : "")"
    }

    private func templatesPage(_ context: WebContext, error: WebError? = nil, notice: String? = nil) async throws -> Response {
        let session = try context.signedIn()
        let templates = try await app.backend.planner.call(PlannerAPI.templates, Empty(), session: session.token).templates
        let shown = templates.enumerated().map { index, template -> [String: Any] in
            var values: [String: Any] = [
                "index": index, "name": template.name, "count": Self.meals(template.slots.count),
                "meals": template.slots.map { slot in
                    ["when": "\(Show.weekday(slot.weekday)) \(slot.slot == 1 ? "lunch" : "dinner")", "recipe": slot.recipe, "name": slot.recipeName]
                },
                "everyOptions": (1...8).map {
                    ["value": $0, "label": "every \(Self.weeks($0))", "selected": $0 == (template.repeats?.everyWeeks ?? 1)]
                },
            ]
            if let repeats = template.repeats { values["repeats"] = "Repeats every \(Self.weeks(repeats.everyWeeks)) from \(repeats.from)." }
            return values
        }
        return app.views.page(
            "week_templates", title: "Week templates", section: "week", ["templates": shown], context: context, status: error?.status ?? .ok,
            error: error, notice: notice)
    }
}
