import ArgumentParser
import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire

/// Replicas of one service on one PostgreSQL (docs/SCALING.md): calls per second of many
/// concurrent clients spreading their calls over 1, 2 and 4 catalog processes (a recipe search)
/// and tracker processes (`diary.add`, each with an idempotency key), with `health` over the
/// same clients and replicas as the baseline of each run.
struct ReplicaBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicas",
        abstract: "Calls/s of concurrent clients over 1, 2 and 4 replicas of the catalog and the tracker on one private PostgreSQL."
    )

    @Option(help: "Replica counts to measure, comma-separated.") var replicas = "1,2,4"
    @Option(help: "Concurrent clients.") var clients = 32
    @Option(help: "Seconds each load runs.") var seconds = 10.0

    func run() async throws {
        guard PrivatePostgres.isInstalled else { throw ValidationError("PostgreSQL is not installed (deploy/install-deps.sh installs it)") }
        let counts = replicas.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-replicas-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try PrivatePostgres()
        defer { server.stop() }
        print("PostgreSQL: a private server from deploy/postgres-test-server.sh (fsync off: the figures compare replica counts, not disks)")
        print("\n| service | replicas | `health` calls/s | work calls/s | work p50 µs | work p99 µs | work ÷ `health` (calls/s) | busy refusals |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for service in [SousService.catalog, .tracker] {
            for count in counts {
                let row = try await measure(service, replicas: count, server: server, root: "\(root)/\(service.rawValue)-\(count)")
                print(row)
            }
        }
    }

    /// Starts `count` processes of `service` on a schema of their own, loads them, stops them.
    func measure(_ service: SousService, replicas count: Int, server: PrivatePostgres, root: String) async throws -> String {
        let url = server.url + (server.url.contains("?") ? "&" : "?") + "schema=bench_\(service.rawValue)_\(count)"
        var processes: [ServiceProcess] = []
        defer { for process in processes { process.stop() } }
        // The first one migrates (and seeds the catalog); the others start on what it made.
        for _ in 0..<count {
            processes.append(try ServiceProcess.start(service, dataDirectory: "\(root)/data", environment: ["SOUS_DATABASE_URL": url]))
        }
        let endpoints = processes.map(\.endpoint).joined(separator: ",")
        let curve = processes[0].curve
        let (health, work): (Load, Load)
        switch service {
        case .catalog:
            let clients = (0..<clients).map { _ in
                ServiceClient<Catalog>(endpoint: endpoints, options: .init(timeout: .seconds(30), retries: 0), curve: curve)
            }
            // Every client connected to every replica, and each replica's pages warm.
            for client in clients { _ = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "soup"), user: "warm") }
            health = try await load(clients) { client, _ in _ = try await client.call(CommonAPI.health, Empty()) }
            work = try await load(clients) { client, index in
                _ = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "soup"), user: "user\(index)")
            }
        default:
            let clients = (0..<clients).map { _ in
                ServiceClient<Tracker>(endpoint: endpoints, options: .init(timeout: .seconds(30), retries: 0), curve: curve)
            }
            let entry = DiaryAdd(
                date: LocalDate("2026-01-15"), meal: .lunch, grams: 150, food: "Lentil soup",
                per100g: Macros(kcal: 90, carbohydrates: 12, protein: 6, fat: 2))
            for client in clients { _ = try await client.call(CommonAPI.health, Empty()) }
            health = try await load(clients) { client, _ in _ = try await client.call(CommonAPI.health, Empty()) }
            // Each a keyed write of its own: the key is stored with the entry, as for any client.
            work = try await load(clients) { client, index in _ = try await client.call(TrackerAPI.addEntry, entry, user: "user\(index)") }
        }
        let name = service == .catalog ? "catalog: `recipes.search` \"soup\"" : "tracker: `diary.add`"
        return "| \(name) | \(count) | \(Int(health.rate)) | \(Int(work.rate)) | \(format(work.samples.p50)) | \(format(work.samples.p99)) | "
            + String(format: "%.2f", work.rate / health.rate) + " | \(work.busy) |"
    }

    struct Load {
        var samples: Samples
        var rate: Double
        var busy: Int
    }

    func load<Scope>(
        _ clients: [ServiceClient<Scope>], _ call: @escaping @Sendable (ServiceClient<Scope>, Int) async throws -> Void
    )
        async throws -> Load
    {
        let result = try await concurrentLoad("", clients: clients, seconds: seconds, call)
        return Load(samples: result.samples, rate: result.rate, busy: result.busy)
    }
}
