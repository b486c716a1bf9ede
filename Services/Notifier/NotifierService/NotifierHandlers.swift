import Foundation
import SousRuntime
import SousSchema
import SousWire

/// The notifier's methods: the caller's delivery log and next reminder.
struct NotifierHandlers: Sendable {
    let host: ServiceHost
    let store: NotifierStore
    let profiles: ProfileBook

    func register() {
        host.server.register(NotifierAPI.list) { request, context in
            let user = try context.requireUser()
            let limit = request.limit ?? 30
            guard (1...365).contains(limit) else { throw ServiceError.badRequest("limit must be 1 to 365, got \(limit)", field: "limit") }
            let entries = try store.log(of: user, limit: limit)
            host.recordActivity(context)
            return ReminderLog(user: user, entries: entries)
        }
        host.server.register(NotifierAPI.next) { _, context in
            let user = try context.requireUser()
            let answer = try await next(for: user, context: context)
            host.recordActivity(context)
            return answer
        }
    }

    /// Reads the state only: asking does not schedule (the notifier does not count its own
    /// methods as activity; it subscribes to the other services).
    func next(for user: String, context: RequestContext) async throws -> NextReminder {
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
            return answer(.scheduled, "due at \(String(format: "%02d:00", profile.reminderHour)) on \(pending.date) in \(profile.timeZone)", pending: pending)
        }
        let today = LocalDate(now, in: ReminderRules.timeZone(named: profile.timeZone))
        if let last = try store.lastHandledDate(of: user), last >= today {
            return answer(.handledToday, "today's reminder was already handled; your next activity schedules the next one")
        }
        return answer(.notActive, "no activity since the last reminder: reminders come only while you use Sous")
    }
}
