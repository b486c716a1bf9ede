import Foundation
import GroceriesService
import MessagePack
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import ZeroMQ

/// A catalog that takes requests and never answers (hung, not gone): the grocery writes that
/// need it wait, at most ``Peer/maxWaiting`` at once; the rest fail at once naming it, and the
/// calls that do not need it are still served.
@Suite(.closesItsSockets)
struct PeerOutageTests {
    @Test func callsWaitingOnAHungPeerDoNotTakeTheCapacityOfCallsThatDoNotNeedIt() async throws {
        let hung = try HungPeer()
        var configuration = ServiceConfiguration.testing(
            .groceries, peers: [.catalog: ServiceEndpoints(requests: hung.endpoint, events: "inproc://hung-catalog-events-\(UUID().uuidString)")])
        // Longer than the test: no waiting call gives up before the hung catalog is released.
        configuration.peerTimeouts[.catalog] = .seconds(120)
        let groceries = try GroceriesService(configuration: configuration, logger: quietLogger("groceries"))
        // No planner here: the test is about the catalog.
        groceries.host.server.useHouseholds(EveryoneAlone())
        try await withRunningService(groceries.host) { host in
            let session = TestSessions.token(for: "ada")
            let body = try MessagePackEncoder().encode(AddListItem(ingredient: "onion", quantity: 2))
            // 270 writes needing the catalog, 30 per connection (each connection may have 32 in
            // flight): more than the standard lane's 256.
            let peers = try (0..<9).map { _ in try RawPeer(connectingTo: host.boundEndpoints.requests) }
            for (index, peer) in peers.enumerated() {
                for number in 0..<30 {
                    let header = RequestHeader(method: GroceriesAPI.addItem.name, id: "w\(index)-\(number)", session: session)
                    try peer.send(Envelope.requestFrames(header, body: body))
                }
            }
            // The catalog gets exactly as many calls as may wait on it.
            let waiting = try await hung.takeRequests(Peer<Catalog>.maxWaiting)
            // All the others are refused at once, most of them naming the catalog.
            let expected = 270 - Peer<Catalog>.maxWaiting
            var refused: [ServiceError] = []
            while refused.count < expected {
                let arrived = try await Self.replies(on: peers)
                try #require(!arrived.isEmpty, "\(refused.count) of \(expected) refusals arrived, then none within 30 s")
                for frames in arrived {
                    let reply = try Envelope.parseReply(frames)
                    refused.append(try #require(try? MessagePackDecoder().decode(ServiceError.self, from: reply.body)))
                }
            }
            #expect(refused.count == expected)
            // (A burst this size may also meet the lane's own bound: `busy` is a fair answer too.)
            let unexpected = refused.filter {
                !($0.code == .unavailable && ($0.message.contains("the catalog, which is not keeping up") || $0.message.contains("is busy")))
            }
            #expect(unexpected.isEmpty, "\(unexpected.prefix(3))")
            #expect(refused.contains { $0.message.contains("the catalog, which is not keeping up") })
            // The list needs no catalog: answered, not busy.
            let client = host.client(Groceries.self)
            let list = try await client.call(GroceriesAPI.list, Empty(), session: session)
            #expect(list.lines.isEmpty)
            // The catalog comes back: the waiting calls are answered (and the service can stop).
            try hung.answer(waiting)
        }
    }
}

extension PeerOutageTests {
    /// Every reply waiting on any of `peers`, once one has arrived; none when nothing did within
    /// 30 s. Waits off Swift's cooperative pool.
    static func replies(on peers: [RawPeer]) async throws -> [[ZMQFrame]] {
        let result: Result<[[ZMQFrame]], ZMQError> = await withCheckedContinuation { continuation in
            DispatchQueue(label: "sous.test.replies").async {
                continuation.resume(
                    returning: Result { () throws(ZMQError) in
                        let ready = try ZMQPoller.poll(peers.map { ($0.socket, ZMQPollEvents.readable) }, timeout: .seconds(30))
                        var arrived: [[ZMQFrame]] = []
                        for (peer, events) in zip(peers, ready) where !events.isEmpty {
                            while try peer.socket.canReceive() { arrived.append(try peer.socket.receiveMultipart(dontWait: true)) }
                        }
                        return arrived
                    })
            }
        }
        return try result.get()
    }
}

/// A catalog that takes requests and answers none until told to.
final class HungPeer: @unchecked Sendable {
    let socket: ZMQSocket
    let endpoint = "inproc://hung-catalog-\(UUID().uuidString)"

    init() throws {
        socket = try ZMQContext.shared.socket(.router)
        try socket.setLinger(milliseconds: 0)
        try socket.bind(endpoint)
    }

    deinit { socket.close() }

    /// The next `count` requests, each within 30 s.
    func takeRequests(_ count: Int) async throws -> [(routing: [ZMQFrame], id: String)] {
        var taken: [(routing: [ZMQFrame], id: String)] = []
        while taken.count < count {
            let result: Result<[ZMQFrame]?, ZMQError> = await withCheckedContinuation { continuation in
                DispatchQueue(label: "sous.test.hung-peer").async {
                    continuation.resume(returning: Result { () throws(ZMQError) in try self.socket.receive(timeout: .seconds(30)) })
                }
            }
            guard let frames = try result.get() else { throw ServiceError.unavailable("\(taken.count) of \(count) requests reached the hung peer") }
            guard case .request(let routing, let header, _) = Envelope.parseRequest(frames) else { continue }
            taken.append((routing, header.id))
        }
        return taken
    }

    func answer(_ requests: [(routing: [ZMQFrame], id: String)]) throws {
        for request in requests {
            try socket.send(
                multipart: Envelope.errorReplyFrames(routing: request.routing, requestID: request.id, error: .unavailable("back, but empty")))
        }
    }
}
