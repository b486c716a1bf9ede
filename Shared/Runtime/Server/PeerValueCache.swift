public import Foundation
public import Logging
public import ServiceLifecycle
public import SousWire
import Synchronization

/// A value per user that another service owns (the planner's cooking profile), kept here so a
/// request that needs it makes no round trip to its owner.
///
/// The owner announces each change on its event bus; the cache subscribes to those topics and
/// replaces the user's value with the one an event carries, or drops it so the next request
/// reads it again (``PeerValueChange``), when the change arrives (normally within a millisecond
/// of the owner's reply). A value is read from the owner when it is missing, older than
/// `maximumAge` by the service clock, or past the instant the value itself says it expires:
/// the age bounds how long a change lost while the subscription was down (the owner
/// restarting) can go unseen. When the owner cannot be reached, ``lastKnown(for:)`` still gives
/// what it last said.
///
/// Run it as one of the host's services: it runs its own subscriber.
public final class PeerValueCache<Target: PeerService, Value: Codable & Sendable>: Service, Sendable {
    private struct Entry {
        var value: Value
        var fetchedAt: Date
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Bumped by every change event, so a read that started before a change never stores
        /// the older value over it.
        var generations: [String: UInt64] = [:]
    }

    private let state = Mutex(State())
    private let fetch: @Sendable (_ user: String, RequestContext?, Peer<Target>.Need) async throws(ServiceError) -> Value
    private let changes: [String: PeerValueChange<Value>]
    private let expiry: (@Sendable (Value) -> Date)?
    private let subscriber: EventSubscriber
    private let clock: WallClock
    private let logger: Logger
    /// How long a value is used without asking the owner again.
    public let maximumAge: TimeInterval
    /// Users whose value a change event has just replaced or dropped (for tests and tools, like
    /// ``RevocationList/applied(through:)``).
    public let applied = Broadcast<String>()
    /// More users than this and expired values are dropped (then all, if none had expired).
    static var capacity: Int { 100_000 }

    /// Caches `method`'s answers (a read of the caller's own value) per user, replacing them with
    /// the body of each `topic` event, from which `change` picks the user and the new value.
    public convenience init<Body: Decodable & Sendable>(
        _ method: Method<Target, Empty, Value>,
        changedBy topic: Topic<Body>,
        change: @escaping @Sendable (Body) -> (user: String, value: Value),
        configuration: ServiceConfiguration,
        maximumAge: TimeInterval = 60,
        logger: Logger
    ) {
        self.init(method, changes: [.replaced(by: topic, change)], configuration: configuration, maximumAge: maximumAge, logger: logger)
    }

    /// Caches `method`'s answers per user, changed by each of `changes`' topics; `expiry` is the
    /// instant a value says it stops holding (nil: only `maximumAge` bounds it).
    public init(
        _ method: Method<Target, Empty, Value>,
        changes: [PeerValueChange<Value>],
        expiry: (@Sendable (Value) -> Date)? = nil,
        configuration: ServiceConfiguration,
        maximumAge: TimeInterval = 60,
        logger: Logger
    ) {
        let peer = Peer(Target.self, of: configuration)
        fetch = { user, context, need throws(ServiceError) in try await peer.call(method, Empty(), user: user, for: context, need: need) }
        self.changes = Dictionary(changes.map { ($0.topic, $0) }, uniquingKeysWith: { first, _ in first })
        self.expiry = expiry
        subscriber = EventSubscriber(
            sources: [
                .init(
                    endpoint: configuration.endpoints(of: Target.service).events, curve: configuration.curveSetup(for: Target.service, events: true))
            ],
            prefixes: changes.map(\.topic), logger: logger)
        clock = configuration.clock
        self.maximumAge = maximumAge
        self.logger = logger
    }

    /// The user's value: the cached one while it is fresh, else the owner's answer (which is
    /// then cached). `need` is how the owner is called (see ``Peer/Need``).
    public func value(for user: String, context: RequestContext?, need: Peer<Target>.Need = .required) async throws(ServiceError) -> Value {
        let now = clock.now
        let (cached, generation) = state.withLock { state in (state.entries[user], state.generations[user] ?? 0) }
        if let cached, isFresh(cached, at: now) { return cached.value }
        let value = try await fetch(user, context, need)
        state.withLock { state in
            guard (state.generations[user] ?? 0) == generation else { return }
            Self.store(value, for: user, at: now, in: &state, maximumAge: maximumAge)
        }
        return value
    }

    /// The cached value while it is fresh, as ``value(for:context:need:)`` would return it, or
    /// nil where that would ask the owner: for a read that may not wait (an attempt on the I/O
    /// thread).
    public func fresh(for user: String) -> Value? {
        let now = clock.now
        guard let cached = state.withLock({ $0.entries[user] }), isFresh(cached, at: now) else { return nil }
        return cached.value
    }

    private func isFresh(_ entry: Entry, at now: Date) -> Bool {
        guard entry.fetchedAt <= now, now.timeIntervalSince(entry.fetchedAt) < maximumAge else { return false }
        return expiry.map { now < $0(entry.value) } ?? true
    }

    /// What the owner last said for `user`, however old: for answering while it is unreachable.
    public func lastKnown(for user: String) -> Value? {
        state.withLock { $0.entries[user]?.value }
    }

    /// Returns once the subscription is made (changes published after that are seen, subject to
    /// the transport's join delay).
    public func waitUntilSubscribed() async {
        await subscriber.waitUntilSubscribed()
    }

    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await self.subscriber.run() }
            defer { applied.finish() }
            for await event in subscriber.events.cancelOnGracefulShutdown() {
                apply(event)
            }
        }
    }

    func apply(_ event: Envelope.Event) {
        guard let change = changes[event.header.topic] else { return }
        let updates: [(user: String, value: Value?)]
        do {
            updates = try change.read(event)
        } catch {
            logger.error("change not applied", metadata: ["topic": "\(event.header.topic)", "error": "\(error)"])
            return
        }
        let now = clock.now
        for update in updates {
            state.withLock { state in
                state.generations[update.user, default: 0] &+= 1
                if let value = update.value {
                    Self.store(value, for: update.user, at: now, in: &state, maximumAge: maximumAge)
                } else {
                    state.entries[update.user] = nil
                }
            }
            applied.yield(update.user)
        }
    }

    private static func store(_ value: Value, for user: String, at now: Date, in state: inout State, maximumAge: TimeInterval) {
        if state.entries[user] == nil, state.entries.count >= capacity {
            state.entries = state.entries.filter { now.timeIntervalSince($0.value.fetchedAt) < maximumAge }
            if state.entries.count >= capacity { state.entries = [:] }
            state.generations = state.generations.filter { state.entries[$0.key] != nil }
        }
        state.entries[user] = Entry(value: value, fetchedAt: now)
    }
}

/// What one of the owner's topics does to a ``PeerValueCache``: carries the user's new value, or
/// says only that it changed (the value is dropped and read again when next needed).
public struct PeerValueChange<Value: Sendable>: Sendable {
    let topic: String
    /// The users the event is about and each one's new value (nil: dropped); none for an event
    /// about nobody's value.
    let read: @Sendable (Envelope.Event) throws -> [(user: String, value: Value?)]

    /// Each `topic` event carries the user's new value, which replaces the kept one.
    public static func replaced<Body: Decodable & Sendable>(
        by topic: Topic<Body>, _ change: @escaping @Sendable (Body) -> (user: String, value: Value)
    ) -> Self {
        Self(topic: topic.name) { event in try event.body(of: topic).map(change).map { [($0.user, $0.value)] } ?? [] }
    }

    /// Each `topic` event names a user whose kept value no longer holds.
    public static func dropped<Body: Decodable & Sendable>(by topic: Topic<Body>, user: @escaping @Sendable (Body) -> String) -> Self {
        Self(topic: topic.name) { event in try event.body(of: topic).map { [(user($0), nil)] } ?? [] }
    }

    /// Each `topic` event names users whose kept values no longer hold (a household's members).
    public static func dropped<Body: Decodable & Sendable>(by topic: Topic<Body>, users: @escaping @Sendable (Body) -> [String]) -> Self {
        Self(topic: topic.name) { event in try event.body(of: topic).map { users($0).map { ($0, nil) } } ?? [] }
    }
}
