import Foundation
import Logging
public import ServiceLifecycle
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// `plan.saveTemplate`, `plan.templates`, `plan.deleteTemplate`, `plan.applyTemplate` and
/// `plan.repeatTemplate`: weeks kept under a name and planned again.
extension PlannerHandlers {
    func saveTemplate(_ request: TemplateSave, user: String, context: RequestContext) throws -> PlanTemplate {
        let member = try member(user, context)
        let name = try Self.templateName(request.name, field: "name")
        return try store.saveTemplate(member: member, name: name, replace: request.replace ?? false, now: now)
    }

    func templates(_ request: Empty, user: String, context: RequestContext) throws -> PlanTemplates {
        PlanTemplates(templates: try store.templates(household: try member(user, context).household))
    }

    func deleteTemplate(_ request: TemplateRef, user: String, context: RequestContext) throws -> PlanTemplates {
        let household = try member(user, context).household
        return PlanTemplates(templates: try store.deleteTemplate(household: household, name: try Self.templateName(request.template)))
    }

    func applyTemplate(_ request: TemplateApply, user: String, context: RequestContext) async throws -> TemplateApplied {
        let member = try member(user, context)
        let name = try Self.templateName(request.template)
        let window = try store.window(user: user, now: now)
        let from = request.from ?? window.today
        let to = request.to ?? window.last
        for (date, field) in [(from, "from"), (to, "to")] where !window.contains(date) {
            throw ServiceError.badRequest("\(date) is outside the plan's week \(window.today) … \(window.last)", field: field)
        }
        guard from <= to else { throw ServiceError.badRequest("from \(from) is after to \(to)", field: "to") }
        let template = try store.template(household: member.household, name: name)
        let gone = try await goneRecipes(of: template, user: user, context: context)
        let applied = try store.applyTemplate(
            member: member, template: template, .init(from: from, to: to, mode: request.mode ?? .fill, gone: gone), now: now)
        if !applied.changed.isEmpty { planChanged(member, dates: Array(Set(applied.changed.map(\.date))).sorted()) }
        return applied
    }

    /// How far from today a repeat may start, in days, either way.
    static let repeatReach = 366

    func repeatTemplate(_ request: TemplateRepeatSetting, user: String, context: RequestContext) async throws -> TemplateApplied {
        let member = try member(user, context)
        let name = try Self.templateName(request.template)
        guard (0...8).contains(request.everyWeeks) else {
            throw ServiceError.badRequest("everyWeeks must be 1 to 8, or 0 to stop repeating; got \(request.everyWeeks)", field: "everyWeeks")
        }
        let window = try store.window(user: user, now: now)
        let from = request.from ?? window.today
        guard abs(window.today.days(to: from)) <= Self.repeatReach else {
            throw ServiceError.badRequest("a repeat starts within a year of today (\(window.today)), not on \(from)", field: "from")
        }
        let template = try store.setRepeat(member: member, name: name, every: request.everyWeeks == 0 ? nil : request.everyWeeks, from: from)
        guard let repeats = template.repeats else {
            return TemplateApplied(template: template, changed: [], skipped: [], days: try store.week(member: member, now: now).days)
        }
        return try await applyRepeat(.init(member: member, template: template, repeats: repeats), context: context)
    }

    /// Fills the empty slots of the days in the week that fall in the repeat's weeks and it has
    /// not filled before.
    func applyRepeat(_ repeating: PlannerStore.Repeating, context: RequestContext?) async throws -> TemplateApplied {
        let window = try store.window(user: repeating.member.user, now: now)
        let every = repeating.repeats.everyWeeks
        let dates = window.dates.filter { date in
            let days = repeating.repeats.from.days(to: date)
            return days >= 0 && (days / 7) % every == 0
        }
        let gone = dates.isEmpty ? [] : try await goneRecipes(of: repeating.template, user: repeating.member.user, context: context)
        let applied = try store.applyTemplate(
            member: repeating.member, template: repeating.template,
            .init(from: window.today, to: window.last, mode: .fill, gone: gone, onlyOnce: Set(dates)), now: now)
        if !applied.changed.isEmpty { planChanged(repeating.member, dates: Array(Set(applied.changed.map(\.date))).sorted()) }
        return applied
    }

    /// The template's recipes the catalog no longer gives `user` (deleted, or no longer shared).
    private func goneRecipes(of template: PlanTemplate, user: String, context: RequestContext?) async throws -> Set<String> {
        var gone: Set<String> = []
        for recipe in Set(template.slots.map(\.recipe)).sorted() {
            do {
                _ = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: recipe), user: user, for: context)
            } catch {
                guard error.code == .notFound else { throw error }
                gone.insert(recipe)
            }
        }
        return gone
    }

    /// A template's name: trimmed, 1 to 80 characters, no control characters.
    static func templateName(_ text: String, field: String = "template") throws(ServiceError) -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .badRequest("name the template", field: field) }
        guard name.count <= 80 else { throw .badRequest("a template's name has at most 80 characters", field: field) }
        guard !name.containsControlCharacter else {
            throw .badRequest("a template's name cannot contain control characters", field: field)
        }
        return name
    }
}

/// Applies the templates that repeat as their days come into each household's week: once a
/// minute, and once at start. A template whose repeat fails (the catalog down) is tried again
/// the next minute; the dates it filled are recorded, so each is filled once.
public final class RepeatingWeeks: Service, Sendable {
    static let interval: Duration = .seconds(60)
    private let handlers = Mutex<PlannerHandlers?>(nil)
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func use(_ handlers: PlannerHandlers) { self.handlers.withLock { $0 = handlers } }

    /// Applies every repeating template now; returns how many slots that filled.
    @discardableResult
    public func applyDue() async -> Int {
        guard let handlers = handlers.withLock({ $0 }) else { return 0 }
        let repeating: [PlannerStore.Repeating]
        do {
            repeating = try handlers.store.repeatingTemplates()
        } catch {
            logger.warning("repeating templates not read", metadata: ["error": "\(error.message)"])
            return 0
        }
        var filled = 0
        for template in repeating {
            do {
                filled += try await handlers.applyRepeat(template, context: nil).changed.count
            } catch {
                logger.warning(
                    "repeating template not applied",
                    metadata: ["household": "\(template.member.household)", "template": "\(template.template.name)", "error": "\(error)"])
            }
        }
        return filled
    }

    public func run() async throws {
        _ = try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.applyDue()
                try await Task.sleep(for: Self.interval)
            }
        }
    }
}
