import Foundation
import MessagePack
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Synchronization
import Testing
import ZeroMQ

/// One client's flood or a full lane never starves anyone else: each connection and each lane
/// has a bound on requests in flight, past which the server answers `busy` at once.
@Suite(.closesItsSockets)
struct LoadTests {
    static let hold = Method<Notes, Empty, Empty>.read("load.hold", .public)

    /// A notes service with `load.hold`, which waits until the test releases it.
    func service(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws -> (ServiceHost, Latch) {
        var configuration = ServiceConfiguration.inProcess(.catalog)
        configure(&configuration)
        let host = try makeNotesService(configuration: configuration)
        let latch = Latch()
        host.server.register(Self.hold) { _, _ in
            await latch.wait()
            return Empty()
        }
        return (host, latch)
    }

    func requestFrames(_ method: String, id: String) throws -> [ZMQFrame] {
        try Envelope.requestFrames(RequestHeader(method: method, id: id), body: MessagePackEncoder().encode(Empty()))
    }

    /// Every reply `peer` gets until `count` have arrived (30 s at most for each).
    func replies(_ count: Int, on peer: RawPeer) async throws -> [(id: String, error: ServiceError?)] {
        var replies: [(String, ServiceError?)] = []
        for _ in 0..<count {
            let frames = try #require(try await peer.receive(timeout: .seconds(30)), "\(replies.count) of \(count) replies arrived")
            let reply = try Envelope.parseReply(frames)
            do {
                _ = try reply.decode(Empty.self)
                replies.append((reply.header.id, nil))
            } catch {
                replies.append((reply.header.id, error))
            }
        }
        return replies
    }

    @Test func oneConnectionsBurstIsRefusedPastItsBoundWhileOthersAreServed() async throws {
        let (host, latch) = try service()
        try await withRunningService(host) { host in
            let flooder = try RawPeer(connectingTo: host.boundEndpoints.requests)
            let limit = RPCServer.Options().maxInFlightPerPeer
            for index in 0..<(limit + 40) { try flooder.send(try requestFrames("load.hold", id: "h\(index)")) }
            // The 40 past the bound are refused at once, while the first `limit` still wait.
            let refused = try await replies(40, on: flooder)
            #expect(refused.allSatisfy { $0.error?.code == .unavailable && $0.error?.message.contains("busy") == true })
            #expect(Set(refused.map(\.id)) == Set((limit..<(limit + 40)).map { "h\($0)" }))
            // Another client is served meanwhile, in the same lane.
            let other = host.client(Notes.self)
            #expect(try await other.call(NotesAPI.count, Empty()).count == 0)
            #expect(try await other.call(CommonAPI.health, Empty()).service == host.name)
            latch.open()
            let held = try await replies(limit, on: flooder)
            #expect(held.allSatisfy { $0.error == nil })
        }
    }

    /// Fifty people each searching at once (the heavy lane's work) is ordinary use: every one
    /// waits for one of the lane's two threads; none is refused as busy.
    @Test func fiftyClientsOnTheHeavyLaneAreQueuedNotRefused() async throws {
        let heavyHold = Method<Notes, Empty, Empty>.read("load.heavyHold", .public, lane: .heavy)
        let (host, latch) = try service()
        host.server.register(heavyHold) { _, _ in
            await latch.wait()
            return Empty()
        }
        try await withRunningService(host) { host in
            let peers = try (0..<50).map { _ in try RawPeer(connectingTo: host.boundEndpoints.requests) }
            for (index, peer) in peers.enumerated() { try peer.send(try requestFrames(heavyHold.name, id: "s\(index)")) }
            // All fifty are taken in (the handler waits without holding a thread); none is refused.
            try await withTimeout(.seconds(30), waitingFor: "fifty heavy requests in flight") { await latch.waitForWaiters(50) }
            latch.open()
            for peer in peers {
                let reply = try #require(try await replies(1, on: peer).first)
                #expect(reply.error == nil, "\(reply.id): \(reply.error?.message ?? "")")
            }
        }
    }

    /// A lane sends its reply itself; the request must be counted as answered before the reply
    /// can reach the caller, or a caller that sends again at once (keeping its bound of requests
    /// in flight, as a pipelining client does) is refused as busy though it is within it.
    @Test func aClientKeepingItsBoundInFlightIsNeverRefused() async throws {
        let (host, _) = try service()
        try await withRunningService(host) { host in
            let peer = try RawPeer(connectingTo: host.boundEndpoints.requests)
            let limit = RPCServer.Options().maxInFlightPerPeer
            for index in 0..<limit { try peer.send(try requestFrames("notes.count", id: "c\(index)")) }
            var sent = limit
            var refused: [String] = []
            for _ in 0..<(limit * 20) {
                let reply = try #require(try await replies(1, on: peer).first)
                if let error = reply.error { refused.append("\(reply.id): \(error.message)") }
                try peer.send(try requestFrames("notes.count", id: "c\(sent)"))
                sent += 1
            }
            _ = try await replies(limit, on: peer)
            #expect(refused.isEmpty)
        }
    }

    /// The tests' bounded waits end at their bound even when what they wait for ignores
    /// cancellation (as a server's shutdown waits for its I/O thread): a hang fails the test.
    @Test func aWaitThatIgnoresCancellationStillEndsAtItsBound() async throws {
        let latch = Latch()
        let error = await #expect(throws: TestTimeout.self) {
            try await withTimeout(.seconds(1), waitingFor: "a latch nobody opens") { await latch.wait() }
        }
        #expect(error?.what == "a latch nobody opens")
        latch.open()
    }

    /// Threads of this process whose name starts with `prefix` (Linux keeps 15 characters).
    func threads(named prefix: String) throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix(prefix)
        }.count
    }

    @Test func callsWaitingOnAClientShareOneThread() async throws {
        let (host, latch) = try service()
        try await withRunningService(host) { host in
            // A service name no other test uses: its client's thread is "sous-client-loa".
            let client = ServiceClient<Notes>(
                endpoint: host.boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0), name: "loadprobe")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<30 { group.addTask { try await client.call(Self.hold, Empty()) } }
                await latch.waitForWaiters(30)
                #expect(try threads(named: "sous-client-loa") == 1, "30 waiting calls, one thread")
                latch.open()
                try await group.waitForAll()
            }
        }
    }

    @Test func healthIsAnsweredWhileEveryOrdinaryThreadIsBusy() async throws {
        let (host, latch) = try service { configuration in
            configuration.serverOptions.lanes[.standard] = RPCServer.LaneLimits(threads: 2, maxInFlight: 4)
        }
        try await withRunningService(host) { host in
            let peers = try (0..<2).map { _ in try RawPeer(connectingTo: host.boundEndpoints.requests) }
            for (index, peer) in peers.enumerated() {
                for slot in 0..<2 { try peer.send(try requestFrames("load.hold", id: "p\(index)-\(slot)")) }
            }
            await latch.waitForWaiters(4)
            let client = try host.testClient(as: Notes.self)
            #expect(try await client.call(CommonAPI.health, Empty()).service == host.name)
            let busy = await #expect(throws: ServiceError.self) { try await client.call(NotesAPI.count, Empty()) }
            #expect(busy?.code == .unavailable && busy?.message.contains("4 standard requests are in flight") == true)
            latch.open()
            for peer in peers { #expect(try await replies(2, on: peer).allSatisfy { $0.error == nil }) }
            #expect(try await client.call(NotesAPI.count, Empty()).count == 0)
        }
    }

    /// libzmq 4.3.4 aborted the whole process here ("Assertion failed: !_io_error") when the
    /// ROUTER had ZMTP heartbeats on: a client sends thousands of requests without reading the
    /// replies, then disconnects.
    @Test func aFloodThenADisconnectLeavesTheServiceRunning() async throws {
        let (host, _) = try service { configuration in
            configuration.bind = "tcp://127.0.0.1:*"
            configuration.eventsBind = "tcp://127.0.0.1:*"
        }
        try await withRunningService(host) { host in
            let request = try requestFrames(NotesAPI.count.name, id: "flood")
            for _ in 0..<4 {
                let peer = try RawPeer(connectingTo: host.boundEndpoints.requests, curve: host.clientCurve(), unboundedSends: true)
                for _ in 0..<5000 { try peer.send(request) }
                // Connected and being served: now vanish without reading the rest. The wait is
                // off Swift's cooperative pool (RawPeer): a blocking receive here held one of its
                // two threads on these machines, and once the whole test process stood still
                // for 30 s (every test in flight timed out together).
                #expect(try await peer.receive(timeout: .seconds(30)) != nil)
                peer.socket.close()
            }
            #expect(try await host.testClient().call(CommonAPI.health, Empty()).service == host.name)
        }
    }

    @Test func messagesPastTheLimitsAreRefusedAndNotEchoed() async throws {
        let (host, _) = try service()
        try await withRunningService(host) { host in
            // 10 MiB in two frames of 5 MiB: each frame is under libzmq's cap, the message is not.
            let big = [UInt8](repeating: 0x61, count: 5 << 20)
            let peer = try RawPeer(connectingTo: host.boundEndpoints.requests)
            try peer.send([[], SousProtocol.prefix(.request), big, big])
            let reply = try #require(try await peer.receive(timeout: .seconds(30)))
            #expect(reply.reduce(0) { $0 + $1.count } < 4096, "the refusal does not echo the request")
            let error = try MessagePackDecoder().decode(ServiceError.self, from: Envelope.parseReply(reply).body)
            #expect(error.code == .badRequest && error.field == "frames")

            // Many small frames: refused at the frame bound, read away without being kept.
            let many = try RawPeer(connectingTo: host.boundEndpoints.requests)
            try many.send([[], SousProtocol.prefix(.request)] + Array(repeating: [UInt8](repeating: 0x62, count: 64 << 10), count: 200))
            let manyReply = try #require(try await many.receive(timeout: .seconds(30)))
            let manyError = try MessagePackDecoder().decode(ServiceError.self, from: Envelope.parseReply(manyReply).body)
            #expect(manyError.code == .badRequest && manyError.field == "frames")

            // Routing frames are echoed in a reply, so too many (or too large) are not answered.
            let padded = try RawPeer(connectingTo: host.boundEndpoints.requests)
            try padded.send(Array(repeating: [UInt8](repeating: 1, count: 200), count: 16) + requestFrames("health", id: "padded"))
            let oversized = try RawPeer(connectingTo: host.boundEndpoints.requests)
            try oversized.send([[UInt8](repeating: 1, count: 1 << 20)] + requestFrames("health", id: "wide"))
            // Then a plain request on each: its reply is the first thing they get.
            for peer in [padded, oversized] {
                try peer.send(try requestFrames("health", id: "plain"))
                let next = try #require(try await peer.receive(timeout: .seconds(30)))
                #expect(try Envelope.parseReply(next).header.id == "plain")
            }
        }
    }
}

/// Handlers wait on it until the test opens it; the test can wait until n handlers are waiting.
final class Latch: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrivals: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { continuation in
            let (resumeNow, arrived) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                if state.open { return (true, []) }
                state.waiters.append(continuation)
                let count = state.waiters.count
                let ready = state.arrivals.filter { $0.count <= count }.map(\.continuation)
                state.arrivals.removeAll { $0.count <= count }
                return (false, ready)
            }
            for waiter in arrived { waiter.resume() }
            if resumeNow { continuation.resume() }
        }
    }

    func waitForWaiters(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.waiters.count >= count || state.open { return true }
                state.arrivals.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
