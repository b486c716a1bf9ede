import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous plan template …`: weeks kept under a name and planned again.
struct PlanTemplateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "Weeks you cook again: keep this week under a name, plan it again, or repeat it every few weeks.",
        discussion: """
            A template keeps each weekday's lunch and dinner. Applied, each date gets its weekday's meals.
              sous plan template save "Busy week"
              sous plan template apply "Busy week"              (fills empty slots only)
              sous plan template apply "Busy week" --replace    (the week becomes the template; cooked meals stay)
              sous plan template repeat "Busy week" --every 2 --from monday
              sous plan template repeat "Busy week" --stop
            """,
        subcommands: [List.self, Save.self, Apply.self, Repeat.self, Delete.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your household's templates.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(PlannerAPI.templates, Empty(), session: global.token)
            if global.json { return try printJSON(list) }
            guard !list.templates.isEmpty else { return Console.current.out("No templates yet: sous plan template save NAME") }
            for template in list.templates { Console.current.out(describe(template)) }
        }
    }

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Keep this week's planned meals as a template.")
        @Argument(help: "The template's name (1 to 80 characters).") var name: String
        @Flag(help: "Replace a template of the same name (its repeat is kept).") var replace = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let template = try await global.client(Planner.self).call(
                PlannerAPI.saveTemplate, TemplateSave(name: name, replace: replace), session: global.token)
            if global.json { return try printJSON(template) }
            Console.current.out("Saved " + describe(template))
        }
    }

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Plan a template's meals into the week (empty slots only, unless --replace).",
            discussion: "Applying it again changes nothing. A slot whose recipe is no longer in the catalog is reported and left.")
        @Argument(help: "The template's name.") var name: String
        @Option(help: "First date: \(PlanDate.forms) (default today).") var from: String?
        @Option(help: "Last date (default the week's last day).") var to: String?
        @Flag(help: "Make every slot what the template says, emptying those it leaves empty (cooked meals stay).") var replace = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Planner.self)
            var request = TemplateApply(template: name, mode: replace ? .replace : .fill)
            if from != nil || to != nil {
                let week = try await client.call(PlannerAPI.getPlan, Empty(), session: global.token)
                request.from = try from.map { try PlanDate.resolve($0, today: week.today) }
                request.to = try to.map { try PlanDate.resolve($0, today: week.today) }
            }
            let applied = try await client.call(PlannerAPI.applyTemplate, request, session: global.token)
            if global.json { return try printJSON(applied) }
            report(applied)
        }
    }

    struct Repeat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply a template every N weeks from a date, filling empty slots as its days come into the week.",
            discussion: "The week starting --from is the first; then every --every weeks. --stop ends it.")
        @Argument(help: "The template's name.") var name: String
        @Option(help: "Every how many weeks, 1 to 8.") var every: Int?
        @Option(help: "The first day of the first week: \(PlanDate.forms) (default today).") var from: String?
        @Flag(help: "Stop repeating the template.") var stop = false
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if stop == (every != nil) { throw ValidationError("give --every N, or --stop") }
            if stop, from != nil { throw ValidationError("--from goes with --every, not --stop") }
        }

        func run() async throws {
            let client = global.client(Planner.self)
            var start: LocalDate?
            if let from {
                let week = try await client.call(PlannerAPI.getPlan, Empty(), session: global.token)
                start = try PlanDate.resolve(from, today: week.today)
            }
            let applied = try await client.call(
                PlannerAPI.repeatTemplate, TemplateRepeatSetting(template: name, everyWeeks: every ?? 0, from: start), session: global.token)
            if global.json { return try printJSON(applied) }
            guard applied.template.repeats != nil else { return Console.current.out("\(applied.template.name) no longer repeats.") }
            Console.current.out(describe(applied.template))
            report(applied)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a template (the week keeps what it planned).")
        @Argument(help: "The template's name.") var name: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(PlannerAPI.deleteTemplate, TemplateRef(template: name), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out("Deleted \(name); \(list.templates.count) template\(list.templates.count == 1 ? "" : "s") left.")
        }
    }
}

/// "Busy week: 9 meals, every 2 weeks from 2026-11-30".
private func describe(_ template: PlanTemplate) -> String {
    let meals = "\(template.slots.count) meal\(template.slots.count == 1 ? "" : "s")"
    let repeats = template.repeats.map { ", every \($0.everyWeeks == 1 ? "week" : "\($0.everyWeeks) weeks") from \($0.from)" } ?? ""
    return "\(template.name): \(meals)\(repeats)"
}

private func report(_ applied: TemplateApplied) {
    let count = applied.changed.count
    Console.current.out(count == 0 ? "The week already was as the template makes it." : "Changed \(count) slot\(count == 1 ? "" : "s").")
    for skipped in applied.skipped {
        Console.current.out("  left \(PlanSlotKind.meal(of: skipped.slot)?.rawValue ?? "slot \(skipped.slot)") on \(skipped.date): \(skipped.reason)")
    }
    Console.current.out(renderPlanGrid(applied.days))
}
