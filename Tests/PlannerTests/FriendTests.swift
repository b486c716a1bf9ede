import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// Friends end to end, against all five real services in-process: requests by email that say
/// nothing of who has an account, sharing that is off until switched on (per friend or for
/// all), what a friend sees and what nobody else does, the weekly board, and deletion.
@Suite(.closesItsSockets)
struct FriendTests {
    static let password = "correct horse battery staple"
    static let start = Date(timeIntervalSince1970: 1_773_136_800)  // Tuesday 2026-03-10 10:00 UTC
    static let today = LocalDate("2026-03-10")!

    struct Person {
        let user: String
        let email: String
        let token: String
        let stack: StackFixture

        var planner: ServiceClient<Planner> { stack.client(Planner.self, session: token) }
        var tracker: ServiceClient<Tracker> { stack.client(Tracker.self, session: token) }

        func ask(_ other: Person) async throws -> SentFriendRequest {
            try await planner.call(FriendsAPI.request, FriendRequestDraft(email: other.email))
        }
        func received() async throws -> [ReceivedFriendRequest] { try await planner.call(FriendsAPI.requests, Empty()).received }
        @discardableResult
        func accept(from other: Person) async throws -> FriendList {
            let request = try #require(try await received().first { $0.user == other.user })
            return try await planner.call(FriendsAPI.answer, FriendAnswer(id: request.id, accept: true))
        }
        func friends() async throws -> FriendList { try await planner.call(FriendsAPI.list, Empty()) }
        func summary(of other: Person? = nil, date: LocalDate? = nil) async throws -> ProgressSummary {
            try await tracker.call(ProgressAPI.summary, ProgressRequest(friend: other?.user, date: date))
        }
        /// Logs `kcal` on `date`: a stew of 480 kcal, 50 g carbohydrates, 25 g protein and 20 g
        /// fat per 100 g.
        func log(_ kcal: Double, on date: LocalDate) async throws {
            _ = try await tracker.call(
                TrackerAPI.addEntry,
                DiaryAdd(
                    date: date, meal: .dinner, grams: kcal / 4.8, food: "Stew",
                    per100g: Macros(kcal: 480, carbohydrates: 50, protein: 25, fat: 20)))
        }
    }

    func withStack(_ body: @escaping @Sendable (StackFixture) async throws -> Void) async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.start))
        try await withRunningServices(stack.hosts) { _ in try await body(stack) }
    }

    func person(_ name: String, on stack: StackFixture) async throws -> Person {
        let email = "\(name.lowercased())@example.org"
        let account = try await stack.client(Planner.self).call(AccountAPI.register, Registration(email: email, password: Self.password, name: name))
        let signedIn = try await stack.client(Planner.self).call(AccountAPI.login, SignIn(email: email, password: Self.password, device: "phone"))
        return Person(user: account.user, email: email, token: signedIn.token, stack: stack)
    }

    /// A request to an email nobody has is answered exactly like one to a person's: the same
    /// fields, nothing more, so emails cannot be found out. The person asked sees who asked.
    @Test func aRequestSaysNothingOfWhoHasTheEmail() async throws {
        try await withStack { stack in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let known = try await ada.ask(bob)
            let unknown = try await ada.planner.call(FriendsAPI.request, FriendRequestDraft(email: "  Nobody@Example.org "))
            #expect(known.email == bob.email && unknown.email == "nobody@example.org")
            #expect(known.sentAt == unknown.sentAt && known.id != unknown.id)
            #expect(Set(try await ada.planner.call(FriendsAPI.requests, Empty()).sent.map(\.email)) == [bob.email, "nobody@example.org"])
            // Asking again renews the one request rather than making a second.
            #expect(try await ada.ask(bob).id == known.id)
            let received = try await bob.received()
            #expect(received.map(\.user) == [ada.user] && received[0].name == "Ada" && received[0].email == ada.email)
            #expect(try await ada.received().isEmpty)
        }
    }

    /// Sharing is off until switched on: a new friend is refused exactly as a stranger is, with
    /// the same typed error naming the field; once Ada shares, Bob sees her day in percentages
    /// of her goals and her logged days, and nothing of what she ate.
    @Test func aFriendSeesOnlyWhatWasSharedAndOnlyOnceItWas() async throws {
        try await withStack { stack in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cy = try await person("Cy", on: stack)
            _ = try await ada.tracker.call(TrackerAPI.setGoals, GoalsChange(goals: Goals(kcal: 2000, carbohydrates: 250, protein: 100, fat: 50)))
            for offset in [0, 1, 2, 4] { try await ada.log(offset == 0 ? 1500 : 2000, on: Self.today.adding(days: -offset)) }
            _ = try await ada.ask(bob)
            let list = try await bob.accept(from: ada)
            #expect(list.friends.map(\.user) == [ada.user] && list.friends[0].name == "Ada")
            #expect(list.friends[0].sharing == false && list.friends[0].sharesWithYou == false)
            #expect(try await ada.friends().friends.map(\.user) == [bob.user])

            let asFriend = await serviceError { try await bob.summary(of: ada) }
            let asStranger = await serviceError { try await cy.summary(of: ada) }
            #expect(asFriend?.code == .forbidden && asFriend?.field == "friend")
            #expect(asStranger?.code == asFriend?.code && asStranger?.message == asFriend?.message, "a stranger is told what a friend is")

            let shared = try await ada.planner.call(FriendsAPI.share, FriendSharing(user: bob.user, share: true))
            #expect(shared.friends[0].sharing && shared.friends[0].shareOverride == true && !shared.shareWithAll)
            #expect(try await bob.friends().friends[0].sharesWithYou)
            let seen = try await bob.summary(of: ada)
            // 312.5 g of stew: 1 500 of 2 000 kcal; 156.25 of 250 g carbohydrates (62.5 %, shown
            // 63); 78.125 of 100 g protein; 62.5 of 50 g fat.
            #expect(seen.user == ada.user && seen.date == Self.today && seen.logged)
            #expect(seen.percent == MacroPercent(kcal: 75, carbohydrates: 63, protein: 78, fat: 125))
            #expect(seen.daysLogged7 == 4 && seen.daysLogged30 == 4 && seen.streak == 3 && seen.bestStreak == 3 && seen.badges == [3])
            #expect(seen == (try await ada.summary()), "a friend sees what Ada sees of herself")
            // Still nothing for a stranger, and the diary itself stays Ada's.
            #expect(await serviceError { try await cy.summary(of: ada) }?.code == .forbidden)
            let bobsDiary = try await bob.tracker.call(TrackerAPI.listEntries, DayRequest(date: Self.today))
            #expect(bobsDiary.entries.isEmpty)
            // Ada's archive says who her friends are and what she shares with them.
            let archived = try await ada.planner.call(PlannerAPI.exportArchive, Empty()).friends
            #expect(archived?.friends.map(\.user) == [bob.user] && archived?.friends.first?.sharing == true)
        }
    }

    /// Sharing with all friends reaches every friend without a choice of their own; one friend
    /// can be left out; switching all off again clears each friend's own choice.
    @Test func sharingIsPerFriendOrForAll() async throws {
        try await withStack { stack in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cy = try await person("Cy", on: stack)
            for other in [bob, cy] {
                _ = try await ada.ask(other)
                try await other.accept(from: ada)
            }
            let all = try await ada.planner.call(FriendsAPI.share, FriendSharing(share: true))
            #expect(all.shareWithAll && all.friends.allSatisfy { $0.sharing && $0.shareOverride == nil })
            #expect(try await bob.summary(of: ada).user == ada.user)
            #expect(try await cy.summary(of: ada).user == ada.user)
            _ = try await ada.planner.call(FriendsAPI.share, FriendSharing(user: cy.user, share: false))
            #expect(try await bob.summary(of: ada).user == ada.user)
            #expect(await serviceError { try await cy.summary(of: ada) }?.code == .forbidden)
            let none = try await ada.planner.call(FriendsAPI.share, FriendSharing(share: false))
            #expect(!none.shareWithAll && none.friends.allSatisfy { !$0.sharing && $0.shareOverride == nil })
            #expect(await serviceError { try await bob.summary(of: ada) }?.code == .forbidden)
        }
    }

    /// Either side ends a friendship, and from that answer on nothing is shared any more.
    @Test func endingAFriendshipEndsTheSharingAtOnce() async throws {
        try await withStack { stack in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            _ = try await bob.ask(ada)
            try await ada.accept(from: bob)
            _ = try await ada.planner.call(FriendsAPI.share, FriendSharing(share: true))
            #expect(try await bob.summary(of: ada).user == ada.user)
            let after = try await bob.planner.call(FriendsAPI.end, FriendRef(user: ada.user))
            #expect(after.friends.isEmpty)
            #expect(try await ada.friends().friends.isEmpty)
            #expect(await serviceError { try await bob.summary(of: ada) }?.code == .forbidden)
        }
    }

    /// Each mistake gets a typed error naming its field, and writes nothing.
    @Test func mistakesAreNamedAndWriteNothing() async throws {
        try await withStack { stack in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cy = try await person("Cy", on: stack)
            let own = await serviceError { try await ada.planner.call(FriendsAPI.request, FriendRequestDraft(email: "ADA@example.org")) }
            #expect(own?.code == .badRequest && own?.field == "email")
            let malformed = await serviceError { try await ada.planner.call(FriendsAPI.request, FriendRequestDraft(email: "not an email")) }
            #expect(malformed?.code == .badRequest && malformed?.field == "email")
            #expect(try await ada.planner.call(FriendsAPI.requests, Empty()).sent.isEmpty)

            _ = try await ada.ask(bob)
            let sent = try #require(try await bob.received().first)
            // Only the person asked can answer; a forged or reused id is unknown.
            let foreign = await serviceError { try await cy.planner.call(FriendsAPI.answer, FriendAnswer(id: sent.id, accept: true)) }
            #expect(foreign?.code == .notFound && foreign?.field == "id")
            let declined = try await bob.planner.call(FriendsAPI.answer, FriendAnswer(id: sent.id, accept: false))
            #expect(declined.friends.isEmpty)
            let reused = await serviceError { try await bob.planner.call(FriendsAPI.answer, FriendAnswer(id: sent.id, accept: true)) }
            #expect(reused?.code == .notFound && reused?.field == "id")
            #expect(try await ada.friends().friends.isEmpty)

            let notFriend = await serviceError { try await ada.planner.call(FriendsAPI.end, FriendRef(user: bob.user)) }
            #expect(notFriend?.code == .notFound && notFriend?.field == "user")
            let shareWithStranger = await serviceError { try await ada.planner.call(FriendsAPI.share, FriendSharing(user: cy.user, share: true)) }
            #expect(shareWithStranger?.code == .notFound && shareWithStranger?.field == "user")
            let withdrawOthers = await serviceError { try await cy.planner.call(FriendsAPI.withdraw, FriendRequestRef(id: sent.id)) }
            #expect(withdrawOthers?.code == .notFound && withdrawOthers?.field == "id")
            let board = await serviceError { try await ada.tracker.call(ProgressAPI.board, BoardRequest()) }
            #expect(board?.code == .conflict && board?.field == "competes")
        }
    }

    /// The weekly board: the caller and the friends who take part, by days within ±10 % of the
    /// goal, then days logged, then streak; ties share a rank and are listed by name. A friend
    /// who does not take part is not on it.
    @Test func theBoardRanksThoseWhoTakePart() async throws {
        try await withStack { stack in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cy = try await person("Cy", on: stack)
            let dee = try await person("Dee", on: stack)
            for other in [bob, cy, dee] {
                _ = try await ada.ask(other)
                try await other.accept(from: ada)
            }
            for person in [ada, bob, cy] { _ = try await person.planner.call(FriendsAPI.compete, CompetitiveMode(on: true)) }
            // Monday 9 and Tuesday 10 March (default goal: 2 000 kcal).
            let monday = Self.today.adding(days: -1)
            try await ada.log(2100, on: monday)  // within
            try await ada.log(1000, on: Self.today)  // logged, not within
            try await bob.log(1900, on: monday)  // within
            try await bob.log(2000, on: Self.today)  // within
            try await cy.log(2000, on: monday)  // within
            try await cy.log(500, on: Self.today)
            try await dee.log(2000, on: Self.today)
            let board = try await ada.tracker.call(ProgressAPI.board, BoardRequest())
            #expect(board.weekStart == monday && board.weekEnd == monday.adding(days: 6))
            #expect(board.rows.map(\.user) == [bob.user, ada.user, cy.user], "Dee does not take part")
            #expect(board.rows.map(\.rank) == [1, 2, 2])
            #expect(board.rows[0].daysWithinGoal == 2 && board.rows[0].daysLogged == 2 && board.rows[0].streak == 2 && board.rows[0].name == "Bob")
            #expect(board.rows[1].you && board.rows[1].daysWithinGoal == 1 && board.rows[1].daysLogged == 2)
            // Last week: nobody logged anything, so all tie at the first rank.
            let last = try await ada.tracker.call(ProgressAPI.board, BoardRequest(week: monday.adding(days: -3)))
            #expect(last.rows.map(\.rank) == [1, 1, 1] && last.rows.allSatisfy { $0.daysLogged == 0 })
            // Taking part is also what lets a friend see the board at all.
            #expect(await serviceError { try await dee.tracker.call(ProgressAPI.board, BoardRequest()) }?.code == .conflict)
        }
    }

    /// Deleting an account ends every friendship it had and the requests sent to its email.
    @Test func deletingAnAccountEndsItsFriendships() async throws {
        try await withStack { stack in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cy = try await person("Cy", on: stack)
            _ = try await ada.ask(bob)
            try await bob.accept(from: ada)
            _ = try await cy.ask(ada)
            _ = try await ada.planner.call(AccountAPI.delete, AccountDeletion(password: Self.password))
            #expect(try await bob.friends().friends.isEmpty)
            #expect(try await cy.planner.call(FriendsAPI.requests, Empty()).sent.isEmpty, "the request to Ada's email went with her")
        }
    }
}
