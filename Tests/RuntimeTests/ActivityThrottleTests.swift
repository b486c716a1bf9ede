import Foundation
import SousTestSupport
import SousWire
import Testing

@testable import SousRuntime

/// A user's activity events: the first at once, then at most one per interval, the latest call
/// of each interval, with the time of that call.
struct ActivityThrottleTests {
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func event(_ user: String, _ method: String, _ second: Double) -> ActivityEvent {
        ActivityEvent(user: user, time: Date(timeIntervalSince1970: 1_800_000_000 + second), service: "catalog", method: method)
    }

    @Test func firstAtOnceThenTheLatestOfEachInterval() {
        let throttle = ActivityThrottle(interval: .seconds(1))
        #expect(throttle.admit(event("ada", "recipes.get", 0), at: at(0)) == event("ada", "recipes.get", 0))
        #expect(throttle.admit(event("ada", "recipes.search", 0.2), at: at(200)) == nil)
        #expect(throttle.admit(event("ada", "plan.get", 0.5), at: at(500)) == nil)
        #expect(throttle.due(at: at(999)).isEmpty, "the interval is not over")
        #expect(throttle.due(at: at(1_000)) == [event("ada", "plan.get", 0.5)], "the latest call, at its own time")
        #expect(throttle.due(at: at(1_100)).isEmpty, "published once")

        // Publishing it started another interval: a call in it waits too.
        #expect(throttle.admit(event("ada", "recipes.get", 1.5), at: at(1_500)) == nil)
        #expect(throttle.due(at: at(2_000)) == [event("ada", "recipes.get", 1.5)])
        // An interval with nothing waiting ends the user's turn: the next call is published at once.
        #expect(throttle.due(at: at(3_000)).isEmpty)
        #expect(throttle.openWindows == 0)
        #expect(throttle.admit(event("ada", "recipes.get", 3.5), at: at(3_500)) == event("ada", "recipes.get", 3.5))
    }

    @Test func eachUserHasTheirOwnInterval() {
        let throttle = ActivityThrottle(interval: .seconds(1))
        #expect(throttle.admit(event("ada", "a", 0), at: at(0)) != nil)
        #expect(throttle.admit(event("bob", "b", 0.3), at: at(300)) != nil, "another user is not held back by ada's interval")
        #expect(throttle.admit(event("ada", "a2", 0.4), at: at(400)) == nil)
        #expect(throttle.admit(event("bob", "b2", 0.6), at: at(600)) == nil)
        #expect(throttle.due(at: at(1_000)) == [event("ada", "a2", 0.4)], "bob's interval is not over yet")
        #expect(throttle.due(at: at(1_300)) == [event("bob", "b2", 0.6)])
    }

    @Test func stoppingPublishesEverythingThatWaits() {
        let throttle = ActivityThrottle(interval: .seconds(60))
        for (index, user) in ["ada", "bob", "cy"].enumerated() {
            #expect(throttle.admit(event(user, "first", Double(index)), at: at(index)) != nil)
            #expect(throttle.admit(event(user, "last", Double(index) + 0.5), at: at(index + 1)) == nil)
        }
        #expect(throttle.due(at: at(10)).isEmpty)
        #expect(throttle.due(at: at(10), all: true) == ["ada", "bob", "cy"].enumerated().map { event($1, "last", Double($0) + 0.5) })
        #expect(throttle.openWindows == 0)
    }
}

/// Over sockets: the service publishes a user's first call at once and the latest of the
/// interval after it, whichever method it was.
@Suite(.closesItsSockets)
struct ActivityEventTests {
    @Test func aBurstOfCallsIsTwoEventsTheFirstAndTheLatest() async throws {
        let host = try makeNotesService(configuration: .inProcess(.catalog))
        let mark = Method<Notes, NotesAPI.AddNote, NotesAPI.AddNote>.read("notes.mark", .user)
        host.server.register(mark) { request, _ in request }
        let subscriber = EventSubscriber(endpoints: [host.boundEndpoints.events], prefixes: [EventTopics.activity.name], logger: host.logger)
        try await withRunningService(host) { host in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await subscriber.run() }
                await subscriber.waitUntilSubscribed()
                let client = try host.testClient(as: Notes.self, timeout: .seconds(30))
                // Subscriptions propagate asynchronously: keep acting (as another user) until an event arrives.
                let warmUp = Task {
                    for index in 0..<500 {
                        if Task.isCancelled { return }
                        _ = try? await client.call(NotesAPI.add, .init(text: "w\(index)", tags: []), user: "warm")
                    }
                }
                _ = try await firstElement(of: subscriber.events, within: .seconds(10))
                warmUp.cancel()
                _ = await warmUp.result

                _ = try await client.call(NotesAPI.add, .init(text: "soup", tags: []), user: "ada")
                for _ in 0..<5 { _ = try await client.call(mark, .init(text: "x", tags: []), user: "ada") }
                var methods: [String] = []
                while methods.count < 2 {
                    let event = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                        (try? $0.decode(ActivityEvent.self).user) == "ada"
                    }
                    methods.append(try event.decode(ActivityEvent.self).method)
                }
                #expect(methods == ["notes.add", "notes.mark"])
                group.cancelAll()
            }
        }
    }
}
