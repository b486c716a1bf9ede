import Foundation
import Logging
public import ServiceLifecycle
public import SousRuntime
import SousSchema
public import SousWire

/// An event the notifier has finished applying (for tests and tools watching its progress).
public struct AppliedEvent: Equatable, Sendable {
    public var topic: String
    public var user: String
}

/// Applies the events the notifier subscribes to: `activity` (re)schedules the user's next
/// reminder, `planner.profile.changed` moves or cancels a pending one, and a reminder another
/// replica sent wakes the `reminders.wait` calls of its user here.
public final class EventConsumer: Service, Sendable {
    private let events: AsyncStream<Envelope.Event>
    private let store: NotifierStore
    private let profiles: ProfileBook
    private let inbox: ChangeSignals
    private let clock: WallClock
    private let wakeup: Wakeup
    private let logger: Logger
    /// Every event once applied.
    public let applied = Broadcast<AppliedEvent>()

    init(
        events: AsyncStream<Envelope.Event>, store: NotifierStore, profiles: ProfileBook, inbox: ChangeSignals, clock: WallClock, wakeup: Wakeup,
        logger: Logger
    ) {
        self.events = events
        self.store = store
        self.profiles = profiles
        self.inbox = inbox
        self.clock = clock
        self.wakeup = wakeup
        self.logger = logger
    }

    public func run() async throws {
        defer { applied.finish() }
        for await event in events.cancelOnGracefulShutdown() {
            guard let user = await apply(event) else { continue }
            applied.yield(AppliedEvent(topic: event.header.topic, user: user))
        }
    }

    /// Applies one event; returns its user, or nil if it was ignored. Activity counts at the
    /// time the publishing service saw it, so a copy delivered late changes nothing it should not.
    public func apply(_ event: Envelope.Event) async -> String? {
        do {
            if event.header.topic.hasPrefix(NotifierTopics.reminderPrefix) {
                // A reminder a replica sent (this one's own come back too): wake its user's waits.
                guard event.header.source == "notifier", let reminder = try? event.decode(Reminder.self) else { return nil }
                inbox.changed(reminder.user)
                return reminder.user
            }
            if let activity = try event.body(of: EventTopics.activity) {
                guard ReminderRules.isServable(user: activity.user) else { return nil }
                let now = clock.now
                let profile = try await profiles.profile(of: activity.user, now: now)
                let activeAt = min(activity.time, now)
                if try store.reschedule(activity.user, profile: profile, activeAt: activeAt, now: now).changed { wakeup.signal() }
                return activity.user
            }
            if let change = try event.body(of: PlannerTopics.profileChanged) {
                guard ReminderRules.isServable(user: change.user) else { return nil }
                let now = clock.now
                if try store.applyProfileChange(change.user, profile: ReminderProfile(change.profile, fetchedAt: now), now: now) { wakeup.signal() }
                return change.user
            }
            return nil
        } catch {
            logger.error("event not applied", metadata: ["topic": "\(event.header.topic)", "source": "\(event.header.source)", "error": "\(error)"])
            return nil
        }
    }
}
