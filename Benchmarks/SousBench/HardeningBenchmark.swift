import ArgumentParser
import CatalogService
import Foundation
import GRDB
import GroceriesService
import Logging
import MessagePack
import PlannerService
import PlannerTesting
import SousCrypto
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Synchronization
import TrackerService
import ZeroMQ

/// What attacks and heavy work cost everyone else (docs/BENCHMARKS.md, "Hardening"): light calls
/// while heavy searches run, one client's flood, the price of a durable write, and the memory
/// and threads each attack leaves behind. Services run in this process over loopback TCP.
struct HardeningBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hardening",
        abstract: "Light-call latency under heavy searches and under a flood, the cost of durable keyed writes, memory and threads under attack."
    )

    @Option(help: "Synthetic recipes for the heavy searches.") var recipes = 100_000
    @Option(help: "Heavy searches kept in flight.") var heavy = 8
    @Option(help: "Timed light calls per measurement.") var queries = 2_000
    @Flag(help: "A small run for checking the benchmark works.") var quick = false

    func run() async throws {
        let recipes = quick ? 5_000 : self.recipes
        let queries = quick ? 300 : self.queries
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }

        try await writes(directory: directory + "/writes", logger: logger, queries: queries)
        try await stallAndFlood(directory: directory + "/catalog", recipes: recipes, queries: queries, logger: logger)
        try await downPeer(logger: logger)
    }

    static func tcp(_ service: SousService, directory: String? = nil) -> ServiceConfiguration {
        var configuration = ServiceConfiguration.inProcess(service, dataDirectory: directory)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        return configuration
    }

    static func threads() -> Int { ProcessMemory.read().threads }

    static func state(_ label: String) -> String { ProcessMemory.read().describe(label) }

    // MARK: Durable writes

    /// `diary.add` over the socket with and without an idempotency key (the record written in
    /// the same transaction), and a bare SQLite commit under synchronous NORMAL and FULL.
    func writes(directory: String, logger: Logger, queries: Int) async throws {
        let service = try TrackerService(configuration: Self.tcp(.tracker, directory: directory), logger: logger)
        let serving = Task { try await service.host.run(signals: false) }
        defer { serving.cancel() }
        let socket = try ZMQContext.shared.socket(.dealer)
        defer { socket.close() }
        // Over TCP every client speaks CURVE: a stranger's key pair, the tracker's public key.
        let curve = try service.host.clientCurve()
        try socket.setCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair)
        try socket.connect(service.host.boundEndpoints.requests)
        let add = try MessagePackEncoder().encode(
            DiaryAdd(
                date: LocalDate("2026-03-10"), meal: .lunch, grams: 120, food: "Bench bread",
                per100g: Macros(kcal: 250, carbohydrates: 45, protein: 9, fat: 3)
            ))
        var rows: [Samples] = []
        for keyed in [false, true] {
            var samples = Samples(name: keyed ? "diary.add with an idempotency key (record in the write's transaction)" : "diary.add without a key")
            for index in 0..<(queries + 100) {
                // A new user now and then keeps each day under the diary quota.
                let header = RequestHeader(
                    method: TrackerAPI.addEntry.name, id: "w\(index)", session: TestSessions.token(for: "bench-\(keyed)-\(index / 150)"),
                    idempotencyKey: keyed ? UUID().uuidString : nil)
                let frames = try Envelope.requestFrames(header, body: add)
                let start = DispatchTime.now().uptimeNanoseconds
                try socket.send(multipart: frames)
                guard let reply = try socket.receive(timeout: .seconds(10)) else { throw ServiceError.unavailable("no reply") }
                _ = try Envelope.parseReply(reply).decode(DiaryEntry.self)
                if index >= 100 { samples.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start) }
            }
            rows.append(samples)
        }
        report("Durable writes: tracker diary.add over loopback TCP, WAL file, synchronous=FULL", rows, baseline: rows[0])

        var commits: [Samples] = []
        for mode in ["NORMAL", "FULL"] {
            let pool = try DatabasePool(path: directory + "/sync-\(mode).sqlite")
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(mode)")
                try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT)")
            }
            var samples = Samples(name: "one-row commit, synchronous=\(mode)")
            for _ in 0..<queries {
                try samples.record { try pool.write { try $0.execute(sql: "INSERT INTO t (text) VALUES ('x')") } }
            }
            commits.append(samples)
        }
        report("SQLite commit on this disk (direct, no service)", commits, baseline: commits[0])
    }

    // MARK: Heavy searches and a flood

    func stallAndFlood(directory: String, recipes: Int, queries: Int, logger: Logger) async throws {
        // The catalog runs as its own process (the real executable), so its memory and threads
        // are its own: the database is prepared here, with a seed version newer than the shipped
        // one so the service keeps it.
        let synthetic = SyntheticCatalog.make(recipes: recipes, ingredients: 2_000)
        let seed = SeedData(version: 1_000_000, ingredients: synthetic.ingredients, recipes: synthetic.recipes)
        do {
            let database = try CatalogService.openDatabase(at: .sqlite(directory: directory), logger: logger)
            _ = try CatalogStore(database: database).reloadSeed(seed)
        }
        let process = try ServiceProcess.start(.catalog, dataDirectory: directory)
        defer { process.stop() }
        let endpoint = process.endpoint
        print("\nsous-catalog (pid \(process.pid)) on \(recipes) synthetic recipes. \(process.state("after start"))")

        /// `queries` light calls from their own client: latency and how many got no answer.
        func lightCalls(_ name: String) async -> (Samples, unanswered: Int, busy: Int) {
            let client = ServiceClient<Catalog>(endpoint: endpoint, options: .init(timeout: .seconds(10), retries: 0), curve: process.curve)
            var samples = Samples(name: name)
            var unanswered = 0
            var busy = 0
            for index in 0..<queries {
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    _ = try await client.call(
                        CatalogAPI.searchIngredients, IngredientSearch(query: ["tom", "oni", "gar", "car"][index % 4]), user: "light")
                    samples.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
                } catch {
                    if error.message.contains("busy") { busy += 1 } else { unanswered += 1 }
                }
            }
            return (samples, unanswered, busy)
        }

        let (baseline, baselineLost, _) = await lightCalls("ingredients.search, nothing else running (baseline)")

        // Heavy: fully filtered text searches kept in flight by `heavy` clients.
        let stop = SharedFlag()
        let heavyCalls = SharedCount()
        let filtered = RecipeSearch(
            query: "soup",
            profile: RecipeFilterProfile(
                diets: [.vegetarian], allergens: [.nuts], dislikes: ["syn-ingredient-1"], equipment: [.stove, .oven, .microwave], patience: 4
            ), pageSize: 100)
        let heavyTasks = (0..<heavy).map { index in
            Task.detached {
                let client = ServiceClient<Catalog>(endpoint: endpoint, options: .init(timeout: .seconds(30), retries: 0), curve: process.curve)
                var page = 1
                while !stop.isSet {
                    var search = filtered
                    search.page = page
                    search.query = ["soup", "stew", "curry", "salad"][(index + page) % 4]
                    _ = try? await client.call(CatalogAPI.searchRecipes, search, user: "heavy\(index)")
                    heavyCalls.add(1)
                    page = page % 5 + 1
                }
            }
        }
        let (stalled, stalledLost, stalledBusy) = await lightCalls("ingredients.search with \(heavy) heavy searches in flight")
        stop.set(true)
        for task in heavyTasks { await task.value }
        report("Light calls while heavy searches run (catalog, \(recipes) recipes)", [baseline, stalled], baseline: baseline)
        print(
            "Unanswered light calls: \(baselineLost) baseline, \(stalledLost) with heavy searches (\(stalledBusy) busy); \(heavyCalls.value) heavy searches done meanwhile."
        )
        print(process.state("after the heavy searches"))

        // Flood: one connection sends 5000 searches per round without reading, then drops.
        let flooding = SharedFlag()
        let rounds = SharedCount()
        let floodCurve = process.setup
        let flooder = Task.detached {
            let request = try Envelope.requestFrames(
                RequestHeader(method: CatalogAPI.searchRecipes.name, id: "flood"), body: MessagePackEncoder().encode(RecipeSearch(query: "soup")))
            while flooding.isSet {
                let socket = try ZMQContext.shared.socket(.dealer)
                try socket.setLinger(milliseconds: 0)
                try socket.setCurveClient(serverKey: floodCurve.serverKey, keyPair: floodCurve.keyPair)
                try socket.setSendHighWaterMark(0)
                try socket.connect(endpoint)
                for _ in 0..<5_000 { try socket.send(multipart: request) }
                _ = try socket.receive(timeout: .seconds(10))
                socket.close()
                rounds.add(1)
                if rounds.value % 100 == 0 { print(process.state("after \(rounds.value) flood rounds")) }
            }
        }
        flooding.set(true)
        let (flooded, floodedLost, floodedBusy) = await lightCalls("ingredients.search while one client floods")
        let during = process.state("during the flood")
        flooding.set(false)
        _ = try? await flooder.value
        report("One client floods (5000 searches a round, never reading, then disconnecting)", [baseline, flooded], baseline: baseline)
        print("Flood rounds: \(rounds.value); unanswered light calls: \(floodedLost) (\(floodedBusy) busy).")
        print(during)
        print(process.state("after the flood"))

        // Unread replies: 20 connections each send 32 searches (what one connection may have in
        // flight) every 100 ms for 30 s, and never read (each takes in one reply at most); they
        // stay connected while light calls are timed, then go.
        var unread: [ZMQSocket] = []
        let search = try Envelope.requestFrames(
            RequestHeader(method: CatalogAPI.searchRecipes.name, id: "unread"), body: MessagePackEncoder().encode(RecipeSearch(query: "soup")))
        for _ in 0..<20 {
            let socket = try ZMQContext.shared.socket(.dealer)
            try socket.setLinger(milliseconds: 0)
            try socket.setCurveClient(serverKey: floodCurve.serverKey, keyPair: floodCurve.keyPair)
            try socket.setSendHighWaterMark(0)
            try socket.setReceiveHighWaterMark(1)
            try socket.connect(endpoint)
            unread.append(socket)
        }
        for _ in 0..<300 {
            for socket in unread {
                for _ in 0..<32 { try socket.send(multipart: search) }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Self.untilSettled(pid: process.pid)
        let (withUnread, unreadLost, _) = await lightCalls("ingredients.search while 20 connections leave replies unread")
        report("20 connections sending 32 searches every 100 ms for 30 s, never reading", [baseline, withUnread], baseline: baseline)
        print("Unanswered light calls: \(unreadLost).")
        print(process.state("with 20 connections not reading"))
        for socket in unread { socket.close() }
        unread.removeAll()
        try await Self.untilSettled(pid: process.pid)
        print(process.state("after they went"))
    }

    /// Waits until the process's resident memory stops changing (the same in two looks half a
    /// second apart) or 30 s pass: the catalog has worked through the backlog or freed it.
    static func untilSettled(pid: Int32) async throws {
        var last = ProcessMemory.read(pid: pid).rss
        for _ in 0..<60 {
            try await Task.sleep(for: .milliseconds(500))
            let now = ProcessMemory.read(pid: pid).rss
            if now == last { return }
            last = now
        }
    }

    // MARK: A peer down

    /// Groceries with its catalog down: 200 concurrent addRecipe calls, and the threads they take.
    func downPeer(logger: Logger) async throws {
        let planner = try PlannerFixture.make()
        var configuration = Self.tcp(.groceries)
        configuration.peers[.planner] = planner.host.boundEndpoints
        configuration.peers[.catalog] = ServiceEndpoints(requests: "tcp://127.0.0.1:9", events: "tcp://127.0.0.1:9")
        let groceries = try GroceriesService(
            configuration: configuration, logger: logger, database: GroceriesService.openDatabase(at: .sqlite(directory: nil), logger: logger))
        let servingPlanner = Task { try await planner.host.run(signals: false) }
        let servingGroceries = Task { try await groceries.host.run(signals: false) }
        defer {
            servingPlanner.cancel()
            servingGroceries.cancel()
        }
        let before = Self.threads()
        let peak = SharedCount()
        let client = try groceries.host.testClient(as: Groceries.self, timeout: .seconds(4))
        let start = Date()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    _ = try? await client.call(
                        GroceriesAPI.addRecipe, AddRecipeToList(recipe: "tomato-lentil-soup", multiplier: 1), user: "u\(index)")
                }
            }
            group.addTask {
                for _ in 0..<20 {
                    let now = Self.threads()
                    peak.raise(to: now)
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        print(
            "\n### A peer down\n\nGroceries with the catalog down, 200 concurrent groceries.addRecipe (4 s client timeout): threads in this process \(before) before, at most \(peak.value) while waiting; all answered in \(String(format: "%.1f", Date().timeIntervalSince(start))) s."
        )
        print(Self.state("after"))
    }
}

final class SharedFlag: Sendable {
    private let flag = Atomic(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set(_ value: Bool) { flag.store(value, ordering: .relaxed) }
}

final class SharedCount: Sendable {
    private let count = Atomic(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add(_ amount: Int) { count.add(amount, ordering: .relaxed) }
    func raise(to candidate: Int) { count.max(candidate, ordering: .relaxed) }
}
