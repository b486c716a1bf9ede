import ArgumentParser
import CatalogService
import CatalogTesting
import Foundation
import Logging
import MessagePack
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire

/// The same recipe search on the same `CatalogStore` and the same data, served three ways in one
/// process: Sous (ZeroMQ + MessagePack over CURVE), HTTP/1.1 + JSON (Hummingbird, async-http-client)
/// and gRPC (grpc-swift-2 over HTTP/2, JSON messages). Sequential calls, one at a time.
@main
struct SousPeers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sous-peers",
        abstract: "The catalog's recipe search over Sous, HTTP/JSON (Hummingbird) and gRPC (grpc-swift-2), side by side in one process."
    )

    @Option(help: "Timed sequential calls per row.") var queries = 5_000
    @Option(help: "Warm-up calls per row before timing.") var warmup = 500
    @Option(help: "Rounds the timed calls are split into; the rows take turns, so drift on a shared machine falls on all of them alike.")
    var rounds = 5

    func run() async throws {
        var logger = Logger(label: "peers")
        logger.logLevel = .critical
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-peers-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // The shipped catalog in a WAL file database, as the service runs it; one store for all three.
        let seed = try CatalogFixture.seed
        let database = try CatalogService.openDatabase(at: .sqlite(directory: directory), logger: logger)
        var configuration = ServiceConfiguration.inProcess(.catalog)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let service = try CatalogService(configuration: configuration, seed: seed, logger: logger, database: database)
        let store = service.store
        let sousServing = Task { try await service.host.run(signals: false) }
        // Over TCP every Sous client speaks CURVE (a stranger's key pair, the catalog's public key)
        // and carries a signed session token for "bench" (checked once, then cached by the gate).
        let sous = try service.host.testClient(as: Catalog.self, timeout: .seconds(10))
        let http = try await HTTPPeer.start(store: store, logger: logger)
        let httpClient = HTTPSearchClient(port: http.port)
        let grpc = try await GRPCPeer.start(store: store)

        print("Catalog: \(seed.recipes.count) recipes, \(seed.ingredients.count) ingredients (the shipped seed), WAL file database at \(directory)")
        print("Sous:  \(service.host.boundEndpoints.requests) (ZeroMQ DEALER/ROUTER, MessagePack, CURVE)")
        print("HTTP:  http://127.0.0.1:\(http.port)/recipes/search (Hummingbird 2, HTTP/1.1, JSON, plaintext)")
        print("gRPC:  127.0.0.1:\(grpc.port) sous.Catalog/SearchRecipes (grpc-swift-2, HTTP/2, JSON messages, plaintext)")
        print("Process: pid \(ProcessInfo.processInfo.processIdentifier), \(ProcessInfo.processInfo.activeProcessorCount) CPUs available")

        let searches: [(name: String, request: RecipeSearch)] = [
            ("name search \"soup\"", RecipeSearch(query: "soup", pageSize: 20)),
            (
                "fully filtered default search (vegetarian, no nuts/sesame, 2 dislikes, stove/microwave/mixer, patience 3)",
                RecipeSearch(
                    profile: RecipeFilterProfile(
                        diets: [.vegetarian], allergens: [.nuts, .sesame], dislikes: ["mushrooms", "eggplant"],
                        equipment: [.stove, .microwave, .mixer], patience: 3
                    ),
                    pageSize: 20
                )
            ),
        ]

        var results: [(String, [Samples])] = []
        for (name, request) in searches {
            // The same answer from all three before anything is timed.
            let direct = try store.searchRecipes(request, user: "bench", filter: Self.filter(request))
            let overSous = try sous.callBlocking(CatalogAPI.searchRecipes, request, user: "bench")
            let overHTTP = try await httpClient.search(request)
            let overGRPC = try await grpc.search(request)
            let ids = direct.recipes.map(\.id)
            guard overSous.recipes.map(\.id) == ids, overHTTP.recipes.map(\.id) == ids, overGRPC.recipes.map(\.id) == ids else {
                throw PeerError(
                    "\(name): the stacks disagree: direct \(ids), Sous \(overSous.recipes.map(\.id)), HTTP \(overHTTP.recipes.map(\.id)), "
                        + "gRPC \(overGRPC.recipes.map(\.id))")
            }
            guard !ids.isEmpty else { throw PeerError("\(name): no recipe matches; pick a search that returns a page") }
            print(
                "\n\(name): the same \(ids.count) recipe ids (of \(direct.total)) from the store, Sous, HTTP and gRPC: \(ids.joined(separator: ", "))"
            )
            print(
                "  whole pages equal to the store's: Sous \(overSous == direct), HTTP \(overHTTP == direct), gRPC \(overGRPC == direct)"
                    + " (JSON round-trips Doubles by their shortest text)")
            let json = JSONEncoder()
            let pack = MessagePackEncoder()
            print(
                "  bytes on the wire (bodies only): request MessagePack \(try pack.encode(request).count) / JSON \(try json.encode(request).count), "
                    + "reply MessagePack \(try pack.encode(direct).count) / JSON \(try json.encode(direct).count)")

            var rows: [(Samples, (RecipeSearch) async throws -> Void)] = [
                (
                    Samples(name: "direct on the store (floor, no transport)"),
                    { _ = try store.searchRecipes($0, user: "bench", filter: Self.filter($0)) }
                ),
                (
                    Samples(name: "Sous, blocking client (ZeroMQ + MessagePack, CURVE)"),
                    { _ = try sous.callBlocking(CatalogAPI.searchRecipes, $0, user: "bench") }
                ),
                (Samples(name: "Sous, async client"), { _ = try await sous.call(CatalogAPI.searchRecipes, $0, user: "bench") }),
                (Samples(name: "HTTP/1.1 + JSON (Hummingbird, async-http-client)"), { _ = try await httpClient.search($0) }),
                (Samples(name: "gRPC (grpc-swift-2, HTTP/2, JSON messages)"), { _ = try await grpc.search($0) }),
            ]
            for (_, call) in rows {
                for _ in 0..<warmup { try await call(request) }
            }
            let roundCount = max(1, min(rounds, queries))
            for round in 0..<roundCount {
                let calls = queries / roundCount + (round < queries % roundCount ? 1 : 0)
                for turn in 0..<rows.count {
                    let index = (turn + round) % rows.count
                    let call = rows[index].1
                    var times: [UInt64] = []
                    times.reserveCapacity(calls)
                    let cpuStart = processCPUMicroseconds()
                    for _ in 0..<calls {
                        let start = now()
                        try await call(request)
                        times.append(now() - start)
                    }
                    rows[index].0.cpuMicroseconds += processCPUMicroseconds() - cpuStart
                    rows[index].0.nanoseconds += times
                }
            }
            results.append((name, rows.map(\.0)))
        }

        for (name, rows) in results { report(name, rows) }
        print(
            """

            Context, not measured here: Sous serves TCP only over CURVE; HTTP and gRPC run without TLS. \
            A bare libzmq DEALER/ROUTER echo costs 39.6–44.7 µs p50 in plaintext and 54.4–56.0 µs over CURVE on this machine \
            (docs/BENCHMARKS.md): CURVE adds about 15 µs to each Sous round trip.
            """)
        let memory = memoryKilobytes()
        print("\nMemory: VmRSS \(memory.rss / 1024) MiB, VmHWM \(memory.hwm / 1024) MiB (the three servers, their clients and the catalog)")

        await httpClient.shutdown()
        await http.stop()
        await grpc.stop()
        sousServing.cancel()
        _ = try? await sousServing.value
    }

    static func filter(_ request: RecipeSearch) -> (profile: RecipeFilterProfile, switches: FilterSwitches)? {
        request.profile.map { ($0, request.switches ?? FilterSwitches()) }
    }

    /// A Markdown table of one search: latency, CPU per call and each row's p50 against Sous's.
    func report(_ title: String, _ rows: [Samples]) {
        guard let blocking = rows.first(where: { $0.name.hasPrefix("Sous, blocking") }),
            let async = rows.first(where: { $0.name.hasPrefix("Sous, async") })
        else { return }
        print("\n### \(title): \(queries) sequential calls per row in \(rounds) rounds, \(warmup) warm-up\n")
        print("| stack | n | p50 µs | p90 µs | p99 µs | CPU µs/call | p50 ÷ Sous blocking | p50 ÷ Sous async |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for row in rows {
            print(
                "| \(row.name) | \(row.nanoseconds.count) | \(format(row.p50)) | \(format(row.p90)) | \(format(row.p99)) | \(format(row.cpuPerCall)) "
                    + "| \(ratio(row.p50, blocking.p50)) | \(ratio(row.p50, async.p50)) |")
        }
        let http = rows.first { $0.name.hasPrefix("HTTP") }
        let grpc = rows.first { $0.name.hasPrefix("gRPC") }
        print("")
        for (peer, target) in [(http, 5.0), (grpc, 10.0)] {
            guard let peer else { continue }
            let byBlocking = peer.p50 / blocking.p50
            let byAsync = peer.p50 / async.p50
            let label = peer.name.prefix { $0 != " " && $0 != "/" }
            print(
                "Target: Sous ≥ \(Int(target))× faster than \(label) at p50: \(String(format: "%.2f", byBlocking))× (blocking client) "
                    + "\(byBlocking >= target ? "met" : "NOT met"), \(String(format: "%.2f", byAsync))× (async client) "
                    + "\(byAsync >= target ? "met" : "NOT met"); CPU per call \(ratio(peer.cpuPerCall, blocking.cpuPerCall)) Sous blocking's")
        }
        // Context, not the target: what each stack adds to the search itself (p50 minus the floor's).
        if let floor = rows.first(where: { $0.name.hasPrefix("direct") }) {
            let added = [blocking, async, http, grpc].compactMap { $0 }.map { ($0.name.prefix { $0 != "(" }, $0.p50 - floor.p50) }
            print(
                "Added to the search (p50 minus the floor's \(format(floor.p50)) µs): "
                    + added.map { "\($0.0.trimmingCharacters(in: .whitespaces)) \(format($0.1)) µs (\(ratio($0.1, added[0].1)))" }
                    .joined(separator: ", "))
        }
    }
}
