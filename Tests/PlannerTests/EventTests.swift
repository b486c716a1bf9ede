import CatalogService
import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService

@Suite(.closesItsSockets)
struct EventTests {
    @Test func changesPublishProfileAndPlanEventsAndUserActionsPublishActivity() async throws {
        try await withPlanner { world in
            let host = world.planner.host
            let subscriber = EventSubscriber(
                endpoints: [host.boundEndpoints.events],
                prefixes: [PlannerTopics.profileChanged.name, PlannerTopics.planChanged.name, EventTopics.activity.name],
                logger: host.logger
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await subscriber.run() }
                await subscriber.waitUntilSubscribed()
                // Subscriptions propagate asynchronously: keep changing the profile until its event arrives.
                let warmUp = Task {
                    for people in 1...500 {
                        if Task.isCancelled { return }
                        _ = try? await world.call(PlannerAPI.updateProfile, ProfileUpdate(people: people % 50 + 1))
                    }
                }
                let profileEvent = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == PlannerTopics.profileChanged.name
                }
                warmUp.cancel()
                _ = await warmUp.result
                let changed = try profileEvent.decode(ProfileChangedEvent.self)
                #expect(changed.user == "ada" && (1...50).contains(changed.profile.people))

                _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-12"), slot: 2, recipe: soup), user: "bea")
                let planEvent = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == PlannerTopics.planChanged.name
                }
                #expect(
                    try planEvent.decode(PlanChangedEvent.self) == PlanChangedEvent(user: "bea", household: "bea", dates: [localDate("2026-03-12")]))
                let activity = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == EventTopics.activity.name && ((try? $0.decode(ActivityEvent.self).user) == "bea")
                }
                let body = try activity.decode(ActivityEvent.self)
                #expect(body.service == "planner" && body.method == "plan.put" && body.time == referenceInstant)

                // Activity follows each method's declaration: lookups other services make for a
                // user (profile.get, plan.multiplier) are not the user's doing; plan.get is. Events
                // of one publisher arrive in order, so the first of cleo's is plan.get's.
                _ = try await world.call(PlannerAPI.getProfile, Empty(), user: "cleo")
                _ = try await world.call(PlannerAPI.suggestedMultiplier, RecipeID(id: soup), user: "cleo")
                _ = try await world.call(PlannerAPI.getPlan, Empty(), user: "cleo")
                let first = try await firstElement(of: subscriber.events, within: .seconds(10)) {
                    $0.header.topic == EventTopics.activity.name && ((try? $0.decode(ActivityEvent.self).user) == "cleo")
                }
                #expect(try first.body(of: EventTopics.activity)?.method == "plan.get")
                #expect(!PlannerAPI.getProfile.recordsActivity && PlannerAPI.getPlan.recordsActivity)
                group.cancelAll()
            }
        }
    }
}
