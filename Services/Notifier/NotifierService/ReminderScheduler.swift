import Dispatch
public import Foundation
import Logging
public import ServiceLifecycle
public import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// Sends reminders as they come due, from the schedule's due-time index: no timer per user.
///
/// It sleeps on the injected clock until the earliest due instant (or until the event consumer
/// schedules an earlier one), then handles everything due at or before now in batches: decides
/// sent, skipped (dinner already logged) or missed (2 hours or more late), records the batch in
/// one transaction with an outbox row per sent one, and only then publishes them. A crash
/// between recording and publishing leaves them in the outbox, published on the next start: a
/// reminder is in the log once, and on the bus at least once.
public final class ReminderScheduler: Service, Sendable {
    private let store: NotifierStore
    private let tracker: Peer<Tracker>
    private let publisher: HostPublisher
    private let inbox: ChangeSignals
    private let clock: WallClock
    private let wakeup: Wakeup
    private let courier: OutboxCourier?
    private let options: NotifierOptions
    private let logger: Logger
    /// The clock reading each completed pass handled everything due by.
    public let passes = Broadcast<Date>()

    init(
        store: NotifierStore, tracker: Peer<Tracker>, publisher: HostPublisher, inbox: ChangeSignals, clock: WallClock, wakeup: Wakeup,
        courier: OutboxCourier? = nil, options: NotifierOptions,
        logger: Logger
    ) {
        self.inbox = inbox
        self.store = store
        self.tracker = tracker
        self.publisher = publisher
        self.clock = clock
        self.wakeup = wakeup
        self.courier = courier
        self.options = options
        self.logger = logger
    }

    public func run() async throws {
        defer { passes.finish() }
        // Subscribers reconnect to a restarted notifier within moments; reminders caught up on
        // start wait that long so they are not published to nobody.
        if options.startupGrace > .zero {
            try? await Task.sleep(for: options.startupGrace)
        }
        await cancelWhenGracefulShutdown {
            // What a stopped notifier recorded but had not published goes out before anything new.
            var outboxPublished = false
            while !Task.isCancelled {
                let now = self.clock.now
                do {
                    if !outboxPublished {
                        try self.publishUnpublished()
                        outboxPublished = true
                    }
                    try await self.handleDue(through: now)
                    self.passes.yield(now)
                    // The clock moved during the pass (a manual clock was set): its wake-up
                    // went to no one, so go round again instead of sleeping.
                    if self.clock.isManual, self.clock.now != now { continue }
                    let next = try self.store.earliestDue()
                    await self.sleep(until: next ?? now.addingTimeInterval(24 * 60 * 60))
                } catch {
                    self.logger.error("reminder pass failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    /// Returns at `instant` on the clock, when the consumer signals an earlier reminder, or on
    /// cancellation, whichever comes first.
    private func sleep(until instant: Date) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.clock.sleep(until: instant) }
            group.addTask { await self.wakeup.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Handles every reminder due at or before `now`, in batches walked in due order.
    func handleDue(through now: Date) async throws {
        let trackerDown = Flag()
        while !Task.isCancelled {
            let started = DispatchTime.now().uptimeNanoseconds
            let due = try store.claimDue(through: now, limit: options.batchSize, until: now.addingTimeInterval(options.claimLease))
            guard !due.isEmpty else { return }
            let read = DispatchTime.now().uptimeNanoseconds
            let decisions = await decide(due, now: now, trackerDown: trackerDown)
            let decided = DispatchTime.now().uptimeNanoseconds
            let recorded = try store.record(decisions, at: now)
            let committed = DispatchTime.now().uptimeNanoseconds
            let sent = recorded.filter { $0.outcome == .sent }.map { decision in
                Reminder(
                    user: decision.reminder.user, date: decision.reminder.date,
                    message: ReminderRules.message(kcal: decision.kcal, goal: decision.kcalGoal), dueAt: decision.reminder.dueAt,
                    kcal: decision.kcal, kcalGoal: decision.kcalGoal)
            }
            try publish(sent, at: now)
            // Their deliveries to channels were queued with them.
            if !sent.isEmpty { courier?.wake() }
            let published = DispatchTime.now().uptimeNanoseconds
            func ms(_ from: UInt64, _ to: UInt64) -> Logger.MetadataValue { "\((to - from) / 1_000_000)" }
            logger.debug(
                "reminders handled",
                metadata: [
                    "due": "\(due.count)", "recorded": "\(recorded.count)", "sent": "\(sent.count)",
                    "readMs": ms(started, read), "decideMs": ms(read, decided), "recordMs": ms(decided, committed),
                    "publishMs": ms(committed, published),
                ])
        }
    }

    /// Publishes sent reminders, wakes the `reminders.wait` calls waiting for them, then takes
    /// them out of the outbox (a notifier stopped before that publishes them again on start:
    /// at least once on the bus, once in the log).
    private func publish(_ reminders: [Reminder], at now: Date) throws {
        for reminder in reminders {
            publisher.publish(NotifierTopics.reminder(for: reminder.user), reminder, time: now)
            inbox.changed(reminder.user)
        }
        try store.published(reminders)
    }

    /// Publishes what a notifier stopped between recording and publishing left in the outbox.
    func publishUnpublished() throws {
        while true {
            let pending = try store.unpublished(limit: options.batchSize)
            guard !pending.isEmpty else { return }
            logger.notice("publishing reminders recorded before a stop", metadata: ["count": "\(pending.count)"])
            try publish(pending, at: clock.now)
        }
    }

    /// Late ones are missed; for the others the tracker says in one `diary.statuses` call per
    /// batch whether dinner is logged. Once the tracker fails to answer (`trackerDown`, shared by
    /// the pass's batches), the rest of the pass sends without asking (and without kcal) instead
    /// of waiting out a timeout per batch.
    private func decide(_ due: [ScheduledReminder], now: Date, trackerDown: Flag) async -> [ReminderDecision] {
        var decisions: [ReminderDecision?] = due.map { reminder in
            guard ReminderRules.delivery(dueAt: reminder.dueAt, now: now) == .missed else { return nil }
            let hours = Int(now.timeIntervalSince(reminder.dueAt) / 3600)
            return ReminderDecision(reminder: reminder, outcome: .missed, reason: "\(hours) h late when handled (the notifier was down)")
        }
        let asked = decisions.indices.filter { decisions[$0] == nil }
        let statuses = await statuses(of: asked.map { due[$0] }, trackerDown: trackerDown)
        for (position, index) in asked.enumerated() {
            let reminder = due[index]
            guard let status = statuses?[position] else {
                decisions[index] = ReminderDecision(reminder: reminder, outcome: .sent)
                continue
            }
            decisions[index] =
                status.mealsLogged.contains(.dinner)
                ? ReminderDecision(
                    reminder: reminder, outcome: .skipped, reason: "dinner already logged", kcal: status.kcal, kcalGoal: status.kcalGoal)
                : ReminderDecision(reminder: reminder, outcome: .sent, kcal: status.kcal, kcalGoal: status.kcalGoal)
        }
        return decisions.compactMap { $0 }
    }

    /// The diary status of each reminder's user and day, in order, in calls of at most
    /// ``DiaryStatusBatch/limit`` days; nil when the tracker could not say.
    private func statuses(of reminders: [ScheduledReminder], trackerDown: Flag) async -> [DiaryStatus]? {
        guard !reminders.isEmpty, !trackerDown.isSet else { return nil }
        var statuses: [DiaryStatus] = []
        for start in stride(from: 0, to: reminders.count, by: DiaryStatusBatch.limit) {
            let chunk = reminders[start..<min(start + DiaryStatusBatch.limit, reminders.count)]
            do throws(ServiceError) {
                let batch = DiaryStatusBatch(days: chunk.map { DiaryStatusBatch.Day(user: $0.user, date: $0.date) })
                let answer = try await tracker.call(TrackerAPI.diaryStatuses, batch, user: nil, for: nil)
                guard answer.statuses.count == chunk.count else {
                    throw ServiceError.internal("the tracker answered \(answer.statuses.count) statuses for \(chunk.count) days")
                }
                statuses += answer.statuses
            } catch {
                if error.code == .unavailable { trackerDown.set() }
                logger.warning(
                    "diary statuses not read; sending without them", metadata: ["reminders": "\(reminders.count)", "error": "\(error.message)"])
                return nil
            }
        }
        return statuses
    }
}

/// A flag set once, shared by concurrent tasks.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
