import Foundation
import SousCrypto
import SousRuntime
import SousTestSupport
import SousWire
import Synchronization
import ZeroMQ

/// A service executable from the same build folder as this benchmark, on a free loopback port,
/// reached over CURVE as deployed: its key pair is made in its data folder before it starts, and
/// it trusts the session tokens of this process (``TestSessions``), whose public key is published
/// in `<data>/keys` beside the service's own.
final class ServiceProcess: Sendable {
    let pid: Int32
    let endpoint: String
    /// A client's CURVE setup: the service's published key and a stranger's key pair.
    let setup: CurveClientSetup
    var curve: CurveSetupProvider { { [setup] in setup } }
    private let process: Process

    private init(process: Process, endpoint: String, setup: CurveClientSetup) {
        self.process = process
        self.pid = process.processIdentifier
        self.endpoint = endpoint
        self.setup = setup
    }

    /// A loopback port free now, below the kernel's ephemeral range, never given twice here.
    ///
    /// A port the OS picks for a bind to port 0 comes from the range it also gives every outgoing
    /// connection its own end from: between the probe closing it and the child binding it, any
    /// client connecting can take it (a `throughput` run stopped on "Address already in use").
    /// Below that range only an explicit bind takes a port.
    static func freePort() throws -> Int {
        let first = ephemeralStart > 12_000 ? 10_000 : 1_024
        for _ in 0..<200 {
            let port = Int.random(in: first..<ephemeralStart)
            guard portsGiven.withLock({ $0.insert(port).inserted }) else { continue }
            if canBind(port) { return port }
        }
        throw ServiceError.unavailable("no free loopback port between \(first) and \(ephemeralStart)")
    }

    /// Binds and closes a plain socket (closed before this returns, unlike a ZeroMQ socket's).
    private static func canBind(_ port: Int) -> Bool {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static let portsGiven = Mutex<Set<Int>>([])

    /// The lowest port the kernel gives a connection's own end or a bind to port 0.
    private static let ephemeralStart: Int = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let start = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        return start > 1_024 ? start : 32_768
    }()

    /// `environment` comes last (e.g. `SOUS_DATABASE_URL`); replicas of one service share
    /// `dataDirectory`, so they load the same key pair.
    static func start(_ service: SousService, dataDirectory: String, environment extra: [String: String] = [:]) throws -> ServiceProcess {
        // `sous-server <service>`: the same as its `sous-<service>` link, which a build folder has
        // only once deploy/link-services.sh made it.
        try launch([service], arguments: [service.rawValue, "serve"], dataDirectory: dataDirectory, environment: extra)
    }

    /// `sous-server all`: the five services in one process, each on a port of its own and
    /// calling the others there; `endpoint` and `curve` reach the catalog.
    static func startAll(dataDirectory: String) throws -> ServiceProcess {
        try launch(SousService.allCases, arguments: ["all"], dataDirectory: dataDirectory, environment: [:])
    }

    /// The five services, each in a process of its own (`sous-server <service> serve`), knowing
    /// each other as deployed: one data folder (so one key folder), every endpoint given to
    /// every process. Returns once each answers `health`.
    static func startStack(dataDirectory: String) throws -> [SousService: ServiceProcess] {
        // Sessions are the planner's own, as deployed: the others read its published key, so it
        // starts first.
        let (environment, served) = try prepare(SousService.allCases, dataDirectory: dataDirectory, environment: [:], testSessions: false)
        var started: [SousService: ServiceProcess] = [:]
        do {
            for (service, endpoint, setup) in served.filter({ $0.service == .planner }) + served.filter({ $0.service != .planner }) {
                let process = try run([service.rawValue, "serve"], environment: environment)
                started[service] = ServiceProcess(process: process, endpoint: endpoint, setup: setup)
                try waitUntilHealthy(service, endpoint: endpoint, setup: setup)
            }
        } catch {
            for process in started.values { process.stop() }
            throw error
        }
        return started
    }

    /// Starts `sous-server arguments` serving `services`, and returns once each answers `health`.
    private static func launch(
        _ services: [SousService], arguments: [String], dataDirectory: String, environment extra: [String: String]
    ) throws -> ServiceProcess {
        let (environment, served) = try prepare(services, dataDirectory: dataDirectory, environment: extra)
        let started = ServiceProcess(process: try run(arguments, environment: environment), endpoint: served[0].endpoint, setup: served[0].setup)
        do {
            for (service, endpoint, setup) in served { try waitUntilHealthy(service, endpoint: endpoint, setup: setup) }
        } catch {
            started.stop()
            throw error
        }
        return started
    }

    /// The environment that serves `services` from `dataDirectory` on free loopback ports (the
    /// others absent), with each service's endpoint and a client's CURVE setup for it.
    /// With `testSessions`, the services trust this process's session tokens (``TestSessions``).
    private static func prepare(
        _ services: [SousService], dataDirectory: String, environment extra: [String: String], testSessions: Bool = true
    ) throws -> (environment: [String: String], served: [(service: SousService, endpoint: String, setup: CurveClientSetup)]) {
        let keys = URL(fileURLWithPath: dataDirectory).appendingPathComponent("keys").path
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        if testSessions { try SessionKeyFile.publish(SessionSigner.inProcess.keyPair.publicKey, in: keys) }
        var environment = ProcessInfo.processInfo.environment
        environment["SOUS_DATA_DIR"] = dataDirectory
        environment["SOUS_KEYS_DIR"] = keys
        environment["SOUS_LOG_LEVEL"] = "error"
        var served: [(service: SousService, endpoint: String, setup: CurveClientSetup)] = []
        for service in services {
            // Each service's key pair, made here in its data folder, where it loads it on start:
            // its public half is known before the process runs, with nothing to wait for.
            let serverKey = try Keyring.ownKeyPair(of: service, dataDirectory: dataDirectory).publicKey
            let requests = "tcp://127.0.0.1:\(try freePort())"
            environment["\(service.environmentPrefix)_ENDPOINT"] = requests
            environment["\(service.environmentPrefix)_EVENTS"] = "tcp://127.0.0.1:\(try freePort())"
            served.append((service, requests, CurveClientSetup(serverKey: serverKey, keyPair: try CurveKeyPair.generate())))
        }
        for peer in SousService.allCases where !services.contains(peer) { environment["\(peer.environmentPrefix)_ENDPOINT"] = "tcp://127.0.0.1:9" }
        environment.merge(extra) { _, given in given }
        return (environment, served)
    }

    private static func run(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sous-server")
        process.arguments = arguments
        process.environment = environment
        try process.run()
        return process
    }

    private static func waitUntilHealthy(_ service: SousService, endpoint: String, setup: CurveClientSetup) throws {
        let client = ServiceClient<AnyService>(
            endpoint: endpoint, options: .init(timeout: .seconds(1), retries: 0), curve: { setup }, name: service.rawValue)
        guard (0..<60).contains(where: { _ in (try? client.callBlocking(CommonAPI.health, Empty())) != nil }) else {
            throw ServiceError.unavailable("sous-\(service.rawValue) did not become healthy")
        }
    }

    func state(_ label: String) -> String {
        ProcessMemory.read(pid: pid).describe(label) + " (the service process)"
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
