import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import Testing
import TrackerService
import TrackerTesting

/// `sous journal` and `sous gluten` against a real tracker over inproc://.
@Suite(.closesItsSockets)
struct CoeliacCLITests {
    /// Runs a tracker on a manual clock and passes `sous` arguments that reach it as "ada".
    func withTracker(_ body: (_ run: @Sendable ([String]) async -> CLIResult) async throws -> Void) async throws {
        // 2026-03-31 12:00 UTC, after every day the tests record.
        let tracker = try TrackerFixture.make(clock: .manual(at: Date(timeIntervalSince1970: 1_774_958_400)))
        let endpoint = tracker.host.boundEndpoints.requests
        try await withRunningService(tracker.host) { _ in
            try await body { arguments in await sous(arguments + ["--tracker", endpoint, "--user", "ada"]) }
        }
    }

    @Test func journalAddListShowEditDeleteWithAPhoto() async throws {
        try await withTracker { run in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-journal-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let photo = folder.appendingPathComponent("pizza.jpg")
            let bytes = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<2044).map { UInt8($0 % 256) })
            try bytes.write(to: photo)

            let added = await run([
                "journal", "add", "Lunch at Mario's", "--description", "GF pizza", "--photo", photo.path, "--date", "2026-03-01", "--time", "13:15",
            ])
            #expect(added.code == 0, "\(added.err)")
            #expect(added.out == "Added entry 1 on 2026-03-01 at 13:15: Lunch at Mario's (with photo)\n")
            _ = await run(["journal", "add", "Porridge", "--date", "2026-03-01", "--time", "08:00"])

            let list = await run(["journal", "list", "--date", "2026-03-01"])
            #expect(list.code == 0)
            let lines = list.out.split(separator: "\n").map(String.init)
            try #require(lines.count == 5, "\(list.out)")
            #expect(lines[0].hasPrefix("id  date        time   title"))
            #expect(lines[2].hasPrefix(" 2  2026-03-01  08:00  Porridge"))
            #expect(lines[3].hasPrefix(" 1  2026-03-01  13:15  Lunch at Mario's  2 KiB  GF pizza"))
            #expect(lines[4] == "2 entries for 2026-03-01")

            let json = await run(["journal", "list", "--from", "2026-03-01", "--to", "2026-03-02", "--json"])
            let decoded = try JSONDecoder.sous.decode(JournalList.self, from: Data(json.out.utf8))
            #expect(decoded.entries.map(\.title) == ["Porridge", "Lunch at Mario's"] && decoded.entries[1].photoBytes == 2048)

            let saved = folder.appendingPathComponent("saved.jpg")
            let show = await run(["journal", "show", "1", "--save-photo", saved.path])
            #expect(show.code == 0 && show.out.contains("GF pizza") && show.out.contains("saved to \(saved.path)"))
            #expect(try Data(contentsOf: saved) == bytes)

            let edit = await run(["journal", "edit", "1", "--title", "Pizza", "--remove-photo"])
            #expect(edit.out == "Updated entry 1 on 2026-03-01 at 13:15: Pizza\n")
            let deleted = await run(["journal", "delete", "2", "--json"])
            #expect(deleted.code == 0 && deleted.out.contains("\"deleted\" : 2"))
            let missing = await run(["journal", "delete", "2"])
            #expect(missing.code == 3 && missing.err.contains("no journal entry 2"))
            let empty = await run(["journal", "list", "--date", "2026-03-05"])
            #expect(empty.out == "No journal entries for 2026-03-05.\n")
        }
    }

    @Test func tooLargePhotosAndBadDatesAreRefusedBeforeAnythingIsSent() async throws {
        try await withTracker { run in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sous-big-\(UUID()).jpg")
            try Data(count: 5 * 1024 * 1024 + 1).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let big = await run(["journal", "add", "Big", "--photo", file.path, "--date", "2026-03-01"])
            #expect(big.code == 4 && big.err.contains("(field: photo)"))
            let badDate = await run(["journal", "add", "x", "--date", "2026-02-30"])
            #expect(badDate.code == 64 && badDate.err.contains("YYYY-MM-DD"))
            #expect(await run(["journal", "list", "--date", "2026-03-01"]).out.hasPrefix("No journal entries"))
        }
    }

    @Test func glutenPredictResultStatsAndCalendarGrid() async throws {
        try await withTracker { run in
            let history: [(String, String?, String)] = [
                ("2026-03-02", "no", "negative"), ("2026-03-03", "no", "negative"), ("2026-03-04", "yes", "positive"),
                ("2026-03-05", "no", "positive"), ("2026-03-09", nil, "negative"),
            ]
            var outputs: [String] = []
            for (date, prediction, result) in history {
                if let prediction {
                    let predicted = await run(["gluten", "predict", prediction, "--date", date])
                    #expect(predicted.code == 0, "\(predicted.err)")
                }
                outputs.append(await run(["gluten", "result", result, "--date", date]).out)
            }
            #expect(outputs[0] == "Recorded negative for 2026-03-02. Your prediction was right. Current streak: 1.\n")
            #expect(
                outputs[2]
                    == "Recorded positive for 2026-03-04. Your prediction was right. Current streak: 3.\nBadge earned: 3 correct predictions in a row!\n"
            )
            #expect(outputs[3].contains("Your prediction was wrong. Current streak: 0."))
            #expect(outputs[4].contains("There was no prediction for this day."))
            #expect(await run(["gluten", "predict", "yes", "--date", "2026-03-12"]).out == "Predicted for 2026-03-12: gluten.\n")
            let conflict = await run(["gluten", "result", "negative", "--date", "2026-03-02"])
            #expect(conflict.code == 7)

            let stats = await run(["gluten", "stats"])
            #expect(
                stats.out == """
                    Hit rate        75% (3 of 4 predictions right)
                    Results         5
                    Current streak  0
                    Best streak     3
                    Badges          3 in a row (2026-03-04)
                    Next badge      7 in a row (7 to go)

                    """)
            let statsJSON = try JSONDecoder.sous.decode(GlutenStats.self, from: Data(await run(["gluten", "stats", "--json"]).out.utf8))
            #expect(statsJSON.hitRate == 0.75 && statsJSON.badges.map(\.streak) == [3])

            let calendar = await run(["gluten", "calendar", "2026-03"])
            #expect(
                calendar.out == """
                               March 2026
                     Mo   Tu   We   Th   Fr   Sa   Su
                                                   1·
                     2-   3-   4+   5+   6·   7·   8·
                     9-  10·  11·  12?  13·  14·  15·
                    16·  17·  18·  19·  20·  21·  22·
                    23·  24·  25·  26·  27·  28·  29·
                    30·  31·

                    + positive   - negative   ? predicted, no result yet   · nothing
                    This month: 3 of 4 predictions right.

                    """)
            let json = try JSONDecoder.sous.decode(GlutenCalendar.self, from: Data(await run(["gluten", "calendar", "2026-03", "--json"]).out.utf8))
            #expect(json.days.count == 31 && json.days[11].status == .predicted)
            #expect(await run(["gluten", "calendar", "March"]).code == 64)

            // The same month as an SVG: a cell per day, a marker per result, a verdict per scored day.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("gluten-\(UUID().uuidString).svg").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            let chart = await run(["gluten", "chart", "2026-03", "--output", file])
            #expect(chart.code == 0 && chart.out == "Wrote \(file): 2026-03, 5 days with a test result.\n", "\(chart.out)\(chart.err)")
            let svg = try String(contentsOfFile: file, encoding: .utf8)
            #expect(svg.contains("Gluten tests, 2026-03"))
            #expect(svg.components(separatedBy: "class=\"cell\"").count - 1 == 31)
            #expect(svg.components(separatedBy: "class=\"result positive\"").count - 1 == 2)
            #expect(svg.components(separatedBy: "class=\"result negative\"").count - 1 == 3)
            #expect(svg.components(separatedBy: "class=\"verdict right\"").count - 1 == 3)
            #expect(svg.components(separatedBy: "class=\"verdict wrong\"").count - 1 == 1)
        }
    }
}

extension JSONDecoder {
    /// Reads what `--json` prints (ISO 8601 dates).
    static var sous: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
