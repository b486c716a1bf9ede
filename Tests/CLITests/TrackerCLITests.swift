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
import TrackerTesting

/// Runs a tracker (and a planner for time zones) in-process with a manual clock at
/// 2026-03-10 10:00 UTC, and passes `sous` arguments that reach it as "ada".
private func withTrackerCLI(_ body: (_ args: [String]) async throws -> Void) async throws {
    let clock = WallClock.manual(at: Date(timeIntervalSince1970: 1_773_136_800))
    let planner = try PlannerFixture.make(clock: clock)
    let tracker = try TrackerFixture.make(peers: [.planner: planner.host.boundEndpoints], clock: clock)
    try await withRunningServices([planner.host, tracker.host]) { _ in
        try await body(["--tracker", tracker.host.boundEndpoints.requests, "--user", "ada"])
    }
}

@Suite(.closesItsSockets)
struct TrackerCLITests {
    /// --kcal far from what the macros make at 4/4/9 kcal per gram is logged as given, with a
    /// note (labels round; a typo usually shows here).
    @Test func kcalFarFromTheMacrosIsLoggedWithANote() async throws {
        try await withTrackerCLI { args in
            let odd = await sous(
                ["diary", "add", "Foo", "--meal", "snack", "--grams", "10", "--kcal", "400", "--carbs", "10", "--protein", "10", "--fat", "10"] + args
            )
            #expect(odd.code == 0 && odd.err.contains("sous: note: --kcal 400 is far from the 170 kcal"), "\(odd.err)")
        }
    }

    /// A USDA food logged by its household measure: SR28 weighs a medium banana at 118 g.
    @Test func aFoodIsLoggedByItsHouseholdMeasure() async throws {
        let clock = WallClock.manual(at: Date(timeIntervalSince1970: 1_773_136_800))
        let catalog = try CatalogFixture.make(clock: clock)
        let tracker = try TrackerFixture.make(peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
        try await withRunningServices([catalog.host, tracker.host]) { _ in
            let args = [
                "--tracker", tracker.host.boundEndpoints.requests, "--catalog", catalog.host.boundEndpoints.requests, "--user", "ada",
                "--date", "2026-03-10",
            ]
            let two = await sous(["diary", "add", "--ingredient", "banana", "--portion", "medium", "--count", "2", "--meal", "snack"] + args)
            #expect(two.code == 0 && two.out.contains("Banana, 236 g at snack"), "\(two.out)\(two.err)")
            let unknown = await sous(["diary", "add", "--ingredient", "banana", "--portion", "slab", "--meal", "snack"] + args)
            #expect(unknown.code != 0 && unknown.err.contains("banana has no \"slab\"; it has:") && unknown.err.contains("medium"), "\(unknown.err)")
            #expect(await sous(["diary", "add", "--ingredient", "banana", "--meal", "snack"] + args).code != 0, "grams or a portion")
            #expect(
                await sous(["diary", "add", "--ingredient", "banana", "--portion", "medium", "--grams", "5", "--meal", "snack"] + args).code != 0)
        }
    }

    @Test func diaryAddListSummaryAndExport() async throws {
        try await withTrackerCLI { args in
            let added = await sous(
                [
                    "diary", "add", "Porridge, oats", "--meal", "breakfast", "--grams", "250", "--kcal", "70", "--carbs", "12", "--protein", "2.5",
                    "--fat", "1.4",
                ] + args)
            #expect(added.code == 0, "\(added.err)")
            #expect(added.out.contains("Porridge, oats, 250 g at breakfast on 2026-03-10: 175 kcal"))
            #expect(added.err.isEmpty, "70 kcal is near the 70.4 kcal of 12/2.5/1.4 g: no note")

            _ = await sous(["diary", "add", "--barcode", "2100000000005", "--meal", "dinner", "--grams", "100"] + args)

            let list = await sous(["diary", "list"] + args)
            #expect(list.out.contains("2026-03-10 (today in UTC)") && list.out.contains("Spaghetti No. 5"))

            let summary = await sous(["diary", "summary", "--date", "2026-03-10"] + args)
            #expect(summary.code == 0)
            // 175 + 371 = 546 kcal of the default 2000: 27 %, a bar a quarter full.
            #expect(summary.out.contains("kcal    [█████░░░░░░░░░░░░░░░]  27%  546/2000"), "\(summary.out)")
            #expect(summary.out.contains("Breakfast — 175 kcal") && summary.out.contains("Dinner — 371 kcal"))

            let json = await sous(["diary", "summary", "--date", "2026-03-10", "--json"] + args)
            let decoded = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
            #expect(((decoded?["totals"] as? [String: Any])?["kcal"] as? NSNumber)?.doubleValue == 546)

            let csv = await sous(["diary", "export", "--from", "2026-03-10", "--to", "2026-03-10"] + args)
            #expect(csv.out.hasPrefix("date,meal,food,grams"))
            #expect(csv.out.contains("2026-03-10,breakfast,\"Porridge, oats\",250,70"))
            // Standard output is byte for byte the file, CRLF at the end included.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("diary-\(UUID().uuidString).csv")
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(await sous(["diary", "export", "--from", "2026-03-10", "--to", "2026-03-10", "--output", file.path] + args).code == 0)
            #expect(Array(csv.out.utf8) == Array(try Data(contentsOf: file)))
            #expect(csv.out.hasSuffix("\r\n"))

            let badMeal = await sous(
                ["diary", "add", "Tea", "--meal", "brunch", "--grams", "200", "--kcal", "1", "--carbs", "0", "--protein", "0", "--fat", "0"] + args)
            #expect(badMeal.code == 64 && badMeal.err.contains("brunch"))
            let badGrams = await sous(
                ["diary", "add", "Tea", "--meal", "snack", "--grams", "0", "--kcal", "1", "--carbs", "0", "--protein", "0", "--fat", "0"] + args)
            #expect(badGrams.code == 4 && badGrams.err.contains("grams"))
        }
    }

    @Test func diaryEditDeleteYesterdayHistoryAndAnalysis() async throws {
        try await withTrackerCLI { args in
            let nutrition = ["--kcal", "100", "--carbs", "10", "--protein", "5", "--fat", "4"]
            _ = await sous(["diary", "add", "Rice", "--meal", "lunch", "--grams", "300", "--date", "2026-03-09"] + nutrition + args)
            _ = await sous(["diary", "add", "Soup", "--meal", "dinner", "--grams", "400", "--date", "2026-03-09"] + nutrition + args)

            let edited = await sous(["diary", "edit", "2", "--grams", "500", "--meal", "lunch"] + args)
            #expect(edited.out.contains("Updated #2 Soup, 500 g at lunch on 2026-03-09"))
            let partial = await sous(["diary", "edit", "2", "--kcal", "90"] + args)
            #expect(partial.code == 64 && partial.err.contains("--carbs"))

            let yesterday = await sous(["diary", "yesterday"] + args)
            #expect(yesterday.out.contains("Logged on 2026-03-09") && yesterday.out.contains("Rice") && yesterday.out.contains("Soup"))
            let readded = await sous(["diary", "yesterday", "--add", "1"] + args)
            #expect(readded.out.contains("Rice (300 g, lunch) on 2026-03-10"), "\(readded.out)")
            #expect(await sous(["diary", "yesterday", "--add", "9"] + args).code == 64)

            let history = await sous(["diary", "history", "--from", "2026-03-09", "--to", "2026-03-10"] + args)
            // 300 g + 500 g at 100 kcal per 100 g on the 9th; the re-added rice on the 10th.
            #expect(history.out.contains("2026-03-09   800  2000") && history.out.contains("2026-03-10   300  2000"), "\(history.out)")
            let analysis = await sous(["diary", "analysis", "--from", "2026-03-09", "--to", "2026-03-10"] + args)
            #expect(analysis.out.contains("2 days logged") && analysis.out.contains("Within ±10 % of the kcal goal on 0 of 2"))

            // The same days as a chart: four panels, one bar per logged day in each, the goal line.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("diary-\(UUID().uuidString).svg").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            let chart = await sous(["diary", "chart", "--from", "2026-03-08", "--to", "2026-03-10", "--output", file] + args)
            #expect(chart.code == 0 && chart.out.contains("Wrote \(file): 3 days, 2 with entries."), "\(chart.out)\(chart.err)")
            let svg = try String(contentsOfFile: file, encoding: .utf8)
            #expect(svg.contains("Diary 2026-03-08 to 2026-03-10"))
            #expect(svg.components(separatedBy: "class=\"bar ").count - 1 == 4 * 2)
            #expect(svg.components(separatedBy: "class=\"goal\"").count - 1 == 4)
            let unknown = await sous(["diary", "chart", "--from", "2026-03-08", "--to", "2026-03-10", "--only", "sugar"] + args)
            #expect(unknown.code == 64 && unknown.err.contains("--only"))

            #expect(await sous(["diary", "delete", "2"] + args).out.contains("Deleted entry #2."))
            #expect(await sous(["diary", "delete", "2"] + args).code == 3)
        }
    }

    @Test func waterCoffeeGoalsAndSavedFoods() async throws {
        try await withTrackerCLI { args in
            #expect(await sous(["water", "+", "3"] + args).out.contains("2026-03-10: 3 glasses of water"))
            #expect(await sous(["coffee", "-"] + args).out.contains("0 cups of coffee"))
            #expect(await sous(["coffee", "+"] + args).out.contains("1 cup of coffee"))

            let presets = await sous(["goals", "presets"] + args)
            #expect(presets.out.contains("endurance") && presets.out.contains("cutting:"))
            let set = await sous(["goals", "set", "--preset", "cutting", "--kcal", "1600", "--from", "2026-03-01"] + args)
            #expect(set.code == 0 && set.out.contains("Goals from 2026-03-01"))
            let show = await sous(["goals", "show", "--json"] + args)
            #expect(show.out.contains("\"kcal\" : 1600") && show.out.contains("\"from\" : \"2026-03-01\""))

            let saved = await sous(
                [
                    "foods", "add", "Protein shake", "--grams", "300", "--kcal", "80", "--carbs", "6", "--protein", "10", "--fat", "1.5", "--meal",
                    "snack",
                ] + args)
            #expect(saved.out.contains("Saved #1 Protein shake (300 g portion)"))
            #expect(await sous(["foods", "list", "--meal", "snack"] + args).out.contains("Protein shake"))
            #expect(await sous(["foods", "list", "--meal", "dinner"] + args).out.contains("No saved foods."))
            let logged = await sous(["foods", "log", "1", "--quantity", "2"] + args)
            #expect(logged.out.contains("Protein shake, 600 g at snack on 2026-03-10: 480 kcal"))
        }
    }

    @Test func barcodeLookupLogAndImport() async throws {
        try await withTrackerCLI { args in
            let lookup = await sous(["barcode", "2100000000005"] + args)
            #expect(lookup.code == 0 && lookup.out.contains("Spaghetti No. 5 — Campo Dorato (500 g)") && lookup.out.contains("Allergens: en:gluten"))
            let logged = await sous(["barcode", "2100000000005", "--log", "--grams", "80", "--meal", "lunch"] + args)
            #expect(logged.out.contains("Logged #1: 80 g at lunch on 2026-03-10"))
            let invalid = await sous(["barcode", "2100000000006"] + args)
            #expect(invalid.code == 4 && invalid.err.contains("check digit"))
            let unknown = await sous(["barcode", "4006381333931"] + args)
            #expect(unknown.code == 3)

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("off-\(UUID().uuidString).tsv")
            defer { try? FileManager.default.removeItem(at: file) }
            let tsv =
                "code\tproduct_name\tbrands\tenergy-kcal_100g\tcarbohydrates_100g\tproteins_100g\tfat_100g\n"
                + "4006381333931\tPen Biscuits\tStabilo Snacks\t480\t65\t7\t21\n"
                + "4006381333932\tWrong digit\t\t1\t1\t1\t1\n"
                + "96385074\t\t\t1\t1\t1\t1\n"
                + "036000291452\tOat Drink\t\t46\tabc\t1\t1.5\n"
            try Data(tsv.utf8).write(to: file)
            let imported = await sous(["operator", "import-products", file.path] + args + ["--user", "operator"])
            #expect(imported.code == 0, "\(imported.err)")
            #expect(imported.out.contains("Imported 1 products") && imported.out.contains("skipped 3 rows"))
            #expect(imported.out.contains("1 × wrong check digit") && imported.out.contains("1 × missing product_name"))
            #expect(imported.err.contains("5/5 lines (100%)"), "progress on stderr")
            #expect(await sous(["barcode", "4006381333931"] + args).out.contains("Pen Biscuits"))
        }
    }
}
