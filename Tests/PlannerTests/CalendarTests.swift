import CatalogService
import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService

/// A minimal RFC 5545 reader for checking exports: unfolds lines and collects each VEVENT's
/// properties (name without parameters → value).
enum CalendarParser {
    static func events(_ text: String) throws -> [[String: String]] {
        #expect(text.hasSuffix("\r\n"))
        let physical = text.components(separatedBy: "\r\n").dropLast()
        for line in physical {
            #expect(line.utf8.count <= 75, "line longer than 75 octets: \(line)")
            #expect(!line.contains("\n") && !line.contains("\r"), "bare line break")
        }
        var lines: [String] = []
        for line in physical {
            if line.hasPrefix(" ") || line.hasPrefix("\t") {
                lines[lines.count - 1] += line.dropFirst()
            } else {
                lines.append(line)
            }
        }
        #expect(lines.first == "BEGIN:VCALENDAR" && lines.last == "END:VCALENDAR")
        #expect(lines.contains("VERSION:2.0") && lines.contains { $0.hasPrefix("PRODID:") })
        var events: [[String: String]] = []
        var current: [String: String]?
        for line in lines {
            if line == "BEGIN:VEVENT" {
                current = [:]
                continue
            }
            if line == "END:VEVENT" {
                events.append(try #require(current))
                current = nil
                continue
            }
            guard current != nil, let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].split(separator: ";").first.map(String.init) ?? ""
            current?[name] = String(line[line.index(after: colon)...])
        }
        return events
    }

    static func unescape(_ value: String) -> String {
        var result = ""
        var escaping = false
        for character in value {
            if escaping {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

@Suite(.closesItsSockets)
struct CalendarTests {
    @Test func theWeekExportsOneValidEventPerFilledSlot() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "America/Los_Angeles"))
            // 10:00 UTC is 03:00 on the 10th in Los Angeles (PDT, −7).
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: gazpacho))
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-14"), slot: 2, recipe: soup))
            let export = try await world.call(PlannerAPI.calendar, CalendarRequest())
            let events = try CalendarParser.events(export.calendar)
            #expect(export.events == 3 && events.count == 3)
            let lunch = try #require(events.first { $0["DTSTART"] == "20260310T190000Z" })
            #expect(lunch["DTEND"] == "20260310T200000Z")
            #expect(CalendarParser.unescape(lunch["SUMMARY"] ?? "") == "Lunch: Tomato and Red Lentil Soup")
            let dinner = try #require(events.first { $0["DTSTART"] == "20260311T020000Z" }, "19:00 PDT is 02:00 UTC the next day")
            #expect(dinner["SUMMARY"] == "Dinner: Chilled Gazpacho")
            for event in events {
                #expect(event["DTSTAMP"] == "20260310T100000Z")
                #expect(event["UID"]?.hasSuffix("@planner.sous") == true)
            }
            #expect(Set(events.compactMap { $0["UID"] }).count == 3)
            // Stable UIDs: the same slot exports with the same UID later.
            world.clock.advance(by: 3600)
            let later = try CalendarParser.events(try await world.call(PlannerAPI.calendar, CalendarRequest()).calendar)
            #expect(Set(later.compactMap { $0["UID"] }) == Set(events.compactMap { $0["UID"] }))
        }
    }

    @Test func aDateRangeIncludesHistory() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            world.clock.advance(by: 3 * 86_400)
            #expect(try await world.call(PlannerAPI.calendar, CalendarRequest()).events == 0)
            let range = try await world.call(PlannerAPI.calendar, CalendarRequest(from: localDate("2026-03-01"), to: localDate("2026-03-31")))
            #expect(range.events == 1)
            let half = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.calendar, CalendarRequest(from: localDate("2026-03-01")))
            }
            #expect(half?.field == "to")
            let backwards = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.calendar, CalendarRequest(from: localDate("2026-03-10"), to: localDate("2026-03-01")))
            }
            #expect(backwards?.code == .badRequest)
        }
    }

    @Test func textIsEscapedAndLongLinesAreFoldedOnCharacterBoundaries() async throws {
        try await withPlanner { world in
            let name = "Crème brûlée; with berries, cream \\ and a very long name that goes on and on past seventy-five octets — ünïcödé"
            let created = try await world.catalog.call(
                CatalogAPI.createRecipe,
                RecipeDraft(
                    name: name, summary: "Line one\nline two", servings: 2, prepMinutes: 10, cookMinutes: 10,
                    ingredients: [RecipeIngredient(ingredient: "egg", quantity: 2, unit: .piece)],
                    steps: [RecipeStep(description: "Mix.", minutes: 10, type: .preparation, ingredients: ["egg"])], equipment: [.stove],
                    dishTypes: [.dessert]),
                user: "ada"
            )
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-11"), slot: 2, recipe: created.id))
            let export = try await world.call(PlannerAPI.calendar, CalendarRequest())
            #expect(export.calendar.contains("brûlée\\; with berries\\, cream \\\\ and"))
            let events = try CalendarParser.events(export.calendar)
            #expect(events.count == 1)
            #expect(CalendarParser.unescape(events[0]["SUMMARY"] ?? "") == "Dinner: \(name)")
            #expect(export.calendar.components(separatedBy: "\r\n").count > 12, "the long summary was folded")
        }
    }
}
