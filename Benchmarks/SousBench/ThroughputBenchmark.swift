import ArgumentParser
import CatalogService
import Foundation
import Logging
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Synchronization
import ZeroMQ

/// Against real service processes: one client's sequential `recipes.get` and search next to its
/// `health`; calls per second and latency of 50 concurrent clients searching the shipped catalog
/// (against the same clients calling `health`),
/// and each service's resident memory once started and idle (against a bare Swift ZeroMQ echo
/// process, the floor of any Swift server here), with the part of it the service then uses.
struct ThroughputBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "throughput",
        abstract: "Calls/s of many concurrent clients against the catalog process, and the idle memory of every service process."
    )

    @Option(help: "Concurrent clients.") var clients = 50
    @Option(help: "Seconds each load runs.") var seconds = 10.0
    @Option(help: "Timed calls of each kind from one client.") var sequentialCalls = 5_000

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-throughput-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try idleMemory(root: root)
        try await concurrentSearches(root: root)
    }

    // MARK: Idle memory

    func idleMemory(root: String) throws {
        print("\n### Resident memory once started and answering `health` (VmRSS, idle)\n")
        print(
            "| process | VmRSS MiB | of which its own (RssAnon) | of which mapped files (RssFile) | threads"
                + " | used in the next \(Int(Self.idleWindow)) s, idle (working set, MiB) |")
        print("|---|---:|---:|---:|---:|---:|")
        func row(_ name: String, pid: Int32) {
            let memory = ProcessMemory.read(pid: pid)
            let used = ProcessMemory.forgetUse(pid: pid) ? Self.usedWhileIdle(pid: pid) : "?"
            print(
                "| \(name) | \(memory.rss / 1024) | \(memory.anonymous / 1024) | \(memory.fileBacked / 1024) | \(memory.threads) | \(used) |")
        }
        let echo = try EchoProcess.start()
        row("bare Swift ZeroMQ echo (`sous-bench raw-echo-server`, the floor)", pid: echo.pid)
        echo.stop()
        for service in SousService.allCases {
            let process = try ServiceProcess.start(service, dataDirectory: "\(root)/\(service.rawValue)")
            row("sous-\(service.rawValue)", pid: process.pid)
            process.stop()
        }

        // What a host running all of Sous pays: the five started together, each one's share of
        // the pages they map in common (one executable, the same libraries) and its own.
        print("\n### The five started together, idle (what each costs a host running all of them)\n")
        print("| process | VmRSS MiB | PSS MiB (its share of pages mapped by several) | USS MiB (pages only it maps) |")
        print("|---|---:|---:|---:|")
        let together = try SousService.allCases.map { service in
            try ServiceProcess.start(service, dataDirectory: "\(root)/together-\(service.rawValue)")
        }
        defer { for process in together { process.stop() } }
        /// KiB in MiB, one decimal.
        func mebibytes(_ kibibytes: Int) -> String { String(format: "%.1f", Double(kibibytes) / 1024) }
        func sharingRow(_ name: String, _ memory: ProcessMemory) {
            print("| \(name) | \(mebibytes(memory.rss)) | \(mebibytes(memory.proportional)) | \(mebibytes(memory.unshared)) |")
        }
        var total = 0
        for (service, process) in zip(SousService.allCases, together) {
            let memory = ProcessMemory.read(pid: process.pid)
            total += memory.proportional
            sharingRow("sous-\(service.rawValue)", memory)
        }
        print("| all five | | \(mebibytes(total)) | |")

        // `sous-server all`: the five in one process (measured alone: the five above stopped).
        for process in together { process.stop() }
        let all = try ServiceProcess.startAll(dataDirectory: "\(root)/all")
        defer { all.stop() }
        sharingRow("`sous-server all`, the five in one process", ProcessMemory.read(pid: all.pid))
    }

    /// How long a started process is left alone while its working set is measured: its idle
    /// work comes every second (the planner asked for revocations, libzmq's heartbeats), so a
    /// few seconds see everything an idle service does.
    static let idleWindow = 3.0

    /// MiB of the process's pages used during ``idleWindow`` from now (a measuring window, not a wait for anything).
    static func usedWhileIdle(pid: Int32) -> String {
        Thread.sleep(forTimeInterval: idleWindow)
        return String(format: "%.1f", Double(ProcessMemory.read(pid: pid).used) / 1024)
    }

    // MARK: Concurrent clients

    func concurrentSearches(root: String) async throws {
        let process = try ServiceProcess.start(.catalog, dataDirectory: "\(root)/load")
        defer { process.stop() }
        let endpoint = process.endpoint
        let clients = (0..<clients).map { _ in
            ServiceClient<Catalog>(endpoint: endpoint, options: .init(timeout: .seconds(30), retries: 0), curve: process.curve)
        }

        func load(
            _ name: String, _ call: @escaping @Sendable (ServiceClient<Catalog>, Int) async throws -> Void
        ) async throws -> (Samples, rate: Double, busy: Int) {
            let result = try await concurrentLoad(name, clients: clients, seconds: seconds, call)
            return (result.samples, result.rate, result.busy)
        }

        // One client, one call at a time: what a single user's request costs next to `health`.
        let single = clients[0]
        var sequential: [Samples] = []
        for (name, call) in [
            ("`health` (baseline)", { @Sendable in _ = try await single.call(CommonAPI.health, Empty()) }),
            (
                "`recipes.get` tomato-lentil-soup",
                { @Sendable in _ = try await single.call(CatalogAPI.getRecipe, RecipeLookup(id: "tomato-lentil-soup"), user: "one") }
            ),
            ("default `recipes.search`", { @Sendable in _ = try await single.call(CatalogAPI.searchRecipes, RecipeSearch(), user: "one") }),
        ] as [(String, @Sendable () async throws -> Void)] {
            for _ in 0..<500 { try await call() }
            var samples = Samples(name: name)
            for _ in 0..<sequentialCalls {
                let begin = DispatchTime.now().uptimeNanoseconds
                try await call()
                samples.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - begin)
            }
            sequential.append(samples)
        }
        // The same recipe read on the store alone, in this process, from the service's own file:
        // what the call costs before sockets, envelopes, CURVE and the codec.
        let store = try CatalogStore(
            database: CatalogService.openDatabase(at: .sqlite(directory: "\(root)/load"), logger: Logger(label: "bench")))
        for _ in 0..<500 { _ = try store.recipe("tomato-lentil-soup", user: "one", people: nil) }
        var direct = Samples(name: "the same recipe read on the store (this process, the service's file)")
        for _ in 0..<sequentialCalls { try direct.record { _ = try store.recipe("tomato-lentil-soup", user: "one", people: nil) } }
        sequential.append(direct)
        for _ in 0..<500 { _ = try store.searchRecipes(RecipeSearch(), user: "one", filter: nil) }
        var directSearch = Samples(name: "the same default search read on the store (this process, the service's file)")
        for _ in 0..<sequentialCalls { try directSearch.record { _ = try store.searchRecipes(RecipeSearch(), user: "one", filter: nil) } }
        sequential.append(directSearch)
        report("One client, sequential calls, the catalog process (shipped catalog, CURVE)", sequential, baseline: sequential[0])

        // Warm-up: every client connected and the catalog's pages cached.
        for client in clients { _ = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(), user: "warm") }
        // From here, which of the catalog's pages the three loads use: its working set under load.
        let usesMeasured = ProcessMemory.forgetUse(pid: process.pid)
        let health = try await load("`health`, \(clients.count) clients (baseline)") { client, _ in
            _ = try await client.call(CommonAPI.health, Empty())
        }
        let search = try await load("default `recipes.search`, \(clients.count) clients") { client, index in
            _ = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(), user: "user\(index)")
        }
        let named = try await load("`recipes.search` for \"soup\", \(clients.count) clients") { client, index in
            _ = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "soup"), user: "user\(index)")
        }
        report(
            "\(clients.count) concurrent clients for \(Int(seconds)) s each, the catalog process (shipped catalog, CURVE)",
            [health.0, search.0, named.0], baseline: health.0)
        print("\n| load | answered calls/s | busy refusals |\n|---|---:|---:|")
        for (name, result) in [("health", health), ("default search", search), ("\"soup\"", named)] {
            print("| \(name) | \(Int(result.rate)) | \(result.busy) |")
        }
        print(process.state("after the load"))
        if usesMeasured {
            let memory = ProcessMemory.read(pid: process.pid)
            print(
                "pages used during the three loads (working set): "
                    + String(format: "%.1f MiB of VmRSS %.1f MiB", Double(memory.used) / 1024, Double(memory.rss) / 1024))
        }
    }
}

/// `sous-bench raw-echo-server` as a child process: a ROUTER that sends every message back.
final class EchoProcess: Sendable {
    let pid: Int32
    private let process: Process

    private init(process: Process) {
        self.process = process
        pid = process.processIdentifier
    }

    static func start() throws -> EchoProcess {
        let endpoint = "tcp://127.0.0.1:\(try ServiceProcess.freePort())"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["raw-echo-server", "--endpoint", endpoint]
        try process.run()
        let started = EchoProcess(process: process)
        // Answered once: the socket is bound and the process past its start.
        let socket = try ZMQContext.shared.socket(.dealer)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 0)
        try socket.connect(endpoint)
        try socket.send(multipart: [[1]])
        guard try socket.receive(timeout: .seconds(30)) != nil else {
            started.stop()
            throw ServiceError.unavailable("raw-echo-server did not answer")
        }
        return started
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// A bare ROUTER echo in its own process: the memory floor of a Swift process serving ZeroMQ.
struct RawEchoServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "raw-echo-server", abstract: "A bare ZeroMQ ROUTER echo (the memory baseline of `throughput`).", shouldDisplay: false)

    @Option(help: "Endpoint to bind.") var endpoint: String

    func run() throws {
        let socket = try ZMQContext.shared.socket(.router)
        try socket.bind(endpoint)
        while true {
            guard let message = try socket.receive(timeout: .seconds(3600)) else { continue }
            try socket.send(multipart: message)
        }
    }
}
