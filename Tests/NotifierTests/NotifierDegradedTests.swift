import CatalogService
import CatalogTesting
import Foundation
import NotifierService
import NotifierTesting
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// With the planner and the tracker down: reminders still follow activity (here the catalog's),
/// on the last known profile, and go out without kcal.
@Suite(.closesItsSockets)
struct NotifierDegradedTests {
    @Test func withPlannerAndTrackerDownTheLastKnownProfileIsUsedAndRemindersGoOutWithoutKcal() async throws {
        let morning = NotifierServiceTests.morning
        let clock = WallClock.manual(at: morning)
        let catalog = try CatalogFixture.make(clock: clock)
        // Only the catalog is there; the planner and tracker endpoints are bound by nobody.
        let notifier = try NotifierFixture.make(peers: [.catalog: catalog.host.boundEndpoints], clock: clock)
        // Ada's profile as the planner last announced it, old enough to be read again (and fail).
        try notifier.store.saveProfile(
            ReminderProfile(timeZone: "Europe/Rome", reminderHour: 20, enabled: true, fetchedAt: morning.addingTimeInterval(-7 * 3600)), of: "ada"
        )
        let catalogClient = catalog.host.client(Catalog.self)
        let notifierClient = ServiceClient<Notifier>(
            endpoint: notifier.host.boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0))
        try await ReminderListener.listening(to: notifier) { listener in
            try await withRunningServices([catalog.host, notifier.host]) { _ in
                for user in ["ada", "bob"] {
                    try await untilNotifier(notifier, applies: EventTopics.activity, of: user) {
                        _ = try await catalogClient.call(CatalogAPI.searchIngredients, IngredientSearch(query: "tom"), user: user)
                    }
                }
                let ada = try await notifierClient.call(NotifierAPI.next, Empty(), user: "ada")
                #expect(ada.timeZone == "Europe/Rome" && ada.reminderHour == 20)
                #expect(ada.dueAt == instant("2026-01-15T19:00:00Z"), "20:00 in Rome")
                // Bob was never seen: the planner's defaults, 19:00 UTC.
                let bob = try await notifierClient.call(NotifierAPI.next, Empty(), user: "bob")
                #expect(bob.timeZone == "UTC" && bob.dueAt == instant("2026-01-15T19:00:00Z"))

                try await advanceClock(clock, of: notifier, to: instant("2026-01-15T19:00:00Z"))
                for user in ["ada", "bob"] {
                    let reminders = try await listener.waitFor(user)
                    #expect(reminders.count == 1)
                    #expect(reminders.first?.kcal == nil && reminders.first?.kcalGoal == nil)
                    #expect(reminders.first?.message == "Time to log today's meals")
                }
            }
        }
    }
}
