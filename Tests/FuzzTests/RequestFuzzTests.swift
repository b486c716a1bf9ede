import CatalogService
import CatalogTesting
import Foundation
import GroceriesService
import GroceriesTesting
import MessagePack
import NotifierService
import NotifierTesting
import PlannerService
import PlannerTesting
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing
import TrackerService
import TrackerTesting
import ZeroMQ

/// Mutated real requests, driven into every method of every service in-process: every one must
/// get a typed reply (ok, or an error with a known code other than `internal`), and every service
/// must still answer `health` at the end.
///
/// Inputs come from the committed corpus (Tests/FuzzTests/Corpus: valid and hostile bodies per
/// method, and every input that once crashed a service), mutated by a seeded generator so a run
/// can be repeated: `SOUS_FUZZ_SEED` (default 1) and `SOUS_FUZZ_INPUTS` (default 100 000).
/// A failing input is printed in hex and written to `$TMPDIR/sous-fuzz-failures/`; add it to the
/// corpus once fixed.
@Suite(.closesItsSockets)
struct RequestFuzzTests {
    static let knownCodes: Set<ErrorCode> = [
        .badRequest, .notFound, .conflict, .unauthorized, .unavailable, .timeout, .quotaExceeded, .forbidden, .rateLimited,
    ]

    struct Target {
        let host: ServiceHost
        let methods: [String]
    }

    @Test func mutatedRequestsGetTypedRepliesAndNoServiceFalls() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["SOUS_FUZZ_SEED"].flatMap(UInt64.init) ?? 1
        let budget = environment["SOUS_FUZZ_INPUTS"].flatMap(Int.init) ?? 100_000
        let corpus = try Corpus.load()
        let clock = WallClock.manual(at: Date(timeIntervalSince1970: 1_773_136_800))
        // Every service knowing every other, as deployed: a method that calls a peer reaches it.
        let stack = try StackFixture.make(clock: clock)
        let hosts = stack.hosts
        let targets = hosts.map { Target(host: $0, methods: $0.server.registeredMethods) }
        for target in targets {
            for method in target.methods where corpus.seeds(for: method).isEmpty {
                Issue.record("no seed in Tests/FuzzTests/Corpus for \(target.host.name) \(method)")
            }
        }
        try await withRunningServices(hosts) { _ in
            var random = SplitMix64(seed: seed)
            let perTarget = budget / targets.count
            try await withThrowingTaskGroup(of: [Finding].self) { group in
                for (index, target) in targets.enumerated() {
                    var stream = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
                    _ = random.next()
                    group.addTask {
                        try await Self.drive(target, inputs: perTarget, corpus: corpus, random: &stream)
                    }
                }
                for try await findings in group {
                    for finding in findings.prefix(20) {
                        finding.save()
                        Issue.record("\(finding) (seed \(seed))")
                    }
                }
            }
            for host in hosts {
                let client = ServiceClient<AnyService>(
                    endpoint: host.boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0), name: host.name)
                #expect(try await client.call(CommonAPI.health, Empty()).service == host.name, "\(host.name) still answers")
            }
        }
    }

    struct Finding: CustomStringConvertible, Sendable {
        let service: String
        let method: String
        let header: RequestHeader
        let body: [UInt8]
        let problem: String

        var description: String {
            "\(service) \(method): \(problem); session \(header.session ?? "none"), onBehalfOf \(header.onBehalfOf ?? "none"), body \(body.prefix(256).map { String(format: "%02x", $0) }.joined())"
        }

        func save() {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-fuzz-failures")
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let name = "\(method)--crash-\(UUID().uuidString.prefix(8)).msgpack"
            _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data(body))
        }
    }

    /// Sends `inputs` mutated requests to one service, 16 in flight at a time from one peer.
    static func drive(_ target: Target, inputs: Int, corpus: Corpus, random: inout SplitMix64) async throws -> [Finding] {
        let peer = try RawPeer(connectingTo: target.host.boundEndpoints.requests)
        // Signed-in users, an operator, nobody, a forged token; and in-process callers acting
        // for users (valid, empty and oversized ids).
        let sessions: [String?] = [
            TestSessions.token(for: "ada"), TestSessions.token(for: "bob"), TestSessions.token(for: "alice@example.com"), TestSessions.operatorToken,
            nil,
            "not.a-token",
        ]
        let actingFor: [String?] = [nil, nil, nil, "ada", "", String(repeating: "ü", count: 200)]
        var findings: [Finding] = []
        var sent = 0
        while sent < inputs && findings.count < 20 {
            var window: [String: (RequestHeader, [UInt8])] = [:]
            for _ in 0..<min(16, inputs - sent) {
                let method = target.methods[Int(random.next() % UInt64(target.methods.count))]
                let seeds = corpus.seeds(for: method)
                let seedBody = seeds.isEmpty ? [0x80] : seeds[Int(random.next() % UInt64(seeds.count))]
                let body = random.next() % 8 == 0 ? seedBody : Mutator.mutate(seedBody, corpus: corpus, random: &random)
                let id = "f\(sent)"
                let session = sessions[Int(random.next() % UInt64(sessions.count))]
                let onBehalfOf = session == nil ? actingFor[Int(random.next() % UInt64(actingFor.count))] : nil
                // A long poll waits until a second before the request's deadline: a deadline a
                // second away makes it answer at once, as every other method does.
                let deadline = method == NotifierAPI.wait.name ? Int64(Date().timeIntervalSince1970 * 1000) + 1000 : nil
                let header = RequestHeader(
                    method: method, id: id, session: session, onBehalfOf: onBehalfOf, deadline: deadline,
                    idempotencyKey: random.next() % 2 == 0 ? "k\(random.next() % 64)" : nil
                )
                try peer.send(Envelope.requestFrames(header, body: body))
                window[id] = (header, body)
                sent += 1
            }
            while !window.isEmpty {
                // A bound on a hang, not a speed check: an operator's seed reload or an archive
                // import ahead in the queue has kept a loaded CI machine from replying for 30 s.
                guard let frames = try await peer.receive(timeout: .seconds(180)) else {
                    for (header, body) in window.values {
                        findings.append(
                            Finding(service: target.host.name, method: header.method, header: header, body: body, problem: "no reply within 180 s"))
                    }
                    return findings
                }
                let problem: String?
                let id: String
                do {
                    let reply = try Envelope.parseReply(frames)
                    id = reply.header.id
                    problem = Self.problem(with: reply)
                } catch {
                    findings.append(
                        Finding(
                            service: target.host.name, method: "?", header: RequestHeader(method: "?", id: "?"), body: [],
                            problem: "unparseable reply: \(error)"))
                    continue
                }
                guard let (header, body) = window.removeValue(forKey: id) else { continue }
                if let problem {
                    findings.append(Finding(service: target.host.name, method: header.method, header: header, body: body, problem: problem))
                }
            }
        }
        return findings
    }

    /// Nil for a typed reply; otherwise what is wrong with it.
    static func problem(with reply: Envelope.Reply) -> String? {
        switch reply.header.status {
        case .ok:
            return nil
        case .error:
            guard let error = try? MessagePackDecoder().decode(ServiceError.self, from: reply.body) else {
                return "an error reply without a ServiceError body"
            }
            if error.code == .internal { return "internal error: \(error.message)" }
            if !knownCodes.contains(error.code) { return "unknown error code \(error.code)" }
            if error.code == .badRequest && (error.field ?? "").isEmpty { return "badRequest naming no field: \(error.message)" }
            return nil
        }
    }
}

/// The committed inputs, by method.
struct Corpus: Sendable {
    let byMethod: [String: [[UInt8]]]
    let all: [[UInt8]]

    func seeds(for method: String) -> [[UInt8]] { byMethod[method] ?? [] }

    static func load() throws -> Corpus {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")
        var byMethod: [String: [[UInt8]]] = [:]
        var all: [[UInt8]] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".msgpack") {
            guard let method = name.components(separatedBy: "--").first else { continue }
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            byMethod[method, default: []].append(bytes)
            all.append(bytes)
        }
        return Corpus(byMethod: byMethod, all: all)
    }
}

/// Byte-level mutations of a MessagePack body, with values that reached bugs before: huge and
/// negative integers, NaN and infinite floats, long strings and arrays, truncation.
enum Mutator {
    static let interesting: [[UInt8]] = [
        [0xcf, 0x40, 0, 0, 0, 0, 0, 0, 0],  // 2^62 as uint64
        [0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0],  // Int64.min
        [0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],  // UInt64.max
        [0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0],  // NaN
        [0xcb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0],  // +infinity
        [0xcb, 0xff, 0xf0, 0, 0, 0, 0, 0, 0],  // -infinity
        [0xa0],  // ""
        [0xaa] + Array("9999-12-31".utf8),
        [0xaa] + Array("0001-01-01".utf8),
        [0xdd, 0xff, 0xff, 0xff, 0xff],  // an array claiming 4 G elements
        [0xdf, 0x7f, 0xff, 0xff, 0xff],  // a map claiming 2 G pairs
        [0xc0], [0xc2], [0xc3], [0x00], [0xff], [0x7f],
        // timestamp 96 with seconds Int64.max and Int64.min (a Double cannot hold them exactly)
        [0xc7, 0x0c, 0xff, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0xc7, 0x0c, 0xff, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0],
        // timestamp 64 with the largest seconds it holds (2^34 - 1, in the year 2514)
        [0xd7, 0xff, 0, 0, 0, 0x03, 0xff, 0xff, 0xff, 0xff],
    ]

    static func mutate(_ seed: [UInt8], corpus: Corpus, random: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
            switch random.next() % 7 {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= UInt8(1 << (random.next() % 8))
            case 1:
                let value = interesting[Int(random.next() % UInt64(interesting.count))]
                let end = min(bytes.count, position + Int(random.next() % 10))
                bytes.replaceSubrange(position..<end, with: value)
            case 2:
                bytes = Array(bytes.prefix(position))
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, position + 1 + Int(random.next() % 16))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 4:
                let other = corpus.all.isEmpty ? [] : corpus.all[Int(random.next() % UInt64(corpus.all.count))]
                let cut = other.isEmpty ? 0 : Int(random.next() % UInt64(other.count))
                bytes = Array(bytes.prefix(position)) + other.suffix(from: cut)
            case 5:
                // A long string or array where something shorter was.
                let long: [UInt8] =
                    random.next() % 2 == 0
                    ? [0xda, 0x27, 0x10] + [UInt8](repeating: 0x61, count: 10_000)
                    : [0xdc, 0x13, 0x88] + [UInt8](repeating: 0x02, count: 5_000)
                bytes.insert(contentsOf: long, at: position)
            default:
                if !bytes.isEmpty { bytes[position] = UInt8(truncatingIfNeeded: random.next()) }
            }
        }
        return bytes
    }
}
