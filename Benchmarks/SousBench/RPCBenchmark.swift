import ArgumentParser
import Foundation
import GRDB
import Logging
import MessagePack
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Synchronization
import ZeroMQ

/// `health` through the whole stack against a bare DEALER/ROUTER echo over the same transport,
/// both over CURVE (as the services always serve TCP), with the plaintext echo for reference.
struct RPCBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "Round trip of `health` through client, envelope, codec and runtime vs a raw libzmq DEALER/ROUTER echo."
    )

    @Option(help: "Timed calls per measurement.") var calls = 10_000
    @Option(help: "Warm-up calls before each measurement.") var warmup = 500
    @Option(help: "Transport endpoint to bind (a port the OS picks).") var endpoint = "tcp://127.0.0.1:*"

    func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        // A file database in WAL mode, as the services run it (reads go through GRDB's reader pool).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-rpc-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SousDatabase(name: "bench", directory: directory, migrator: DatabaseMigrator())
        var configuration = ServiceConfiguration.inProcess(.catalog)
        configuration.bind = endpoint
        configuration.eventsBind = endpoint
        let host = try ServiceHost(configuration: configuration, logger: logger, databaseHealth: { database.health() })
        host.server.register(Self.noOnLane, use: { (_: Empty, _: RequestContext) async throws -> Empty in Empty() })
        let echo = try RawEcho(endpoint: endpoint)
        let curveKeys = try CurveKeyPair.generate()
        let curveEcho = try RawEcho(endpoint: endpoint, curve: curveKeys)
        let serving = Task { try await host.run(signals: false) }

        let plain = try measureRawEcho(echo.endpoint, name: "raw libzmq DEALER/ROUTER echo, plaintext")
        let curveDealer = try RawEchoDealer(
            curveEcho.endpoint, curve: CurveClientSetup(serverKey: curveKeys.publicKey, keyPair: try CurveKeyPair.generate()))
        defer { curveDealer.close() }
        let setup = try host.clientCurve()
        let client = ServiceClient<Catalog>(
            endpoint: host.boundEndpoints.requests, options: .init(timeout: .seconds(5), retries: 0), curve: { setup }
        )
        let curveTimes = try measureInterleaved(
            [
                ("raw libzmq DEALER/ROUTER echo, CURVE (floor)", { _ in try curveDealer.roundTrip() }),
                ("sous health over CURVE, blocking client", { _ in _ = try client.callBlocking(CommonAPI.health, Empty()) }),
            ], calls: calls, warmup: warmup)
        let (raw, blocking) = (curveTimes[0], curveTimes[1])

        var async = Samples(name: "sous health over CURVE, async client")
        for _ in 0..<warmup { _ = try await client.call(CommonAPI.health, Empty()) }
        for _ in 0..<calls {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await client.call(CommonAPI.health, Empty())
            async.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
        }
        report("Request/reply round trip over \(host.boundEndpoints.requests)", [plain, raw, blocking, async], baseline: raw)
        // What a lane adds to a call: `health` is answered on the I/O thread; a method that does
        // nothing, on the standard lane, pays the hand-off to a lane thread and back.
        let laneTimes = try measureInterleaved(
            [
                ("sous health (answered on the I/O thread)", { _ in _ = try client.callBlocking(CommonAPI.health, Empty()) }),
                ("a method that does nothing, on the standard lane", { _ in _ = try client.callBlocking(Self.noOnLane, Empty()) }),
            ], calls: calls, warmup: warmup)
        report("The lane's hand-off: the same host, `health` against a no-op on a lane", laneTimes, baseline: laneTimes[0])
        let inProcess = try await measureInProcess(database, logger: logger)
        report("Without CURVE: in one process over inproc (no TCP, no encryption)", inProcess, baseline: inProcess[0])
        report("Server-side work per health call, no sockets", try measureServerWork(database))
        serving.cancel()
        _ = try? await serving.value
        echo.stop()
        curveEcho.stop()
    }

    /// A method the benchmark's host answers on its standard lane with nothing.
    static let noOnLane = Method<AnyService, Empty, Empty>.read("bench.nothing", .public, lane: .standard)

    /// `health` without CURVE, which the services never serve TCP without: the same host
    /// bound to `inproc://` (no TCP, no encryption), against an echo over inproc.
    func measureInProcess(_ database: SousDatabase, logger: Logger) async throws -> [Samples] {
        let host = try ServiceHost(configuration: .inProcess(.catalog), logger: logger, databaseHealth: { database.health() })
        let serving = Task { try await host.run(signals: false) }
        let echo = try RawEcho(endpoint: "inproc://sous-bench-echo-\(UUID().uuidString)")
        let dealer = try RawEchoDealer(echo.endpoint)
        defer { dealer.close() }
        let client = ServiceClient<Catalog>(endpoint: host.boundEndpoints.requests, options: .init(timeout: .seconds(5), retries: 0))
        let times = try measureInterleaved(
            [
                ("raw libzmq DEALER/ROUTER echo, inproc (baseline)", { _ in try dealer.roundTrip() }),
                ("sous health over inproc, blocking client", { _ in _ = try client.callBlocking(CommonAPI.health, Empty()) }),
            ], calls: calls, warmup: warmup)
        serving.cancel()
        _ = try? await serving.value
        echo.stop()
        return times
    }

    /// Envelope parsing, body decoding, the health handler's database check and reply encoding:
    /// what a request costs before any thread hop or socket.
    func measureServerWork(_ database: SousDatabase) throws -> [Samples] {
        let header = RequestHeader(method: "health", id: "bench-1", deadline: Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
        let frames = [Array("peer".utf8)] + (try Envelope.requestFrames(header, body: MessagePackEncoder().encode(Empty())))
        var envelope = Samples(name: "parse request envelope")
        var databaseCheck = Samples(name: "database health check (SELECT 1)")
        var encode = Samples(name: "encode HealthReport + reply envelope")
        let started = Date()
        for _ in 0..<calls {
            try envelope.record {
                guard case .request(_, _, let body) = Envelope.parseRequest(frames) else { throw ValidationError("parse failed") }
                _ = try MessagePackDecoder().decode(Empty.self, from: body)
            }
            var health = DatabaseHealth(status: "")
            databaseCheck.record { health = database.health() }
            try encode.record {
                let report = HealthReport(
                    service: "catalog", version: SousVersion.current, protocolVersion: 1, startedAt: started,
                    uptimeSeconds: Date().timeIntervalSince(started), database: health)
                _ = try Envelope.replyFrames(
                    routing: [Array("peer".utf8)], header: ReplyHeader(id: "bench-1", status: .ok), body: MessagePackEncoder().encode(report))
            }
        }
        return [envelope, databaseCheck, encode]
    }

    func measureRawEcho(_ endpoint: String, name: String, curve: CurveClientSetup? = nil) throws -> Samples {
        let dealer = try RawEchoDealer(endpoint, curve: curve)
        defer { dealer.close() }
        for _ in 0..<warmup { try dealer.roundTrip() }
        var samples = Samples(name: name)
        for _ in 0..<calls { try samples.record(dealer.roundTrip) }
        return samples
    }
}

/// A DEALER connected to a ``RawEcho``: one 64-byte round trip per call.
final class RawEchoDealer {
    private let dealer: ZMQSocket
    private let payload = [UInt8](repeating: 0x42, count: 64)

    init(_ endpoint: String, curve: CurveClientSetup? = nil) throws {
        dealer = try ZMQContext.shared.socket(.dealer)
        if let curve { try dealer.setCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair) }
        try dealer.connect(endpoint)
    }

    func roundTrip() throws {
        try dealer.send(multipart: [[], payload])
        guard try dealer.receive(timeout: .seconds(5)) != nil else { throw ValidationError("raw echo did not answer") }
    }

    func close() { dealer.close() }
}

/// A ROUTER that sends every message straight back, on its own thread: the libzmq floor.
final class RawEcho: Sendable {
    let endpoint: String
    private let stopped = Flag()

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private final class Socket: @unchecked Sendable {
        let router: ZMQSocket
        init(_ router: ZMQSocket) { self.router = router }
    }

    /// A CURVE server with `curve` in a context of its own (the services' ZAP handler lives in
    /// the shared one and refuses domains it does not know).
    init(endpoint: String, curve: CurveKeyPair? = nil) throws {
        let router = try (curve == nil ? ZMQContext.shared : Self.curveContext).socket(.router)
        if let curve { try router.setCurveServer(secretKey: curve.secretKey) }
        try router.bind(endpoint)
        self.endpoint = try router.lastEndpoint
        let socket = Socket(router)
        let stopped = self.stopped
        let thread = Thread {
            while !stopped.value.load(ordering: .relaxed) {
                guard let frames = try? socket.router.receive(timeout: .milliseconds(50)) else { continue }
                _ = try? socket.router.send(multipart: frames)
            }
            socket.router.close()
        }
        thread.start()
    }

    func stop() {
        stopped.value.store(true, ordering: .relaxed)
    }

    static let curveContext = ZMQContext()
}
