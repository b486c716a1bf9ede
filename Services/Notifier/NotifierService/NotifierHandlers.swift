import Foundation
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// The notifier's methods: the caller's delivery log and next reminder.
struct NotifierHandlers: Sendable {
    let host: HostParts
    let store: NotifierStore
    let profiles: ProfileBook
    let inbox: ChangeSignals

    /// The route table: every method the notifier serves and the function that answers it.
    func register(on server: RPCServer) {
        server.register(NotifierAPI.list, use: list)
        server.register(NotifierAPI.wait, use: wait)
        server.register(NotifierAPI.next, use: next)
        server.register(NotifierAPI.exportArchive, use: exportArchive)
        server.register(NotifierAPI.importArchive, use: importArchive)
    }

    // MARK: Sent reminders

    func list(_ request: ReminderLogRequest, user: String, context: RequestContext) throws -> ReminderLog {
        let limit = request.limit ?? 30
        guard (1...365).contains(limit) else { throw ServiceError.badRequest("limit must be 1 to 365, got \(limit)", field: "limit") }
        var entries = try store.log(of: user, limit: limit)
        let deliveries = try store.deliveries(of: user)
        for index in entries.indices {
            entries[index].deliveries = deliveries[entries[index].date.description]
        }
        return ReminderLog(user: user, entries: entries)
    }

    func wait(_ request: ReminderWait, user: String, context: RequestContext) async throws -> ReminderFeed {
        guard let after = request.after else {
            if let wait = request.waitSeconds, !(wait.isFinite && (0...25).contains(wait)) {
                throw ServiceError.badRequest("waitSeconds must be 0 to 25", field: "waitSeconds")
            }
            return ReminderFeed(reminders: [], cursor: host.clock.now)
        }
        let found = try await inbox.longPoll(
            user, waitSeconds: request.waitSeconds, context: context, read: { try store.sentReminders(of: user, after: after) },
            isNew: { !$0.reminders.isEmpty })
        return ReminderFeed(reminders: found.reminders, cursor: found.cursor)
    }

    // MARK: Next reminder

    /// Reads the state only: asking does not schedule (the notifier does not count its own
    /// methods as activity; it subscribes to the other services).
    func next(_ request: Empty, user: String, context: RequestContext) async throws -> NextReminder {
        let now = host.clock.now
        let profile = try await profiles.profileForAnswer(of: user, now: now, context: context)
        func answer(_ status: NextReminderStatus, _ explanation: String, pending: ScheduledReminder? = nil) -> NextReminder {
            NextReminder(
                user: user, status: status, dueAt: pending?.dueAt, date: pending?.date, timeZone: profile.timeZone,
                reminderHour: profile.reminderHour, explanation: explanation
            )
        }
        guard profile.enabled else {
            return answer(.optedOut, "reminders are switched off in your profile (sous profile set --reminders on)")
        }
        if let pending = try store.pending(of: user) {
            return answer(
                .scheduled, "due at \(String(format: "%02d:00", profile.reminderHour)) on \(pending.date) in \(profile.timeZone)", pending: pending)
        }
        let today = LocalDate(now, in: ReminderRules.timeZone(named: profile.timeZone))
        if let last = try store.lastHandledDate(of: user), last >= today {
            return answer(.handledToday, "today's reminder was already handled; your next activity schedules the next one")
        }
        return answer(.notActive, "no activity since the last reminder: reminders come only while you use Sous")
    }
}
