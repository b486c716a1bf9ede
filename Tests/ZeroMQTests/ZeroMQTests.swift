import Foundation
import SocketCheck
import Testing
import ZeroMQ

@Suite(.closesItsSockets)
struct ZeroMQTests {
    let context = ZMQContext.shared

    func pair(_ first: ZMQSocketType, _ second: ZMQSocketType, transport: String = "inproc") throws -> (ZMQSocket, ZMQSocket) {
        let server = try context.socket(first)
        let endpoint = transport == "inproc" ? "inproc://zmq-test-\(UUID().uuidString)" : "tcp://127.0.0.1:*"
        try server.bind(endpoint)
        let client = try context.socket(second)
        try client.connect(try server.lastEndpoint)
        return (server, client)
    }

    @Test func multipartMessagesArriveWholeThroughRouterAndDealer() throws {
        let (router, dealer) = try pair(.router, .dealer)
        defer {
            router.close()
            dealer.close()
        }
        try dealer.send(multipart: [[], Array("hello".utf8), [0, 1, 2]])
        let received = try #require(try router.receive(timeout: .seconds(5)))
        #expect(received.count == 4, "routing id + 3 frames")
        #expect(Array(received.dropFirst()) == [[], Array("hello".utf8), [0, 1, 2]])
        try router.send(multipart: [received[0], [], Array("reply".utf8)])
        #expect(try dealer.receive(timeout: .seconds(5)) == [[], Array("reply".utf8)])
    }

    /// A bounded receive copies out only the frames within its bound and reads the rest of the
    /// message away, so the next message arrives whole and first.
    @Test func aBoundedReceiveKeepsTheStartAndDropsTheRest() throws {
        let (router, dealer) = try pair(.router, .dealer)
        defer {
            router.close()
            dealer.close()
        }
        try dealer.send(multipart: [[], [1, 2, 3]] + Array(repeating: [UInt8](repeating: 7, count: 1024), count: 40))
        try dealer.send(multipart: [[], [4, 5]])
        try dealer.send(multipart: [[], [UInt8](repeating: 9, count: 600), [UInt8](repeating: 9, count: 600)])
        // Bounded waits: a message that never came fails the test instead of hanging it.
        try router.setReceiveTimeout(milliseconds: 60_000)
        let bound = ZMQSocket.KeepBound(frames: 4, bytes: 1000)
        let many = try router.receiveMultipart(property: nil, keeping: bound)
        #expect(many.overflowed)
        #expect(Array(many.frames.dropFirst()) == [[], [1, 2, 3]], "the first 1 KiB frame passes the byte bound")
        let small = try router.receiveMultipart(property: nil, keeping: bound)
        #expect(!small.overflowed)
        #expect(Array(small.frames.dropFirst()) == [[], [4, 5]])
        let wide = try router.receiveMultipart(property: nil, keeping: bound)
        #expect(wide.overflowed, "600 + 600 bytes pass the 1000-byte bound")
        #expect(Array(wide.frames.dropFirst()) == [[], [UInt8](repeating: 9, count: 600)])
        #expect(try router.receive(timeout: .zero) == nil, "nothing of the three messages is left behind")
    }

    /// A socket's descriptor is edge-triggered: any call on the socket takes in the command that
    /// signalled it, after which a poll of the descriptor no longer says a message waits. The
    /// server's lanes send on its ROUTER while the I/O thread polls that descriptor, so they ask
    /// `canReceive()`, which still tells, and wake the I/O thread when it does.
    @Test func aCallOnTheSocketQuietsItsDescriptorAndCanReceiveStillTells() throws {
        let (router, dealer) = try pair(.router, .dealer)
        defer {
            router.close()
            dealer.close()
        }
        try dealer.send(multipart: [[], Array("first".utf8)])
        _ = try #require(try router.receive(timeout: .seconds(5)))
        #expect(try router.receive(timeout: .zero) == nil)
        #expect(try !router.canReceive())

        let descriptor = try router.eventDescriptor()
        try dealer.send(multipart: [[], Array("second".utf8)])
        #expect(try ZMQPoller.wait([descriptor], timeout: .seconds(5)) == [true], "the message signals the descriptor")
        #expect(try router.canReceive())
        #expect(try ZMQPoller.wait([descriptor], timeout: .zero) == [false], "the call took the signal in")
        #expect(try router.receive(timeout: .zero)?.last == Array("second".utf8))
    }

    /// Messages of up to 33 bytes live inside zmq_msg_t itself; copying the struct would corrupt
    /// them, so every size around that boundary must arrive intact.
    @Test func smallMessagesAroundTheInlineLimitArriveIntact() throws {
        let (pull, push) = try pair(.pull, .push)
        defer {
            pull.close()
            push.close()
        }
        for size in 0...70 {
            let frame = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            try push.send(multipart: [frame, frame.reversed()])
            let received = try #require(try pull.receive(timeout: .seconds(5)))
            #expect(received == [frame, frame.reversed()], "size \(size)")
        }
    }

    @Test func receiveWithTimeoutReturnsNilWhenNothingArrives() throws {
        let (pull, push) = try pair(.pull, .push)
        defer {
            pull.close()
            push.close()
        }
        let start = ContinuousClock.now
        #expect(try pull.receive(timeout: .milliseconds(50)) == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(45))
    }

    @Test func blockingReceiveHonoursReceiveTimeout() throws {
        let (pull, push) = try pair(.pull, .push)
        defer {
            pull.close()
            push.close()
        }
        try pull.setReceiveTimeout(milliseconds: 30)
        let error = #expect(throws: ZMQError.self) { try pull.receiveMultipart() }
        #expect(error?.isWouldBlock == true)
    }

    @Test func errorsCarryErrnoAndText() throws {
        let socket = try context.socket(.router)
        defer { socket.close() }
        let error = #expect(throws: ZMQError.self) { try socket.bind("nonsense://x") }
        #expect(error?.code != 0)
        #expect(error?.message.isEmpty == false)
        #expect(error?.description.contains("zmq_bind") == true)
    }

    @Test func routerMandatoryReportsUnknownPeers() throws {
        let router = try context.socket(.router)
        defer { router.close() }
        try router.setRouterMandatory(true)
        try router.bind("inproc://mandatory-\(UUID().uuidString)")
        let error = #expect(throws: ZMQError.self) { try router.send(multipart: [Array("nobody".utf8), [], [1]]) }
        #expect(error?.isHostUnreachable == true)
    }

    @Test func publishSubscribeFiltersByPrefixOverTCP() throws {
        let (publisher, subscriber) = try pair(.pub, .sub, transport: "tcp")
        defer {
            publisher.close()
            subscriber.close()
        }
        try subscriber.subscribe("activity")
        // A subscription reaches the publisher asynchronously: publish until the first arrives.
        var first: [ZMQFrame]?
        for _ in 0..<200 where first == nil {
            try publisher.send(multipart: [Array("other".utf8), [0]])
            try publisher.send(multipart: [Array("activity".utf8), [1]])
            first = try subscriber.receive(timeout: .milliseconds(25))
        }
        #expect(first == [Array("activity".utf8), [1]])
    }

    @Test func curveEncryptsAndAuthenticatesTheServer() throws {
        try #require(ZMQContext.has("curve"), "libzmq built without CURVE")
        let serverKeys = try CurveKeyPair.generate()
        let clientKeys = try CurveKeyPair.generate()
        #expect(serverKeys.publicKey.count == 40 && serverKeys.secretKey.count == 40)
        // A context of its own: no ZAP handler (the services' one refuses unknown domains).
        let isolated = ZMQContext()
        let server = try isolated.socket(.router)
        let client = try isolated.socket(.dealer)
        defer {
            server.close()
            client.close()
            isolated.terminate()
        }
        try server.setCurveServer(secretKey: serverKeys.secretKey)
        try server.bind("tcp://127.0.0.1:*")
        try client.setCurveClient(serverKey: serverKeys.publicKey, keyPair: clientKeys)
        try client.connect(try server.lastEndpoint)
        try client.send(multipart: [Array("secret".utf8)])
        let received = try #require(try server.receive(timeout: .seconds(5)))
        #expect(received.last == Array("secret".utf8))
    }

    @Test func libraryVersionIsReported() {
        #expect(ZMQContext.libraryVersion.hasPrefix("4."))
    }
}
