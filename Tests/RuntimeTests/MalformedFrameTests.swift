import Foundation
import MessagePack
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import ZeroMQ

/// Damaged and hostile requests get a typed error reply (or, where no reply is possible, are
/// dropped) and the service goes on answering everyone else.
@Suite(.closesItsSockets)
struct MalformedFrameTests {
    /// A request message's first six bytes: "SOUS", the version, the kind.
    let prefix = SousProtocol.prefix(.request)

    func header(_ method: String = "health", id: String = "r1") throws -> [UInt8] {
        try MessagePackEncoder().encode(RequestHeader(method: method, id: id))
    }

    /// Sends `frames` from a raw DEALER and returns the decoded error reply.
    func errorReply(to frames: [ZMQFrame], at endpoint: String) async throws -> (ReplyHeader, ServiceError) {
        let peer = try RawPeer(connectingTo: endpoint)
        try peer.send(frames)
        let reply = try #require(try await peer.receive(timeout: .seconds(30)), "no reply to a malformed request")
        let parsed = try Envelope.parseReply(reply)
        #expect(parsed.header.status == .error)
        return (parsed.header, try MessagePackDecoder().decode(ServiceError.self, from: parsed.body))
    }

    func stillServes(_ host: ServiceHost) async throws {
        #expect(try await host.testClient().call(CommonAPI.health, Empty()).service == host.name)
    }

    /// A user id of spaces only is refused, not taken as a user.
    @Test func blankUserIDsAreRefused() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            for blank in ["   ", "\t\n"] {
                let header = try MessagePackEncoder().encode(RequestHeader(method: "notes.count", id: "b1", onBehalfOf: blank))
                let (_, error) = try await errorReply(to: [[], prefix + header + [0x80]], at: host.boundEndpoints.requests)
                #expect(error.code == .badRequest && error.field == "header.onBehalfOf", "\(error)")
            }
        }
    }

    /// An address the web app names for the person it serves is checked like every other header
    /// field, whoever sends it.
    @Test func malformedForwardedAddressesAreRefused() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            for address in ["", "198.51.100.7\r\nX: y", String(repeating: "9", count: 65), "203.0.113.9 ", "dé"] {
                let header = try MessagePackEncoder().encode(RequestHeader(method: "notes.count", id: "f1", forwardedFor: address))
                let (reply, error) = try await errorReply(to: [[], prefix + header + [0x80]], at: host.boundEndpoints.requests)
                #expect(
                    error.code == .badRequest && error.field == "header.forwardedFor" && reply.id == "f1", "\(address.debugDescription): \(error)")
            }
            try await stillServes(host)
        }
    }

    /// A method that takes `{}` refuses any other body: an array, a number, a string or nil.
    @Test func emptyBodiesMustBeMaps() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            for body: [UInt8] in [[0x90], [0x05], [0xa1, 0x78], [0xc0]] {
                let (_, error) = try await errorReply(to: [[], prefix + (try header()) + body], at: host.boundEndpoints.requests)
                #expect(error.code == .badRequest && error.field == "body", "body \(body): \(error)")
            }
            try await stillServes(host)
        }
    }

    /// A message cut short, nothing after the delimiter, or a request laid out as version 2 sent
    /// it (protocol, header and body in three frames).
    @Test func truncatedOrSplitRequests() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let (_, noHeader) = try await errorReply(to: [[], prefix], at: host.boundEndpoints.requests)
            #expect(noHeader.code == .badRequest && noHeader.field == "header")
            let (_, noProtocol) = try await errorReply(to: [[]], at: host.boundEndpoints.requests)
            #expect(noProtocol.field == "protocol")
            let (_, split) = try await errorReply(to: [[], prefix, try header(), [0x80]], at: host.boundEndpoints.requests)
            #expect(split.code == .badRequest && split.field == "frames")
            try await stillServes(host)
        }
    }

    @Test func wrongSignature() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let (_, error) = try await errorReply(to: [[], Array("HTTP/1".utf8) + (try header()) + [0x80]], at: host.boundEndpoints.requests)
            #expect(error.code == .badRequest && error.field == "protocol")
            try await stillServes(host)
        }
    }

    @Test func wrongVersion() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let (_, error) = try await errorReply(
                to: [[], SousProtocol.signature + [9, 1] + (try header()) + [0x80]], at: host.boundEndpoints.requests)
            #expect(error.code == .badRequest && error.field == "version")
            #expect(error.message.contains("version 9"))
            try await stillServes(host)
        }
    }

    @Test func replyKindSentAsARequest() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let (_, error) = try await errorReply(
                to: [[], SousProtocol.prefix(.reply) + (try header()) + [0x80]], at: host.boundEndpoints.requests)
            #expect(error.field == "kind")
            try await stillServes(host)
        }
    }

    @Test func garbageHeader() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let (replyHeader, error) = try await errorReply(to: [[], prefix + [0xc1, 0xff, 0x00, 0x80]], at: host.boundEndpoints.requests)
            #expect(error.code == .badRequest && error.field == "header")
            #expect(replyHeader.id == "")
            try await stillServes(host)
        }
    }

    @Test func headerWithAnIdButNoMethodEchoesTheId() async throws {
        struct OnlyID: Codable { var id: String }
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let headerBytes = try MessagePackEncoder().encode(OnlyID(id: "abc"))
            let (replyHeader, error) = try await errorReply(to: [[], prefix + headerBytes + [0x80]], at: host.boundEndpoints.requests)
            #expect(replyHeader.id == "abc")
            #expect(error.field == "header")
            try await stillServes(host)
        }
    }

    @Test func garbageBody() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let hostile: [[UInt8]] = [
                [0xdb, 0xff, 0xff, 0xff, 0xff],  // a string claiming 4 GiB
                [UInt8](repeating: 0x91, count: 10_000),  // nesting bomb
                [0x82, 0xa4] + Array("text".utf8),  // truncated map
                [0xc1],  // never-used format byte
            ]
            for body in hostile {
                let frames: [ZMQFrame] = [[], prefix + (try header("notes.echo", id: "g")) + body]
                let (replyHeader, error) = try await errorReply(to: frames, at: host.boundEndpoints.requests)
                #expect(replyHeader.id == "g")
                #expect(error.code == .badRequest && error.field == "body")
            }
            try await stillServes(host)
        }
    }

    @Test func oversizedId() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let longID = String(repeating: "x", count: 1000)
            let (_, error) = try await errorReply(to: [[], prefix + (try header(id: longID)) + [0x80]], at: host.boundEndpoints.requests)
            #expect(error.field == "header.id")
            try await stillServes(host)
        }
    }

    /// Nothing to reply to: dropped with a log line, and the service keeps serving.
    @Test func messageWithoutDelimiterIsDropped() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let peer = try RawPeer(connectingTo: host.boundEndpoints.requests)
            try peer.send([prefix + (try header()) + [0x80]])
            #expect(try await peer.receive(timeout: .milliseconds(200)) == nil)
            try await stillServes(host)
        }
    }

    /// A message over MAXMSGSIZE makes libzmq drop that peer's connection; no reply is possible,
    /// and other clients are not affected. Needs TCP: inproc bypasses MAXMSGSIZE.
    @Test func oversizedMessageDisconnectsOnlyThatPeer() async throws {
        var configuration = ServiceConfiguration.inProcess(.catalog)
        configuration.bind = "tcp://127.0.0.1:*"
        let host = try makeNotesService(configuration: configuration)
        try await withRunningService(host) { host in
            let peer = try RawPeer(connectingTo: host.boundEndpoints.requests, curve: try host.clientCurve())
            let huge = [UInt8](repeating: 0xa0, count: SousProtocol.maxMessageBytes + 1)
            try peer.send([[], prefix + (try header("notes.echo")) + huge])
            #expect(try await peer.receive(timeout: .milliseconds(300)) == nil)
            try await stillServes(host)
        }
    }
}
