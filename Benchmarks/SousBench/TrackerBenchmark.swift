import ArgumentParser
import Foundation
import Logging
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import TrackerService

/// `diary.summary` and `diary.history` latency over TCP against `health` on the same socket (the
/// floor: one round trip with no database work), with a diary of realistic size in a WAL file.
struct TrackerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracker",
        abstract: "Tracker: daily summary and 30-day history latency against health, on a year of diary entries."
    )

    @Option(help: "Days of diary to fill (ending on the measured day).") var days = 365
    @Option(help: "Entries per day.") var entriesPerDay = 6
    @Option(help: "Timed calls per measurement.") var queries = 2_000
    @Flag(help: "A small run for checking the benchmark works (30 days, 200 calls).") var quick = false
    @Option(help: "Folder for the database (default: a temporary folder, removed afterwards).") var dataDir: String?

    func run() async throws {
        let days = quick ? 30 : self.days
        let queries = quick ? 200 : self.queries
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-\(UUID().uuidString)").path
        defer { if dataDir == nil { try? FileManager.default.removeItem(atPath: directory) } }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        var configuration = ServiceConfiguration.inProcess(.tracker, dataDirectory: directory)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let service = try TrackerService(configuration: configuration, logger: logger)
        let serving = Task { try await service.host.run(signals: false) }
        let client = try service.host.testClient(as: Tracker.self, timeout: .seconds(10))

        let last = LocalDate("2026-03-10")!
        let first = last.adding(days: 1 - days)
        let fillStart = Date()
        var random = SplitMix64(seed: 11)
        for offset in 0..<days {
            let date = first.adding(days: offset)
            for index in 0..<entriesPerDay {
                // Random macros, and the kcal they make (4/4/9 kcal per gram): the tracker refuses
                // energy that contradicts the macros.
                let carbohydrates = Double.random(in: 0...60, using: &random)
                let protein = Double.random(in: 0...30, using: &random)
                let fat = Double.random(in: 0...10, using: &random)
                let per100g = Macros(
                    kcal: 4 * carbohydrates + 4 * protein + 9 * fat, carbohydrates: carbohydrates, protein: protein, fat: fat)
                let add = DiaryAdd(
                    date: date, meal: Meal.allCases[index % 4], grams: Double.random(in: 20...400, using: &random), food: "Food \(index)",
                    per100g: per100g)
                _ = try client.callBlocking(TrackerAPI.addEntry, add, user: "bench")
            }
        }
        _ = try client.callBlocking(TrackerAPI.setGoals, GoalsChange(from: first.adding(days: days / 2), preset: "cutting"), user: "bench")
        print(
            "Logged \(days * entriesPerDay) entries over \(days) days in \(String(format: "%.1f", Date().timeIntervalSince(fillStart))) s at \(directory)"
        )

        var rows: [Samples] = []
        func measure(_ name: String, _ body: () throws -> Void) throws -> Samples {
            for _ in 0..<min(200, queries) { try body() }
            var samples = Samples(name: name)
            for _ in 0..<queries { try samples.record(body) }
            rows.append(samples)
            return samples
        }
        let health = try measure("health (baseline: one round trip)") { _ = try client.callBlocking(CommonAPI.health, Empty()) }
        _ = try measure("diary.summary of one day (\(entriesPerDay) entries)") {
            _ = try client.callBlocking(TrackerAPI.summary, DayRequest(date: last), user: "bench")
        }
        _ = try measure("diary.history, 30 days") {
            _ = try client.callBlocking(TrackerAPI.history, DateRange(from: last.adding(days: -29), to: last), user: "bench")
        }
        report("Tracker, \(days) days × \(entriesPerDay) entries in SQLite (WAL), over TCP", rows, baseline: health)
        serving.cancel()
        _ = try? await serving.value
    }
}
