import Foundation
import NotifierService
import SousRuntime
import SousSchema
import SousTestSupport
import Testing

/// How a pass's decisions reach the delivery log (``NotifierStore/record(_:at:)``): many rows per
/// statement, each user-day once, whatever the batch's size.
@Suite(.closesItsSockets)
struct NotifierRecordTests {
    @Test func aBatchIsRecordedOncePerUserDayWhateverItsSize() async throws {
        try await withTemporaryDirectory { directory in
            let store = NotifierStore(
                database: try NotifierService.openDatabase(at: .testing(.notifier, dataDirectory: directory), logger: quietLogger("record")))
            defer { store.database.close() }
            let due = instant("2026-01-15T18:00:00Z")
            // 250: two full statements of rows and a part of one.
            let reminders = (0..<250).map { ScheduledReminder(user: "user-\($0)", date: LocalDate("2026-01-15")!, dueAt: due) }
            try store.bulkSchedule(reminders, profile: ReminderProfile(timeZone: "UTC", reminderHour: 19, enabled: true, fetchedAt: due))

            // Thirty were handled by an earlier pass.
            let earlier = try store.record(reminders[..<30].map { ReminderDecision(reminder: $0, outcome: .sent) }, at: due)
            #expect(earlier.count == 30)

            // The whole batch again, one user twice: only the days not logged yet are recorded, once each.
            let decisions =
                reminders.map { ReminderDecision(reminder: $0, outcome: .skipped, reason: "dinner already logged", kcal: 700, kcalGoal: 2000) }
                + [ReminderDecision(reminder: reminders[40], outcome: .sent)]
            let recorded = try store.record(decisions, at: due.addingTimeInterval(60))
            #expect(recorded.map(\.reminder.user) == reminders[30...].map(\.user))
            #expect(recorded.allSatisfy { $0.outcome == .skipped })
            #expect(try store.scheduledCount() == 0)

            let first = try #require(try store.log(of: "user-3", limit: 5).first)
            #expect(first.outcome == .sent && first.recordedAt == due)
            let later = try store.log(of: "user-40", limit: 5)
            #expect(later.count == 1)
            #expect(later.first?.outcome == .skipped && later.first?.kcal == 700 && later.first?.kcalGoal == 2000)
            #expect(later.first?.reason == "dinner already logged" && later.first?.recordedAt == due.addingTimeInterval(60))
        }
    }
}
