import Foundation
import NotifierService
import NotifierTesting
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// The notifier's subscription outlives a publisher's restart (libzmq reconnects over TCP).
@Suite(.closesItsSockets)
struct NotifierSubscriptionTests {
    /// A bare service host standing in for the groceries service, its events on a fixed TCP
    /// endpoint so a second instance can take the first one's place.
    func groceries(eventsAt events: String) throws -> ServiceHost {
        var configuration = ServiceConfiguration.inProcess(.groceries)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = events
        return try ServiceHost(configuration: configuration, logger: quietLogger("groceries"), databaseHealth: { DatabaseHealth(status: "ok") })
    }

    func activity(_ user: String, from host: ServiceHost) {
        host.publisher.publish(EventTopics.activity, ActivityEvent(user: user, time: host.clock.now, service: "groceries", method: "list.get"))
    }

    /// The first instance, on a port below Linux's ephemeral range (32768 and up): while the
    /// port is free between the two instances, no outgoing connection (another test's, or the
    /// subscriber's own reconnect attempts connecting to themselves) can take it.
    func firstGroceries() throws -> ServiceHost {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                return try groceries(eventsAt: "tcp://127.0.0.1:\(Int.random(in: 20_000..<32_000))")
            } catch {
                lastError = error
            }
        }
        throw lastError ?? ServiceError.internal("no free port")
    }

    @Test func activityIsReceivedAgainAfterAPublisherRestarts() async throws {
        let first = try firstGroceries()
        let events = first.boundEndpoints.events
        let notifier = try NotifierFixture.make(
            peers: [.groceries: ServiceEndpoints(requests: first.boundEndpoints.requests, events: events)],
            clock: .manual(at: NotifierServiceTests.morning)
        )
        try await withRunningServices([notifier.host]) { _ in
            try await withRunningServices([first]) { _ in
                try await untilNotifier(notifier, applies: EventTopics.activity, of: "ada") { activity("ada", from: first) }
            }
            // The groceries service is gone; a new instance binds the same endpoint (once libzmq
            // has closed the first one's listener, which it does asynchronously).
            let second = try await eventually(within: .seconds(10), waitingFor: "the port to be free") { try groceries(eventsAt: events) }
            try await withRunningServices([second]) { _ in
                try await untilNotifier(notifier, applies: EventTopics.activity, of: "bob") { activity("bob", from: second) }
            }
            #expect(try notifier.store.pending(of: "ada") != nil)
            #expect(try notifier.store.pending(of: "bob") != nil)
        }
    }
}
