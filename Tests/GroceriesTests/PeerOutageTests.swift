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
        let hole = try ZMQContext.shared.socket(.router)
        defer { hole.close() }
        try hole.setLinger(milliseconds: 0)
        let holeEndpoint = "inproc://hung-catalog-\(UUID().uuidString)"
        try hole.bind(holeEndpoint)
        var configuration = ServiceConfiguration.testing(
            .groceries, peers: [.catalog: ServiceEndpoints(requests: holeEndpoint, events: "inproc://hung-catalog-events-\(UUID().uuidString)")])
        // Long enough that no waiting call gives up while the test sends the rest.
        configuration.peerTimeouts[.catalog] = .seconds(10)
        let groceries = try GroceriesService(configuration: configuration, logger: quietLogger("groceries"))
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
            // All but the 64 allowed to wait are refused at once, most of them naming the catalog.
            let expected = 270 - Peer<Catalog>.maxWaiting
            var refused: [ServiceError] = []
            let giveUp = ContinuousClock.now + .seconds(60)
            while refused.count < expected, ContinuousClock.now < giveUp {
                for peer in peers {
                    guard let frames = try await peer.receive(timeout: .milliseconds(100)) else { continue }
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
        }
    }
}
