import ArgumentParser
import CatalogService
import CatalogTesting
import Foundation
import Logging
import MessagePack
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire

/// Planner reads over tcp loopback: `profile.get` (what other services ask most) and `plan.get`
/// (the week view), against the `health` round trip of the same server as the baseline.
struct PlannerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "planner", abstract: "profile.get and plan.get latency against the health round trip.")

    @Option(help: "Users with a saved profile and a full week (14 slots each).") var users = 500
    @Option(help: "Timed calls per measurement.") var queries = 5_000
    @Flag(help: "A small run (20 users, 300 calls) to check the benchmark works.") var quick = false
    @Option(help: "Folder for the database (default: a temporary folder, removed afterwards).") var dataDir: String?

    func run() async throws {
        let users = quick ? 20 : self.users
        let queries = quick ? 300 : self.queries
        let directory = dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-\(UUID().uuidString)").path
        defer { if dataDir == nil { try? FileManager.default.removeItem(atPath: directory) } }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical

        // The catalog only answers recipe names while the plans are filled.
        let catalog = try CatalogFixture.make()
        var configuration = ServiceConfiguration.inProcess(.planner, peers: [.catalog: catalog.host.boundEndpoints])
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let planner = try PlannerService(
            configuration: configuration, logger: logger, database: PlannerService.openDatabase(at: .sqlite(directory: directory), logger: logger))
        let servingCatalog = Task { try await catalog.host.run(signals: false) }
        let serving = Task { try await planner.host.run(signals: false) }
        let client = try planner.host.testClient(as: Planner.self, timeout: .seconds(10))

        let recipes = try CatalogFixture.seed.recipes.prefix(14).map(\.id)
        let zones = ["UTC", "Europe/Rome", "Pacific/Auckland", "America/Los_Angeles"]
        let fillStart = Date()
        for index in 0..<users {
            let user = "bench-\(index)"
            let profile = try client.callBlocking(
                PlannerAPI.updateProfile, ProfileUpdate(people: index % 6 + 1, diets: [.vegetarian], timeZone: zones[index % zones.count]), user: user
            )
            let today = LocalDate(Date(), in: TimeZone(identifier: profile.timeZone)!)
            for day in 0..<7 {
                for slot in 1...2 {
                    let recipe = recipes[(index + day * 2 + slot) % recipes.count]
                    try client.callBlocking(PlannerAPI.putSlot, SlotAssignment(date: today.adding(days: day), slot: slot, recipe: recipe), user: user)
                }
            }
        }
        print("Filled \(users) users × 14 slots in \(String(format: "%.1f", Date().timeIntervalSince(fillStart))) s at \(directory)")

        var random = SplitMix64(seed: 11)
        let who = (0..<queries).map { _ in "bench-\(Int.random(in: 0..<users, using: &random))" }
        func measure(_ name: String, _ body: (String) throws -> Void) throws -> Samples {
            for index in 0..<min(200, queries) { try body(who[index]) }
            var samples = Samples(name: name)
            for index in 0..<queries { try samples.record { try body(who[index]) } }
            return samples
        }
        // The round trips against their baseline in alternating blocks, as `rpc` times them.
        let roundTrips = try measureInterleaved(
            [
                ("health round trip (baseline)", { _ in _ = try client.callBlocking(CommonAPI.health, Empty()) }),
                ("profile.get", { index in _ = try client.callBlocking(PlannerAPI.getProfile, Empty(), user: who[index]) }),
                ("plan.get (7 days, 14 slots, selection)", { index in _ = try client.callBlocking(PlannerAPI.getPlan, Empty(), user: who[index]) }),
            ], calls: queries, warmup: min(200, queries))
        let (health, profile, week) = (roundTrips[0], roundTrips[1], roundTrips[2])
        // Where a call's time goes: the same reads on the store alone, and the week's reply coded.
        let store = planner.store
        let profileRead = try measure("profile read on the store") { user in _ = try store.profile(user: user) }
        let weekRead = try measure("week read on the store") { user in _ = try store.week(member: .alone(user), now: Date()) }
        let sampleWeek = try store.week(member: .alone(who[0]), now: Date())
        let weekCoding = try measure("week reply encoded and decoded") { _ in
            _ = try MessagePackDecoder().decode(WeekPlan.self, from: MessagePackEncoder().encode(sampleWeek))
        }
        report(
            "Planner reads over tcp loopback, \(users) users",
            [health, profile, week, profileRead, weekRead, weekCoding],
            baseline: health)
        for task in [serving, servingCatalog] {
            task.cancel()
            _ = try? await task.value
        }
    }
}
