import CatalogService
import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Weeks kept as templates and planned again: by weekday, filling or replacing, idempotent,
/// a deleted recipe reported per slot, repeats every few weeks as their days come into the week.
/// The reference week starts on Tuesday 2026-03-10.
@Suite(.closesItsSockets)
struct TemplateTests {
    static let tuesday = localDate("2026-03-10")

    func put(_ world: PlannerWorld, _ date: String, _ slot: Int, _ recipe: String, user: String = "ada") async throws {
        _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate(date), slot: slot, recipe: recipe), user: user)
    }

    func planned(_ days: [PlanDay]) -> [String: String] {
        var meals: [String: String] = [:]
        for slot in days.flatMap(\.slots) { if let recipe = slot.recipe { meals["\(slot.date) \(slot.slot)"] = recipe } }
        return meals
    }

    @Test func aSavedWeekIsAppliedByWeekdayAndApplyingItTwiceChangesNothing() async throws {
        try await withPlanner { world in
            try await put(world, "2026-03-10", 1, soup)  // Tuesday lunch
            try await put(world, "2026-03-12", 2, gazpacho)  // Thursday dinner
            try await put(world, "2026-03-16", 2, minestrone)  // Monday dinner
            let template = try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "  Busy week "))
            #expect(template.name == "Busy week")
            #expect(
                template.slots == [
                    TemplateSlot(weekday: 1, slot: 2, recipe: minestrone, recipeName: "Minestrone with Pasta and Beans"),
                    TemplateSlot(weekday: 2, slot: 1, recipe: soup, recipeName: "Tomato and Red Lentil Soup"),
                    TemplateSlot(weekday: 4, slot: 2, recipe: gazpacho, recipeName: "Chilled Gazpacho"),
                ])

            // A week later the plan's week runs Tuesday 17 to Monday 23: each date gets its weekday's meals.
            world.clock.advance(by: 7 * 24 * 3600)
            try await put(world, "2026-03-19", 2, soup)  // Thursday dinner, planned by hand
            let applied = try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Busy week"))
            #expect(applied.changed == [SlotRef(date: localDate("2026-03-17"), slot: 1), SlotRef(date: localDate("2026-03-23"), slot: 2)])
            #expect(
                applied.skipped == [
                    SkippedSlot(date: localDate("2026-03-19"), slot: 2, recipe: gazpacho, reason: "Tomato and Red Lentil Soup is planned there")
                ])
            let filled = ["2026-03-17 1": soup, "2026-03-19 2": soup, "2026-03-23 2": minestrone]
            #expect(planned(applied.days) == filled)

            let again = try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Busy week"))
            #expect(again.changed.isEmpty && planned(again.days) == filled, "applying it twice gives the same week")

            // Replace: the week becomes the template; the hand-planned Thursday gives way.
            let replaced = try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Busy week", mode: .replace))
            #expect(replaced.changed == [SlotRef(date: localDate("2026-03-19"), slot: 2)])
            #expect(planned(replaced.days) == ["2026-03-17 1": soup, "2026-03-19 2": gazpacho, "2026-03-23 2": minestrone])
            let replacedAgain = try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Busy week", mode: .replace))
            #expect(replacedAgain.changed.isEmpty && replacedAgain.days == replaced.days)
            #expect(try await world.call(PlannerAPI.getPlan, Empty()).selection.map(\.id).sorted() == [gazpacho, minestrone, soup].sorted())
        }
    }

    @Test func replacingEmptiesWhatTheTemplateLeavesEmptyButKeepsCookedMeals() async throws {
        try await withPlanner(tracker: .real) { world in
            try await put(world, "2026-03-10", 2, soup)
            _ = try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "One dinner"))
            try await put(world, "2026-03-10", 1, gazpacho)
            try await put(world, "2026-03-11", 1, minestrone)
            _ = try await world.call(PlannerAPI.cooked, CookedSlot(date: localDate("2026-03-10"), slot: 1))
            let replaced = try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "One dinner", mode: .replace))
            #expect(replaced.changed == [SlotRef(date: localDate("2026-03-11"), slot: 1)])
            #expect(planned(replaced.days) == ["2026-03-10 1": gazpacho, "2026-03-10 2": soup], "the cooked lunch stays, Wednesday empties")
        }
    }

    @Test func aRecipeDeletedSinceIsReportedPerSlotAndTheRestApplied() async throws {
        try await withPlanner { world in
            let mine = try await world.catalog.call(CatalogAPI.createRecipe, RecipeDraft(name: "Ada's stew", summary: "Slow."), user: "ada")
            try await put(world, "2026-03-10", 1, mine.id)
            try await put(world, "2026-03-10", 2, soup)
            _ = try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "Stew day"))
            _ = try await world.catalog.call(CatalogAPI.deleteRecipe, RecipeID(id: mine.id), user: "ada")
            world.clock.advance(by: 7 * 24 * 3600)
            let applied = try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Stew day"))
            #expect(applied.changed == [SlotRef(date: localDate("2026-03-17"), slot: 2)])
            #expect(
                applied.skipped == [
                    SkippedSlot(date: localDate("2026-03-17"), slot: 1, recipe: mine.id, reason: "Ada's stew is no longer in the catalog")
                ])
        }
    }

    @Test func badRequestsNameTheirFieldAndWriteNothing() async throws {
        try await withPlanner { world in
            let empty = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "Empty")) }
            #expect(empty?.code == .badRequest && empty?.field == "name")
            try await put(world, "2026-03-10", 1, soup)
            for name in ["", "   ", String(repeating: "x", count: 81), "tab\there"] {
                let bad = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: name)) }
                #expect(bad?.code == .badRequest && bad?.field == "name", "\(name)")
            }
            _ = try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "Week"))
            let taken = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "Week")) }
            #expect(taken?.code == .conflict && taken?.field == "name")
            let unknown = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Nope")) }
            #expect(unknown?.code == .notFound && unknown?.field == "template")
            let outside = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Week", from: localDate("2026-03-17")))
            }
            #expect(outside?.code == .badRequest && outside?.field == "from")
            let before = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Week", to: localDate("2026-03-09")))
            }
            #expect(before?.code == .badRequest && before?.field == "to")
            for every in [-1, 9, Int.max] {
                let bad = await #expect(throws: ServiceError.self) {
                    try await world.call(PlannerAPI.repeatTemplate, TemplateRepeatSetting(template: "Week", everyWeeks: every))
                }
                #expect(bad?.code == .badRequest && bad?.field == "everyWeeks")
            }
            let far = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.repeatTemplate, TemplateRepeatSetting(template: "Week", everyWeeks: 1, from: localDate("2030-01-01")))
            }
            #expect(far?.code == .badRequest && far?.field == "from")
            // Bob, in his own household, sees none of Ada's templates.
            #expect(try await world.call(PlannerAPI.templates, Empty(), user: "bob").templates.isEmpty)
            let theirs = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.applyTemplate, TemplateApply(template: "Week"), user: "bob")
            }
            #expect(theirs?.code == .notFound)
            #expect(try await world.call(PlannerAPI.templates, Empty()).templates.map(\.name) == ["Week"])
            #expect(try await world.call(PlannerAPI.deleteTemplate, TemplateRef(template: "Week")).templates.isEmpty)
        }
    }

    /// Every second week from Tuesday 10 March: the weeks of 10 and 24 March, not 17 March. Each
    /// date is filled once: a slot cleared after the repeat filled it stays clear.
    @Test func aRepeatFillsItsWeeksAsTheirDaysComeIntoThePlanOnce() async throws {
        try await withPlanner { world in
            try await put(world, "2026-03-10", 2, soup)  // Tuesday dinner
            try await put(world, "2026-03-13", 1, gazpacho)  // Friday lunch
            _ = try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "Fortnight"))
            _ = try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-13"), slot: 1))

            let set = try await world.call(
                PlannerAPI.repeatTemplate, TemplateRepeatSetting(template: "Fortnight", everyWeeks: 2, from: Self.tuesday))
            #expect(set.template.repeats == TemplateRepeat(everyWeeks: 2, from: Self.tuesday))
            #expect(set.changed == [SlotRef(date: localDate("2026-03-13"), slot: 1)], "this week's Friday, filled at once")

            _ = try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-13"), slot: 1))
            world.clock.advance(by: 3 * 24 * 3600)  // Friday 13: the week runs to Thursday 19, the off week
            #expect(await world.planner.repeatingWeeks.applyDue() == 0)
            #expect(planned(try await world.call(PlannerAPI.getPlan, Empty()).days) == [:], "a date is filled once; the off week not at all")

            world.clock.advance(by: 11 * 24 * 3600)  // Tuesday 24: the third week, a repeat week again
            #expect(await world.planner.repeatingWeeks.applyDue() == 2)
            #expect(
                planned(try await world.call(PlannerAPI.getPlan, Empty()).days) == ["2026-03-24 2": soup, "2026-03-27 1": gazpacho])
            #expect(await world.planner.repeatingWeeks.applyDue() == 0)

            let stopped = try await world.call(PlannerAPI.repeatTemplate, TemplateRepeatSetting(template: "Fortnight", everyWeeks: 0))
            #expect(stopped.template.repeats == nil && stopped.changed.isEmpty)
            #expect(try await world.call(PlannerAPI.templates, Empty()).templates.first?.repeats == nil)
        }
    }

    @Test func templatesTravelInTheArchive() async throws {
        try await withPlanner { world in
            try await put(world, "2026-03-10", 2, soup)
            _ = try await world.call(PlannerAPI.saveTemplate, TemplateSave(name: "Soup Tuesday"))
            _ = try await world.call(PlannerAPI.repeatTemplate, TemplateRepeatSetting(template: "Soup Tuesday", everyWeeks: 1))
            let archive = try await world.call(PlannerAPI.exportArchive, Empty())
            #expect(archive.templates?.map(\.name) == ["Soup Tuesday"])
            let imported = try await world.call(PlannerAPI.importArchive, PlannerArchiveImport(archive: archive), user: "carol")
            #expect(imported.counts["templates"] == 1)
            #expect(try await world.call(PlannerAPI.templates, Empty(), user: "carol").templates == archive.templates)

            var twice = archive
            twice.templates = (archive.templates ?? []) + (archive.templates ?? [])
            let duplicate = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.importArchive, PlannerArchiveImport(archive: twice), user: "dora")
            }
            #expect(duplicate?.code == .badRequest && duplicate?.field == "archive.templates.1.name")
            var badDay = archive
            badDay.templates?[0].slots[0].weekday = 8
            let weekday = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.importArchive, PlannerArchiveImport(archive: badDay), user: "dora")
            }
            #expect(weekday?.field == "archive.templates.0.slots.0.weekday")
            #expect(try await world.call(PlannerAPI.templates, Empty(), user: "dora").templates.isEmpty, "nothing half-written")
        }
    }
}
