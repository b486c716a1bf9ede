import CatalogService
import CatalogTesting
import Foundation
import PlannerService
import PlannerTesting
import SousRuntime
import SousSchema
import SousTestSupport
import Testing
import TrackerService

/// `sous profile`, `sous plan` and `sous cook` against a real catalog and planner.
@Suite(.closesItsSockets)
struct PlannerCLITests {
    /// 2026-03-10 10:00 UTC, a Tuesday.
    static let now = ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!

    func withServices(_ body: (_ planner: String, _ catalog: String) async throws -> Void) async throws {
        let clock = WallClock.manual(at: Self.now)
        let catalog = try CatalogFixture.make(clock: clock)
        let planner = try PlannerFixture.make(peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
        try await withRunningServices([catalog.host, planner.host]) { _ in
            try await body(planner.host.boundEndpoints.requests, catalog.host.boundEndpoints.requests)
        }
    }

    @Test func aCalendarAddressIsMadeReadAndStopped() async throws {
        try await withServices { planner, _ in
            let ada = ["--planner", planner, "--user", "ada"]
            #expect(await sous(["plan", "feed"] + ada).out.contains("No calendar address"))
            #expect(await sous(["plan", "put", "today", "dinner", "tomato-lentil-soup"] + ada).code == 0)
            let on = await sous(["plan", "feed", "on", "--web-url", "https://sous.example.org/"] + ada)
            let address = String(try #require(on.out.firstMatch(of: /https:\/\/sous\.example\.org\/calendar\/[A-Za-z0-9_-]{43}\.ics/)).0)
            #expect(on.code == 0 && on.out.contains("shown once"), "\(on.out) \(on.err)")
            // Read as a calendar app reads it: no user, the address alone.
            let read = await sous(["plan", "feed", "read", address, "--planner", planner])
            #expect(
                read.code == 0 && read.out.hasPrefix("BEGIN:VCALENDAR\r\n") && read.out.contains("Dinner: Tomato and Red Lentil Soup"), "\(read.err)")
            #expect(await sous(["plan", "feed"] + ada).out.contains("on since 2026-03-10T10:00:00Z"))
            #expect(await sous(["plan", "feed", "off"] + ada).code == 0)
            let gone = await sous(["plan", "feed", "read", address, "--planner", planner])
            #expect(gone.code == 3 && gone.err.contains("no calendar feed has this address"), "\(gone.code) \(gone.err)")
        }
    }

    @Test func profileShowSetAndReset() async throws {
        try await withServices { planner, _ in
            let shown = await sous(["profile", "show", "--planner", planner, "--user", "ada"])
            #expect(shown.code == 0)
            #expect(shown.out.contains("People     2") && shown.out.contains("Time zone  UTC") && shown.out.contains("on, at 19:00"))
            let set = await sous([
                "profile", "set", "--people", "4", "--diet", "vegan", "--time-zone", "Europe/Rome", "--planner", planner, "--user", "ada",
            ])
            #expect(set.code == 0, "\(set.err)")
            #expect(set.out.contains("People     4") && set.out.contains("Diets      vegan") && set.out.contains("Europe/Rome"))
            let json = await sous(["profile", "show", "--json", "--planner", planner, "--user", "ada"])
            let profile = try JSONDecoder().decode(CookingProfile.self, from: Data(json.out.utf8))
            #expect(profile.people == 4 && profile.diets == [.vegan] && profile.timeZone == "Europe/Rome")
            let bad = await sous(["profile", "set", "--people", "99", "--planner", planner, "--user", "ada"])
            #expect(bad.code == 4 && bad.err.contains("field: people"))
            let nothing = await sous(["profile", "set", "--planner", planner, "--user", "ada"])
            #expect(nothing.code == 64)
            // The notifier's hint says `--reminders on`; on/off work as well as true/false.
            let off = await sous(["profile", "set", "--reminders", "off", "--planner", planner, "--user", "ada"])
            #expect(off.code == 0 && off.out.contains("Reminders  off"), "\(off.err)")
            let on = await sous(["profile", "set", "--reminders", "on", "--planner", planner, "--user", "ada"])
            #expect(on.code == 0 && on.out.contains("on, at 19:00"), "\(on.err)")
            let reset = await sous(["profile", "reset", "--planner", planner, "--user", "ada"])
            #expect(reset.code == 0 && reset.out.contains("People     2"))
            // Global options before the subcommand work too.
            let before = await sous(["--user", "ada", "--planner=\(planner)", "--json", "profile", "show"])
            #expect(before.code == 0 && (try? JSONDecoder().decode(CookingProfile.self, from: Data(before.out.utf8)))?.people == 2, "\(before.err)")
        }
    }

    @Test func templateCommandsSaveApplyRepeatAndDelete() async throws {
        try await withServices { planner, _ in
            let common = ["--planner", planner, "--user", "ada"]
            #expect(await sous(["plan", "put", "today", "dinner", "tomato-lentil-soup"] + common).code == 0)
            let none = await sous(["plan", "template"] + common)
            #expect(none.code == 0 && none.out.contains("No templates yet"), "\(none.err)")
            let saved = await sous(["plan", "template", "save", "Soup night"] + common)
            #expect(saved.code == 0 && saved.out.contains("Saved Soup night: 1 meal"), "\(saved.err)")
            #expect(await sous(["plan", "clear", "today", "dinner"] + common).code == 0)
            let applied = await sous(["plan", "template", "apply", "Soup night"] + common)
            #expect(applied.code == 0 && applied.out.contains("Changed 1 slot."), "\(applied.err)")
            let again = await sous(["plan", "template", "apply", "Soup night"] + common)
            #expect(again.code == 0 && again.out.contains("The week already was as the template makes it."), "\(again.err)")
            let repeated = await sous(["plan", "template", "repeat", "Soup night", "--every", "2", "--from", "today"] + common)
            #expect(repeated.code == 0 && repeated.out.contains("Soup night: 1 meal, every 2 weeks from 2026-03-10"), "\(repeated.err)")
            let both = await sous(["plan", "template", "repeat", "Soup night", "--every", "2", "--stop"] + common)
            #expect(both.code == 64)
            let bad = await sous(["plan", "template", "repeat", "Soup night", "--every", "9"] + common)
            #expect(bad.code == 4 && bad.err.contains("field: everyWeeks"), "\(bad.err)")
            let stopped = await sous(["plan", "template", "repeat", "Soup night", "--stop"] + common)
            #expect(stopped.code == 0 && stopped.out.contains("no longer repeats"), "\(stopped.err)")
            let deleted = await sous(["plan", "template", "delete", "Soup night"] + common)
            #expect(deleted.code == 0 && deleted.out.contains("Deleted Soup night; 0 templates left."), "\(deleted.err)")
            let gone = await sous(["plan", "template", "apply", "Soup night"] + common)
            #expect(gone.code != 0 && gone.err.contains("field: template"), "\(gone.err)")
        }
    }

    @Test func planCommandsDriveTheWeekGrid() async throws {
        try await withServices { planner, _ in
            let common = ["--planner", planner, "--user", "ada"]
            #expect(await sous(["plan", "add", "chilled-gazpacho"] + common).code == 0)
            let put = await sous(["plan", "put", "today", "dinner", "tomato-lentil-soup"] + common)
            #expect(put.code == 0 && put.out.contains("Dinner on 2026-03-10: Tomato and Red Lentil Soup"), "\(put.err)")
            #expect(await sous(["plan", "put", "+2", "1", "chilled-gazpacho"] + common).code == 0)
            #expect(await sous(["plan", "move", "+2", "lunch", "+3", "dinner"] + common).code == 0)
            let show = await sous(["plan", "show"] + common)
            #expect(show.code == 0)
            let lines = show.out.split(separator: "\n").map(String.init)
            let header = try #require(lines.first { $0.hasPrefix("DAY") })
            #expect(header.contains("LUNCH") && header.contains("DINNER"))
            let today = try #require(lines.first { $0.hasPrefix("Tue 2026-03-10") })
            #expect(today.contains("Today") && today.hasSuffix("Tomato and Red Lentil Soup"))
            let friday = try #require(lines.first { $0.hasPrefix("Fri 2026-03-13") })
            #expect(friday.hasSuffix("Chilled Gazpacho") && !friday.contains("Today"))
            #expect(
                lines.filter {
                    $0.hasPrefix("Mon ") || $0.hasPrefix("Tue ") || $0.hasPrefix("Wed ") || $0.hasPrefix("Thu ") || $0.hasPrefix("Fri ")
                        || $0.hasPrefix("Sat ") || $0.hasPrefix("Sun ")
                }.count == 7)

            let json = await sous(["plan", "show", "--json"] + common)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let week = try decoder.decode(WeekPlan.self, from: Data(json.out.utf8))
            #expect(week.today == LocalDate("2026-03-10") && week.selection.map(\.id) == ["chilled-gazpacho", "tomato-lentil-soup"])

            let ics = await sous(["plan", "ics"] + common)
            #expect(ics.code == 0 && ics.out.hasPrefix("BEGIN:VCALENDAR") && ics.out.contains("SUMMARY:Dinner: Chilled Gazpacho"))
            // Standard output is byte for byte the file (it used to lose "R\r\n" of END:VCALENDAR).
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("week-\(UUID().uuidString).ics")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(await sous(["plan", "ics", "--output", file.path] + common).code == 0)
            #expect(Array(ics.out.utf8) == Array(try Data(contentsOf: file)))
            #expect(ics.out.hasSuffix("END:VCALENDAR\r\n"))

            let outside = await sous(["plan", "put", "+7", "lunch", "chilled-gazpacho"] + common)
            #expect(outside.code == 4 && outside.err.contains("field: date"))
            let badSlot = await sous(["plan", "clear", "today", "brunch"] + common)
            #expect(badSlot.code == 64)
            let unknown = await sous(["plan", "add", "unicorn-stew"] + common)
            #expect(unknown.code == 3)
            let removed = await sous(["plan", "remove", "tomato-lentil-soup"] + common)
            #expect(removed.code == 0 && !removed.out.contains("tomato-lentil-soup"))
        }
    }

    @Test func cookedWithoutATrackerSaysLoggingFailed() async throws {
        let clock = WallClock.manual(at: Self.now)
        let catalog = try CatalogFixture.make(clock: clock)
        var configuration = ServiceConfiguration.inProcess(.planner, peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
        configuration.makeAbsent(.tracker)
        let planner = try PlannerService(configuration: configuration, logger: quietLogger("planner"))
        try await withRunningServices([catalog.host, planner.host]) { _ in
            let common = ["--planner", planner.host.boundEndpoints.requests, "--user", "ada"]
            #expect(await sous(["plan", "put", "today", "lunch", "tomato-lentil-soup"] + common).code == 0)
            for offset in ["+999999999", "-99999999999999999999"] {
                let far = await sous(["plan", "put"] + common + ["--", offset, "lunch", "tomato-lentil-soup"])
                #expect(far.code == 64 && far.err.contains("is not a day offset"), "\(far.err)")
            }
            let cooked = await sous(["plan", "cooked", "today", "lunch"] + common)
            #expect(cooked.code == 5)
            #expect(cooked.out.contains("Cooked Tomato and Red Lentil Soup for lunch on 2026-03-10."))
            #expect(cooked.err.contains("could not be logged to your diary"))
            let show = await sous(["plan", "show"] + common)
            #expect(show.out.contains("✓ Tomato and Red Lentil Soup"))
        }
    }

    @Test func cookPrintsOneStepWithProgress() async throws {
        try await withServices { _, catalog in
            let step = await sous(["cook", "tomato-lentil-soup", "--step", "2", "--catalog", catalog, "--user", "ada"])
            #expect(step.code == 0, "\(step.err)")
            let lines = step.out.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("Step 2 · ") == true)
            #expect(lines.last == "2 / 5")
            let json = await sous(["cook", "tomato-lentil-soup", "--step", "1", "--json", "--catalog", catalog, "--user", "ada"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            #expect(object["number"] as? Int == 1 && object["of"] as? Int == 5 && object["description"] is String)
            let outOfRange = await sous(["cook", "tomato-lentil-soup", "--step", "9", "--catalog", catalog, "--user", "ada"])
            #expect(outOfRange.code == 4 && outOfRange.err.contains("steps 1 to 5"))
            let all = await sous(["cook", "tomato-lentil-soup", "--catalog", catalog, "--user", "ada"])
            #expect(all.code == 0 && all.out.contains("1 / 5") && all.out.contains("5 / 5"))
        }
    }

    /// Cook mode cooks for the household the groceries were bought for: the profile's people,
    /// not the recipe's servings, unless --people says otherwise.
    @Test func cookScalesForTheHousehold() async throws {
        try await withServices { planner, catalog in
            #expect(await sous(["profile", "set", "--people", "6", "--planner", planner, "--user", "ada"]).code == 0)
            let flags = ["--json", "--catalog", catalog, "--planner", planner, "--user", "ada"]
            func quantities(_ extra: [String]) async throws -> [Double] {
                let result = await sous(["cook", "tomato-lentil-soup"] + extra + flags)
                let steps = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]], "\(result.err)")
                return steps.flatMap { ($0["ingredients"] as? [[String: Any]] ?? []).compactMap { ($0["quantity"] as? NSNumber)?.doubleValue } }
            }
            let household = try await quantities([])
            #expect(!household.isEmpty)
            #expect(household == (try await quantities(["--people", "6"])))
            #expect(household != (try await quantities(["--people", "4"])))
        }
    }

    /// `sous cook` shows quantities in the profile's units as `recipes show` does (it ignored
    /// them), --units overriding them; small amounts of what has a density go in US spoons.
    @Test func cookAndRecipesFollowTheProfilesUnits() async throws {
        try await withServices { planner, catalog in
            let flags = ["--people", "4", "--catalog", catalog, "--planner", planner, "--user", "ada"]
            let metric = await sous(["cook", "tomato-lentil-soup", "--step", "4"] + flags)
            #expect(metric.code == 0, "\(metric.err)")
            #expect(metric.out.contains("Red lentils 200 g") && metric.out.contains("Vegetable stock 1 l"), "\(metric.out)")
            #expect(await sous(["profile", "set", "--units", "us", "--planner", planner, "--user", "ada"]).code == 0)
            // A litre is a US quart (946 ml), not "1.04 qt".
            let us = await sous(["cook", "tomato-lentil-soup", "--step", "4"] + flags)
            #expect(us.code == 0 && us.out.contains("Red lentils 7.1 oz") && us.out.contains("Vegetable stock 1 qt"), "\(us.out)\(us.err)")
            #expect(await sous(["cook", "tomato-lentil-soup", "--step", "4", "--units", "metric"] + flags).out == metric.out)
            // 7 g of dried yeast (0.6 g/ml) is 2 ¼ tsp, not "0.2 oz"; 5 g of rosemary (no density) stays weighed.
            let focaccia = await sous(["recipes", "show", "rosemary-focaccia", "--catalog", catalog, "--planner", planner, "--user", "ada"])
            let lines = focaccia.out.split(separator: "\n").map(String.init)
            let yeast = try #require(lines.first { $0.contains("Dried yeast") }, "\(focaccia.out)\(focaccia.err)")
            #expect(yeast.contains("2 ¼  tsp"), "\(yeast)")
            let rosemary = try #require(lines.first { $0.contains("Fresh rosemary") })
            #expect(rosemary.contains("0.18  oz"), "\(rosemary)")
        }
    }

    /// A recipe file may leave a step's ingredients out; a real mistake names its path.
    @Test func recipeFilesNameThePathOfAMistake() async throws {
        try await withServices { _, catalog in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-recipe-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let good = folder.appendingPathComponent("toast.json")
            try Data(#"{"name": "Toast", "summary": "Bread, toasted.", "steps": [{"description": "Toast it.", "type": "cooking"}]}"#.utf8).write(
                to: good)
            let created = await sous(["recipes", "create", "--file", good.path, "--catalog", catalog, "--user", "ada"])
            #expect(created.code == 0, "\(created.err)")
            let bad = folder.appendingPathComponent("bad.json")
            try Data(
                #"{"name": "Toast", "summary": "x", "steps": [{"description": "a", "type": "cooking"}, {"description": "b", "type": "cooking", "minutes": "ten"}]}"#
                    .utf8
            ).write(to: bad)
            let refused = await sous(["recipes", "create", "--file", bad.path, "--catalog", catalog, "--user", "ada"])
            #expect(refused.code == 4 && refused.err.contains("steps.1.minutes"), "\(refused.err)")
        }
    }

    /// The cost shown is for the people the lines are scaled for (it showed the recipe's own
    /// servings above lines for two).
    @Test func recipeCostIsForThePeopleShown() async throws {
        try await withServices { _, catalog in
            let flags = ["--catalog", catalog, "--user", "ada"]
            let json = await sous(["recipes", "show", "tomato-lentil-soup", "--people", "2", "--json"] + flags)
            let detail = try JSONDecoder.sous.decode(RecipeDetail.self, from: Data(json.out.utf8))
            let lines = detail.ingredients.reduce(0) { $0 + ($1.cost ?? 0) }
            #expect(abs(detail.costPerServing * 2 - lines) < 0.02)
            let text = await sous(["recipes", "show", "tomato-lentil-soup", "--people", "2"] + flags)
            #expect(text.out.contains("Cost \(String(format: "€%.2f", detail.costPerServing * 2)) for 2 people"), "\(text.out)")
        }
    }

    /// With --json the cost for the people asked is there, named apart from the catalog's `cost`
    /// (the whole recipe at its own servings), which read as if it were for them.
    @Test func recipeJSONCarriesTheCostForThePeopleAsked() async throws {
        try await withServices { _, catalog in
            let json = await sous(["recipes", "show", "tomato-lentil-soup", "--people", "2", "--json", "--catalog", catalog, "--user", "ada"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json.err)")
            func number(_ key: String) throws -> Double { try #require((object[key] as? NSNumber)?.doubleValue, "\(key) in \(json.out)") }
            let (people, servings, perServing) = (try number("people"), try number("servings"), try number("costPerServing"))
            let (cost, costForPeople) = (try number("cost"), try number("costForPeople"))
            let lines = try #require(object["ingredients"] as? [[String: Any]]).compactMap { ($0["cost"] as? NSNumber)?.doubleValue }
            #expect(people == 2 && servings == 4)
            #expect(abs(costForPeople - lines.reduce(0, +)) < 0.01 && abs(costForPeople - perServing * 2) < 1e-9)
            // `cost` stays what it was: the recipe at its 4 servings.
            #expect(abs(cost - perServing * 4) < 1e-9 && cost != costForPeople)
            let help = await sous(["recipes", "show", "--help"])
            #expect(help.out.contains("costForPeople"), "\(help.out)")
        }
    }
}
