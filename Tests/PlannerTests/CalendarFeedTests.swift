import Foundation
import GRDB
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// The calendar feed: an address calendar apps fetch without a session, showing the household's
/// week, replaced or stopped by its owner and stopped by a new password; nothing else opens it.
@Suite(.closesItsSockets)
struct CalendarFeedTests {
    static let password = "correct horse battery staple"

    func signIn(_ email: String, _ name: String, on stack: StackFixture) async throws -> ServiceClient<Planner> {
        let planner = stack.client(Planner.self)
        _ = try await planner.call(AccountAPI.register, Registration(email: email, password: Self.password, name: name))
        let signedIn = try await planner.call(AccountAPI.login, SignIn(email: email, password: Self.password, device: "phone"))
        return stack.client(Planner.self, session: signedIn.token)
    }

    func refusal(_ token: String, on stack: StackFixture) async -> ServiceError? {
        await #expect(throws: ServiceError.self) { try await stack.client(Planner.self).call(PlannerAPI.feedCalendar, FeedRead(token: token)) }
    }

    @Test func aFeedShowsTheHouseholdsWeekToWhoeverHasItsAddressUntilItIsStopped() async throws {
        let stack = try StackFixture.make()
        try await withRunningServices(stack.hosts) { _ in
            let ada = try await signIn("ada@example.org", "Ada", on: stack)
            let bo = try await signIn("bo@example.org", "Bo", on: stack)
            let code = try await ada.call(HouseholdAPI.invite, InvitationRequest()).code
            _ = try await bo.call(HouseholdAPI.join, JoinHousehold(code: code))
            let week = try await ada.call(PlannerAPI.getPlan, Empty())
            _ = try await ada.call(PlannerAPI.putSlot, SlotAssignment(date: week.today, slot: 2, recipe: "tomato-lentil-soup"))

            #expect(try await bo.call(PlannerAPI.feed, Empty()) == CalendarFeed(active: false))
            let feed = try await bo.call(PlannerAPI.setFeed, FeedSetting(on: true))
            let token = try #require(feed.token)
            #expect(feed.active && token.utf8.count == 43)
            let status = try await bo.call(PlannerAPI.feed, Empty())
            #expect(status.active && status.token == nil, "the secret is shown once")
            #expect(abs((status.createdAt ?? .distantPast).timeIntervalSince(feed.createdAt ?? .distantFuture)) < 0.001)

            // No session: the address's secret is the credential. Bo's feed is the household's week.
            let calendar = try await stack.client(Planner.self).call(PlannerAPI.feedCalendar, FeedRead(token: token))
            let events = try CalendarParser.events(calendar.calendar)
            #expect(calendar.events == 1 && events.first?["SUMMARY"] == "Dinner: Tomato and Red Lentil Soup", "\(events)")

            // Made again, the old address stops and the new one works.
            let replaced = try #require(try await bo.call(PlannerAPI.setFeed, FeedSetting(on: true)).token)
            #expect(replaced != token)
            let old = await refusal(token, on: stack)
            #expect(old?.code == .notFound && old?.field == "token")
            #expect(try await stack.client(Planner.self).call(PlannerAPI.feedCalendar, FeedRead(token: replaced)).events == 1)

            // A new password stops it: whoever knew the old one may know the address.
            _ = try await bo.call(AccountAPI.changePassword, PasswordChange(current: Self.password, new: "another long passphrase"))
            #expect(await refusal(replaced, on: stack)?.code == .notFound)
            #expect(try await bo.call(PlannerAPI.feed, Empty()).active == false)

            // Stopped by its owner.
            let third = try #require(try await ada.call(PlannerAPI.setFeed, FeedSetting(on: true)).token)
            #expect(try await ada.call(PlannerAPI.setFeed, FeedSetting(on: false)) == CalendarFeed(active: false))
            #expect(await refusal(third, on: stack)?.code == .notFound)

            // Secrets of every other form open nothing and say why.
            let ten = try #require(try await ada.call(PlannerAPI.setFeed, FeedSetting(on: true)).token)
            for bad in [
                "", "x", String(ten.dropLast()) + (ten.last == "A" ? "B" : "A"), ten + "A", String(repeating: "é", count: 43),
                String(repeating: "A", count: 10_000),
            ] {
                let error = await refusal(bad, on: stack)
                #expect(error?.code == .notFound && error?.field == "token", "\(bad.prefix(50))")
            }
        }
    }

    @Test func deletingTheAccountErasesItsFeed() async throws {
        let stack = try StackFixture.make()
        try await withRunningServices(stack.hosts) { _ in
            let ada = try await signIn("ada@example.org", "Ada", on: stack)
            let token = try #require(try await ada.call(PlannerAPI.setFeed, FeedSetting(on: true)).token)
            _ = try await ada.call(AccountAPI.delete, AccountDeletion(password: Self.password))
            #expect(await refusal(token, on: stack)?.code == .notFound)
            let rows = try stack.planner.store.database.read { try $0.value(Int.self, "SELECT COUNT(*) FROM calendar_feed") }
            #expect(rows == 0)
        }
    }
}
