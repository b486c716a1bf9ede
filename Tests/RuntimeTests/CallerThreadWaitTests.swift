import Dispatch
import Foundation
import MessagePack
import SousRuntime
import SousTestSupport
import SousWire
import Testing
import ZeroMQ

/// A call made from a lane's thread waits for a quick reply on that thread
/// (``ServiceClient/send(_:waitingHereFor:)``); a slow one is handed to the client's loop, so a
/// peer that is slow or gone never holds a lane's thread longer than the wait.
@Suite(.closesItsSockets)
struct CallerThreadWaitTests {
    /// The lane's thread is free while the peer has not answered, and the reply still reaches
    /// the caller once the peer sends it.
    @Test func aCallNotAnsweredInTimeFreesTheThreadAndStillGetsItsReply() async throws {
        let peer = try HandAnsweredPeer()
        let client = ServiceClient<AnyService>(endpoint: peer.endpoint, options: .init(timeout: .seconds(120), retries: 0))
        let lane = ThreadPoolExecutor(name: "sous-test-lane", threads: 1)
        defer { lane.shutdown() }
        let call = Task(executorPreference: lane) {
            await client.send(Self.read("recipes.get"), waitingHereFor: Self.laneWait)
        }
        let request = try #require(try await peer.nextRequest())
        #expect(request.header.method == "recipes.get")
        // The lane's only thread runs another task while the call still waits.
        let other = Task(executorPreference: lane) { ThreadPoolExecutor.isCurrentThreadPooled }
        #expect(try await withTimeout(.seconds(60), waitingFor: "the lane's thread to be free") { await other.value })
        try peer.answer(request, with: [1, 2, 3])
        let reply = try await withTimeout(.seconds(60), waitingFor: "the handed-over reply") { await call.value }.get()
        #expect(reply.header.id == request.header.id)
        #expect(reply.body == [1, 2, 3])
    }

    /// A write handed over and not answered within its attempt is sent again by the loop with
    /// the same idempotency key, so the service applies it once.
    @Test func aHandedOverWriteIsRetriedWithItsKey() async throws {
        let peer = try HandAnsweredPeer()
        // Ten seconds: the second attempt must be answered within it, however busy the machine.
        let client = ServiceClient<AnyService>(endpoint: peer.endpoint, options: .init(timeout: .seconds(10), retries: 1))
        let call = Task {
            await client.send(Self.write("notes.add", key: "key-1"), waitingHereFor: Self.laneWait)
        }
        // Both attempts are received and answered on the peer's own thread: the second attempt's
        // ten seconds never wait on Swift's cooperative pool, which other suites may keep busy.
        let requests = try await peer.answerEachOnArrival(count: 2, with: [[9], [7]])
        let first = try #require(requests.first)
        let second = try #require(requests.last)
        #expect(requests.count == 2)
        #expect(first.header.idempotencyKey == "key-1")
        #expect(second.header.idempotencyKey == "key-1")
        #expect(first.header.id != second.header.id)
        let reply = try await withTimeout(.seconds(60), waitingFor: "the retried write's reply") { await call.value }.get()
        #expect(reply.header.id == second.header.id)
        #expect(reply.body == [7])
    }

    /// A pooled socket given back with a request still out (its caller gave up) serves the next
    /// call, which skips the late reply meant for the first.
    @Test func aLateReplyOnAReusedSocketIsSkipped() async throws {
        let peer = try HandAnsweredPeer()
        let client = ServiceClient<AnyService>(endpoint: peer.endpoint, options: .init(timeout: .seconds(120), retries: 0))
        let abandoned = Task { await client.send(Self.read("recipes.get"), waitingHereFor: Self.laneWait) }
        let first = try #require(try await peer.nextRequest())
        abandoned.cancel()
        let outcome = try await withTimeout(.seconds(60), waitingFor: "the cancelled call to end") { await abandoned.value }
        #expect(throws: ServiceError.self) { try outcome.get() }
        let call = Task { await client.send(Self.read("recipes.search"), waitingHereFor: Self.laneWait) }
        let second = try #require(try await peer.nextRequest())
        #expect(second.routing == first.routing, "the second call went out on the first call's socket")
        try peer.answer(first, with: [1])
        try peer.answer(second, with: [2])
        let reply = try await withTimeout(.seconds(60), waitingFor: "the second call's reply") { await call.value }.get()
        #expect(reply.header.id == second.header.id)
        #expect(reply.body == [2])
    }

    /// A peer that never answers: the call fails after its attempt, naming the service.
    @Test func aPeerThatNeverAnswersFailsTheCallNamingIt() async throws {
        let peer = try HandAnsweredPeer()
        let client = ServiceClient<AnyService>(endpoint: peer.endpoint, options: .init(timeout: .seconds(1), retries: 0), name: "catalog")
        let result = await client.send(Self.read("recipes.get"), waitingHereFor: Self.laneWait)
        #expect(throws: ServiceError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("catalog did not answer recipes.get"))
        }
    }

    /// Only an executor's threads wait on a socket themselves; a task on Swift's cooperative
    /// pool, which a blocked thread would starve, goes through the client's loop.
    @Test func onlyThreadsOfAnExecutorCountAsLanes() async throws {
        #expect(!ThreadPoolExecutor.isCurrentThreadPooled)
        let lane = ThreadPoolExecutor(name: "sous-test-lane", threads: 1)
        defer { lane.shutdown() }
        #expect(await Task(executorPreference: lane) { ThreadPoolExecutor.isCurrentThreadPooled }.value)
    }

    /// The caller's own wait before the loop takes the call over: the runtime's, for a lane.
    /// No test here depends on a peer answering within it; each peer answers only when the test
    /// says so, and the reply is then waited for with seconds to spare.
    static var laneWait: Duration { Peer<AnyService>.waitOnLane }

    static func read(_ method: String) -> ClientAttempt {
        ClientAttempt(method: method, isWrite: false, body: [0x80], session: nil, onBehalfOf: "ada", timeout: nil, idempotencyKey: nil, deadline: nil)
    }

    static func write(_ method: String, key: String) -> ClientAttempt {
        ClientAttempt(method: method, isWrite: true, body: [0x80], session: nil, onBehalfOf: "ada", timeout: nil, idempotencyKey: key, deadline: nil)
    }
}

/// A ROUTER standing in for a service, answering only when the test says so.
private final class HandAnsweredPeer: @unchecked Sendable {
    struct Request: Sendable {
        let routing: [Envelope.Frame]
        let header: RequestHeader
    }

    let endpoint = "inproc://sous-test-hand-answered-\(UUID().uuidString)"
    private let socket: ZMQSocket

    init() throws {
        socket = try ZMQContext.shared.socket(.router)
        try socket.setLinger(milliseconds: 0)
        try socket.bind(endpoint)
    }

    deinit { socket.close() }

    /// The next request, received off Swift's cooperative pool; nil if none came in 90 s (a
    /// bound on a hang: it returns as soon as one arrives).
    func nextRequest() async throws -> Request? {
        let frames: [ZMQFrame]? = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "sous.test.hand-answered").async {
                continuation.resume(with: Result { try self.socket.receive(timeout: .seconds(90)) })
            }
        }
        guard let frames else { return nil }
        guard case let .request(routing, header, _) = Envelope.parseRequest(frames) else { return nil }
        return Request(routing: routing, header: header)
    }

    /// Receives `count` requests and answers them in order with `bodies` once the last has
    /// arrived, all on the peer's own thread; returns what was received (fewer if one did not
    /// come in 90 s).
    func answerEachOnArrival(count: Int, with bodies: [[UInt8]]) async throws -> [Request] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "sous.test.hand-answered").async {
                continuation.resume(
                    with: Result {
                        var requests: [Request] = []
                        while requests.count < count, let frames = try self.socket.receive(timeout: .seconds(90)) {
                            guard case let .request(routing, header, _) = Envelope.parseRequest(frames) else { break }
                            requests.append(Request(routing: routing, header: header))
                        }
                        for (request, body) in zip(requests, bodies) { try self.answer(request, with: body) }
                        return requests
                    })
            }
        }
    }

    func answer(_ request: Request, with body: [UInt8]) throws {
        _ = try socket.send(
            multipart: try Envelope.replyFrames(routing: request.routing, header: ReplyHeader(id: request.header.id, status: .ok), body: body))
    }
}
