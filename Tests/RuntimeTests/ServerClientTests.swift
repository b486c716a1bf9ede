import Foundation
import MessagePack
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import ZeroMQ

@Suite(.closesItsSockets)
struct ServerClientTests {
    func client(_ host: ServiceHost, timeout: Duration = .seconds(30), retries: Int = 0) throws -> ServiceClient<Notes> {
        try host.testClient(as: Notes.self, timeout: timeout, retries: retries)
    }

    @Test func healthReportsNameVersionUptimeAndDatabase() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let report = try await client(host).call(CommonAPI.health, Empty())
            #expect(report.service == "catalog")
            #expect(report.version == SousVersion.current)
            #expect(report.protocolVersion == 3)
            #expect(report.uptimeSeconds >= 0)
            #expect(report.database.status == "ok")
            #expect(report.database.path == ":memory:")
        }
    }

    @Test func typedCallsRoundTripStructuredBodies() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let client = try client(host)
            let body = NotesAPI.AddNote(text: "Buy crème fraîche", tags: ["shopping", "dairy"])
            #expect(try await client.call(NotesAPI.echo, body) == body)
            let note = try await client.call(NotesAPI.add, body, user: "ada")
            #expect(note.total == 1 && note.tags == ["shopping", "dairy"])
            #expect(try await client.call(NotesAPI.count, Empty()).count == 1)
        }
    }

    @Test func handlerErrorsArriveAsTypedErrors() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let client = try client(host)
            let empty = await #expect(throws: ServiceError.self) {
                try await client.call(NotesAPI.add, .init(text: "", tags: []), user: "ada")
            }
            #expect(empty == .badRequest("text is empty", field: "text"))
            let anonymous = await #expect(throws: ServiceError.self) {
                try await client.call(NotesAPI.add, .init(text: "x", tags: []))
            }
            #expect(anonymous?.code == .unauthorized)
            #expect(anonymous?.field == "header.session")
        }
    }

    @Test func unknownMethodIsABadRequestNamingTheMethod() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let error = await #expect(throws: ServiceError.self) {
                try await client(host).call(Method<Notes, Empty, Empty>.read("notes.fly", .public), Empty())
            }
            #expect(error?.code == .badRequest)
            #expect(error?.field == "header.method")
            #expect(error?.message.contains("notes.fly") == true)
        }
    }

    @Test func undecodableBodyNamesTheField() async throws {
        struct Wrong: Codable, Sendable {
            var text: Int
            var tags: [String]
        }
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let error = await #expect(throws: ServiceError.self) {
                try await client(host).call(Method<Notes, Wrong, NotesAPI.Note>.write("notes.add", .user), Wrong(text: 5, tags: []), user: "ada")
            }
            #expect(error?.code == .badRequest)
            #expect(error?.field == "text")
        }
    }

    /// A handler stuck waiting must not stop the server answering others.
    @Test func aSlowHandlerDoesNotStallOtherRequests() async throws {
        let gates = Gates()
        gates.make("slow")
        let host = try makeNotesService(configuration: .inProcess(.catalog), gates: gates)
        try await withRunningService(host) { host in
            let client = try client(host)
            // The stuck call waits for the whole test, which the rest of the suite can slow past
            // 30 s on a busy machine: its own client waits longer (a bound, not a check).
            let patient = try self.client(host, timeout: .seconds(300))
            async let slow: Empty = patient.call(NotesAPI.wait, .init(gate: "slow"))
            await gates.waitForArrival("slow")
            // The slow call is in its handler; these must still be answered.
            for _ in 0..<20 {
                _ = try await client.call(CommonAPI.health, Empty())
            }
            gates.open("slow")
            _ = try await slow
        }
    }

    /// A lane sends its reply on the ROUTER itself, and that send can take in the signal that
    /// would have woken the I/O thread for a request that came in meanwhile: the lane wakes it
    /// then. With a poll that never times out, a wake-up missed is a call that never returns
    /// (the client's 30 s fail it), and one missed while draining a shutdown that never ends
    /// (the teardown's bound fails it).
    @Test func repliesSentFromLanesNeverLeaveARequestUnread() async throws {
        var configuration = ServiceConfiguration.inProcess(.catalog)
        configuration.serverOptions.pollInterval = .seconds(3600)
        let host = try makeNotesService(configuration: configuration)
        try await withRunningService(host) { host in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    let client = try client(host)
                    group.addTask { () async throws -> Int in
                        var answered = 0
                        for call in 0..<150 {
                            let note = NotesAPI.AddNote(text: "\(index)-\(call)", tags: [])
                            let echoed = try await client.call(NotesAPI.echo, note)
                            let health = try await client.call(CommonAPI.health, Empty())
                            if echoed == note && health.service == host.name { answered += 1 }
                        }
                        return answered
                    }
                }
                var answered = 0
                for try await count in group { answered += count }
                #expect(answered == 8 * 150)
            }
        }
    }

    @Test func gracefulShutdownAnswersInFlightRequests() async throws {
        let gates = Gates()
        gates.make("inflight")
        let host = try makeNotesService(configuration: .inProcess(.catalog), gates: gates)
        let client = try client(host)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await host.run(signals: false) }
            async let pending: Empty = client.call(NotesAPI.wait, .init(gate: "inflight"))
            await gates.waitForArrival("inflight")
            group.cancelAll()
            gates.open("inflight")
            _ = try await pending
            try? await group.waitForAll()
        }
        // After shutdown the endpoint no longer answers: nobody is there, so the call runs out
        // its attempt (seconds, like every wait in these tests) and says so.
        let after = await #expect(throws: ServiceError.self) {
            try await ServiceClient<Notes>(endpoint: host.boundEndpoints.requests, options: .init(timeout: .seconds(2), retries: 0))
                .call(CommonAPI.health, Empty())
        }
        #expect(after?.code == .unavailable)
    }

    /// A pooled socket whose inproc peer went away must not block the next call in send.
    @Test func aStoppedInprocServiceIsUnavailableNotAHang() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        let client = ServiceClient<Catalog>(endpoint: host.boundEndpoints.requests, options: .init(timeout: .seconds(2), retries: 1))
        try await withRunningService(host) { _ in
            // Generous while it runs: a bound on a hang, not a speed check.
            _ = try await client.call(CommonAPI.health, Empty(), timeout: .seconds(30))
        }
        let error = try await withTimeout(.seconds(10), waitingFor: "a call to a stopped service to fail") {
            await #expect(throws: ServiceError.self) { try await client.call(CommonAPI.health, Empty()) }
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("catalog") == true)
    }

    /// The first reply is lost on the way back; the client retries on a fresh socket with the
    /// same idempotency key and the server replays its reply instead of writing again.
    @Test func aRetriedWriteIsAppliedExactlyOnce() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        try await withRunningService(host) { host in
            let proxy = try LossyProxy(backend: host.boundEndpoints.requests, repliesToDrop: 1)
            // The dropped reply is noticed only by waiting out an attempt: 10 s, so a busy machine
            // answering late is never mistaken for a lost reply.
            let lossy = ServiceClient<Notes>(endpoint: proxy.frontendEndpoint, options: .init(timeout: .seconds(10), retries: 2))
            let note = try await lossy.call(NotesAPI.add, .init(text: "once", tags: []), user: "ada")
            #expect(proxy.droppedReplies == 1)
            #expect(note.total == 1)
            #expect(try await client(host).call(NotesAPI.count, Empty()).count == 1)
            await proxy.stop()
        }
    }

    @Test func aServiceThatDoesNotAnswerIsNamedInTheError() async throws {
        // Nobody is bound there (an absent peer): three attempts of 1.25 s each run out.
        let client = ServiceClient<Planner>(
            endpoint: "inproc://nobody-\(UUID().uuidString)", options: .init(timeout: .milliseconds(1250), retries: 2))
        let error = await #expect(throws: ServiceError.self) {
            try await client.call(CommonAPI.health, Empty())
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("planner did not answer health") == true)
        #expect(error?.message.contains("3 attempts") == true)
        #expect(error?.message.contains("within 1.3 s") == true, "the wait rounded to tenths: \(error?.message ?? "")")
    }

    @Test func servesOverTCPOnAPortTheOSPicks() async throws {
        var configuration = ServiceConfiguration.inProcess(.tracker)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let host = try makeNotesService(configuration: configuration)
        #expect(host.boundEndpoints.requests.hasPrefix("tcp://127.0.0.1:"))
        #expect(!host.boundEndpoints.requests.hasSuffix(":*"))
        try await withRunningService(host) { host in
            let report = try await client(host).call(CommonAPI.health, Empty())
            #expect(report.service == "tracker")
            // A stranger learns the database is ok, not where it is.
            #expect(report.database.status == "ok" && report.database.path == nil)
            let operatorReport = try await client(host).call(CommonAPI.health, Empty(), session: TestSessions.operatorToken)
            #expect(operatorReport.database.path == ":memory:")
            let userReport = try await client(host).call(CommonAPI.health, Empty(), session: TestSessions.token(for: "ada"))
            #expect(userReport.database.path == nil)
        }
    }

    /// Replicas over TCP (``Replicas``): the socket takes a request only once a connection is
    /// up, so the first call of a fresh client, and calls while one replica is gone, must wait
    /// for a connection instead of being dropped.
    @Test func aClientOfTwoReplicasIsAnsweredFromItsFirstCallAndWithOneOfThemDown() async throws {
        var configuration = ServiceConfiguration.inProcess(.tracker)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let first = try makeNotesService(configuration: configuration)
        let second = try makeNotesService(configuration: configuration)
        try await withRunningServices([first, second]) { _ in
            let curve = try first.clientCurve()
            let endpoints = [first.boundEndpoints.requests, second.boundEndpoints.requests]
            let both = ServiceClient<Notes>(
                endpoint: endpoints.joined(separator: ","), options: .init(timeout: .seconds(30), retries: 0), curve: { curve })
            for _ in 0..<4 { #expect(try await both.call(CommonAPI.health, Empty()).service == "tracker") }
            // Nothing listens on the discard port: that replica's connection never comes up.
            let oneDown = ServiceClient<Notes>(
                endpoint: "tcp://127.0.0.1:9,\(first.boundEndpoints.requests)", options: .init(timeout: .seconds(30), retries: 0), curve: { curve })
            for _ in 0..<4 { #expect(try await oneDown.call(CommonAPI.health, Empty()).service == "tracker") }
        }
    }

    @Test func eventsReachSubscribersByTopicPrefix() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        let subscriber = EventSubscriber(endpoints: [host.boundEndpoints.events], prefixes: [EventTopics.activity.name], logger: host.logger)
        try await withRunningService(host) { host in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await subscriber.run() }
                await subscriber.waitUntilSubscribed()
                let client = try client(host)
                // Subscriptions propagate asynchronously; keep acting until the first event arrives.
                let writer = Task {
                    for index in 0..<500 {
                        if Task.isCancelled { return }
                        _ = try? await client.call(NotesAPI.add, .init(text: "n\(index)", tags: []), user: "ada")
                    }
                }
                let event = try await firstElement(of: subscriber.events, within: .seconds(10))
                writer.cancel()
                #expect(event.header.topic == "activity")
                #expect(event.header.source == "catalog")
                let activity = try event.decode(ActivityEvent.self)
                #expect(activity.user == "ada" && activity.method == "notes.add")

                // A service acting for a user (a peer call, background work) is not the user
                // doing something: no activity for grace, whose calls come between ada's.
                let body = try MessagePackEncoder().encode(NotesAPI.AddNote(text: "for grace", tags: []))
                for index in 0..<3 {
                    let forGrace = ClientAttempt(
                        method: NotesAPI.add.name, isWrite: true, body: body, session: nil, onBehalfOf: "grace", timeout: nil,
                        idempotencyKey: "grace-\(index)", deadline: nil)
                    let reply = try await client.send(forGrace).get()
                    #expect(reply.header.status == .ok)
                    _ = try await client.call(NotesAPI.add, .init(text: "ada \(index)", tags: []), user: "ada")
                }
                // Then one call by zoe: every event up to hers is in.
                _ = try await client.call(NotesAPI.add, .init(text: "zoe", tags: []), user: "zoe")
                let events = subscriber.events
                let users = try await withTimeout(.seconds(30), waitingFor: "zoe's activity") {
                    var users: [String] = []
                    for try await event in events {
                        users.append(try event.decode(ActivityEvent.self).user)
                        if users.last == "zoe" { break }
                    }
                    return users
                }
                #expect(users.last == "zoe" && users.filter { $0 == "ada" }.count >= 3)
                #expect(!users.contains("grace"), "\(users)")
                group.cancelAll()
            }
        }
    }
}
