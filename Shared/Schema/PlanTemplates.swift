public import Foundation
public import MessagePack
public import SousWire

// Weeks that repeat: the household's week kept under a name as a template (the meal of each
// weekday's lunch and dinner), applied to the week again, by hand or every few weeks.

/// `plan.saveTemplate`: the visible week, kept under `name`.
@MessagePackCodable
public struct TemplateSave: Codable, Equatable, Sendable {
    /// 1 to 80 characters, unique in the household.
    public var name: String
    /// True: a template with this name is replaced (its repeat kept); default false, `conflict`.
    public var replace: Bool?

    public init(name: String, replace: Bool? = nil) {
        self.name = name
        self.replace = replace
    }
}

/// One planned meal of a template: the weekday's lunch or dinner.
@MessagePackCodable
public struct TemplateSlot: Codable, Equatable, Sendable {
    /// 1 = Monday … 7 = Sunday.
    public var weekday: Int
    /// 1 = lunch, 2 = dinner.
    public var slot: Int
    public var recipe: String
    /// The recipe's name when the template was saved.
    public var recipeName: String

    public init(weekday: Int, slot: Int, recipe: String, recipeName: String) {
        self.weekday = weekday
        self.slot = slot
        self.recipe = recipe
        self.recipeName = recipeName
    }
}

/// A template applied every `everyWeeks` weeks: in the week starting `from`, then every
/// `everyWeeks` weeks after it.
@MessagePackCodable
public struct TemplateRepeat: Codable, Equatable, Sendable {
    public var everyWeeks: Int
    public var from: LocalDate

    public init(everyWeeks: Int, from: LocalDate) {
        self.everyWeeks = everyWeeks
        self.from = from
    }
}

@MessagePackCodable
public struct PlanTemplate: Codable, Equatable, Sendable {
    public var name: String
    /// By weekday, lunch before dinner; a slot with nothing planned is not listed.
    public var slots: [TemplateSlot]
    public var createdAt: Date
    /// Nil unless the template repeats.
    public var repeats: TemplateRepeat?

    public init(name: String, slots: [TemplateSlot], createdAt: Date, repeats: TemplateRepeat? = nil) {
        self.name = name
        self.slots = slots
        self.createdAt = createdAt
        self.repeats = repeats
    }
}

@MessagePackCodable
public struct PlanTemplates: Codable, Equatable, Sendable {
    /// By name.
    public var templates: [PlanTemplate]

    public init(templates: [PlanTemplate]) { self.templates = templates }
}

@MessagePackCodable
public struct TemplateRef: Codable, Equatable, Sendable {
    /// The template's name.
    public var template: String

    public init(template: String) { self.template = template }
}

/// How a template meets the week it is applied to.
public enum TemplateMode: String, Codable, Sendable, CaseIterable {
    /// Only empty slots get the template's meal; planned ones stay as they are.
    case fill
    /// Every slot becomes what the template says (empty where it has nothing); cooked meals stay.
    case replace
}

/// `plan.applyTemplate`: the template's meals into the days `from` … `to` of the plan's week,
/// each date getting its weekday's meals.
@MessagePackCodable
public struct TemplateApply: Codable, Equatable, Sendable {
    public var template: String
    /// Default: today. Within the plan's week.
    public var from: LocalDate?
    /// Default: the week's last day. Within the plan's week, not before `from`.
    public var to: LocalDate?
    /// Default fill.
    public var mode: TemplateMode?

    public init(template: String, from: LocalDate? = nil, to: LocalDate? = nil, mode: TemplateMode? = nil) {
        self.template = template
        self.from = from
        self.to = to
        self.mode = mode
    }
}

/// A slot the template did not change, and why.
@MessagePackCodable
public struct SkippedSlot: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var slot: Int
    /// The template's recipe for the slot, nil where it has none (replace mode, a cooked meal kept).
    public var recipe: String?
    public var reason: String

    public init(date: LocalDate, slot: Int, recipe: String?, reason: String) {
        self.date = date
        self.slot = slot
        self.recipe = recipe
        self.reason = reason
    }
}

@MessagePackCodable
public struct TemplateApplied: Codable, Equatable, Sendable {
    public var template: PlanTemplate
    /// The slots this call changed (none when the week already was as the template makes it).
    public var changed: [SlotRef]
    /// Slots the template has a different meal for that were left as they are.
    public var skipped: [SkippedSlot]
    /// The plan's week after the change.
    public var days: [PlanDay]

    public init(template: PlanTemplate, changed: [SlotRef], skipped: [SkippedSlot], days: [PlanDay]) {
        self.template = template
        self.changed = changed
        self.skipped = skipped
        self.days = days
    }
}

/// `plan.repeatTemplate`: apply the template every `everyWeeks` weeks from `from` (filling empty
/// slots as each day comes into the plan's week), or stop with `everyWeeks` 0.
@MessagePackCodable
public struct TemplateRepeatSetting: Codable, Equatable, Sendable {
    public var template: String
    /// 1 to 8; 0 stops the repeat.
    public var everyWeeks: Int
    /// The first day of the first week it applies to; default today. At most a year ahead.
    public var from: LocalDate?

    public init(template: String, everyWeeks: Int, from: LocalDate? = nil) {
        self.template = template
        self.everyWeeks = everyWeeks
        self.from = from
    }
}

extension PlannerAPI {
    /// Keeps the household's visible week as a template under a name.
    public static let saveTemplate = Method<Planner, TemplateSave, PlanTemplate>.write("plan.saveTemplate", .household)
    /// The household's templates, by name.
    public static let templates = Method<Planner, Empty, PlanTemplates>.read("plan.templates", .household)
    public static let deleteTemplate = Method<Planner, TemplateRef, PlanTemplates>.write("plan.deleteTemplate", .household)
    /// Plans a template's meals into days of the week; applying it twice gives the same week.
    public static let applyTemplate = Method<Planner, TemplateApply, TemplateApplied>.write("plan.applyTemplate", .household)
    /// Repeats a template every few weeks (applied at once to the days of the week it covers).
    public static let repeatTemplate = Method<Planner, TemplateRepeatSetting, TemplateApplied>.write("plan.repeatTemplate", .household)
}
