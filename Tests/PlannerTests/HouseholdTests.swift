import Foundation
import GroceriesService
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// Households end to end, against all five real services in-process: the people of one household
/// share its plan and its grocery list and nothing else; invitations, leaving, removal and
/// ownership; what each mistake is told; deletion and import.
@Suite(.closesItsSockets)
struct HouseholdTests {
    static let password = "correct horse battery staple"
    static let start = Date(timeIntervalSince1970: 1_773_136_800)  // 2026-03-10 10:00 UTC

    /// A signed-in person: their user id and the clients of the services they use.
    struct Person {
        let user: String
        let token: String
        let stack: StackFixture

        var planner: ServiceClient<Planner> { stack.client(Planner.self, session: token) }
        var groceries: ServiceClient<Groceries> { stack.client(Groceries.self, session: token) }
        var tracker: ServiceClient<Tracker> { stack.client(Tracker.self, session: token) }
        var catalog: ServiceClient<Catalog> { stack.client(Catalog.self, session: token) }

        func household() async throws -> HouseholdInfo { try await planner.call(HouseholdAPI.get, Empty()) }
        func list() async throws -> GroceryList { try await groceries.call(GroceriesAPI.list, Empty()) }
        func invite(days: Int? = nil) async throws -> String { try await planner.call(HouseholdAPI.invite, InvitationRequest(days: days)).code }
        @discardableResult
        func join(_ code: String) async throws -> HouseholdInfo { try await planner.call(HouseholdAPI.join, JoinHousehold(code: code)) }
        func addItem(_ text: String) async throws -> GroceryListChange {
            try await groceries.call(GroceriesAPI.addItem, AddListItem(text: text, count: 1, withList: true))
        }
    }

    func withStack(clock: WallClock = .manual(at: start), _ body: @escaping @Sendable (StackFixture, WallClock) async throws -> Void) async throws {
        let stack = try StackFixture.make(clock: clock)
        try await withRunningServices(stack.hosts) { _ in try await body(stack, clock) }
    }

    func person(_ name: String, on stack: StackFixture) async throws -> Person {
        let email = "\(name.lowercased())@example.org"
        let account = try await stack.client(Planner.self).call(AccountAPI.register, Registration(email: email, password: Self.password, name: name))
        let signedIn = try await stack.client(Planner.self).call(AccountAPI.login, SignIn(email: email, password: Self.password, device: "phone"))
        return Person(user: account.user, token: signedIn.token, stack: stack)
    }

    // MARK: Alone

    /// A new account is alone in a household of its own, whose id is its user id and which
    /// cooks for the profile's people, exactly as before households existed.
    @Test func aPersonAloneIsInAHouseholdOfTheirOwn() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            _ = try await ada.planner.call(PlannerAPI.updateProfile, ProfileUpdate(people: 3))
            let household = try await ada.household()
            #expect(household.id == ada.user && household.people == 3 && household.peopleOverride == nil)
            #expect(household.members.map(\.user) == [ada.user] && household.members[0].role == .owner)
            #expect(try await ada.planner.call(HouseholdAPI.invitations, Empty()).invitations.isEmpty)
        }
    }

    // MARK: Sharing

    /// Once Bob joins Ada's household they see one plan and one list: a meal Ada plans is in
    /// Bob's week, a line Bob ticks is ticked on Ada's list. Diaries stay each person's own.
    @Test func twoPeopleShareOnePlanAndOneListAndNothingElse() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            _ = try await ada.addItem("Oat milk")
            _ = try await bob.addItem("Bob's own shampoo")
            let code = try await ada.invite()
            let joined = try await bob.join(code.lowercased().replacingOccurrences(of: "-", with: ""))
            #expect(joined.id == ada.user && joined.members.map(\.user) == [ada.user, bob.user])
            #expect(joined.members.map(\.name) == ["Ada", "Bob"] && joined.people == 2)

            // The plan.
            let date = try #require(LocalDate("2026-03-11"))
            _ = try await ada.planner.call(PlannerAPI.putSlot, SlotAssignment(date: date, slot: 2, recipe: "tomato-lentil-soup"))
            let bobsWeek = try await bob.planner.call(PlannerAPI.getPlan, Empty())
            #expect(bobsWeek.days.first { $0.date == date }?.slots.last?.recipe == "tomato-lentil-soup")

            // The list: Bob left his own (alone, so it went with his household); Ada's is his now.
            let list = try await bob.list()
            #expect(list.lines.map(\.name) == ["Oat milk"])
            let line = try #require(list.lines.first)
            let ticked = try await bob.groceries.call(GroceriesAPI.check, CheckLines(lines: [line.id], checked: true, withList: true))
            let adasList = try await ada.list()
            #expect(adasList.lines.first?.checked == true && adasList.version == ticked.version)

            // Each one's diary is theirs.
            _ = try await bob.tracker.call(
                TrackerAPI.addEntry,
                DiaryAdd(meal: .lunch, grams: 100, food: "Bob's sandwich", per100g: Macros(kcal: 250, carbohydrates: 30, protein: 10, fat: 8)))
            let adasDay = try await ada.tracker.call(TrackerAPI.listEntries, DayRequest())
            #expect(adasDay.entries.isEmpty)
        }
    }

    /// A change by one member reaches the other's waiting call without the other asking again.
    @Test func aChangeReachesTheOtherMemberWhileTheyWait() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            try await bob.join(try await ada.invite())
            let version = try await bob.list().version
            async let woke = bob.groceries.call(GroceriesAPI.wait, ListWait(after: version, waitSeconds: 25))
            let change = try await ada.addItem("Bread")
            let answer = try await woke
            #expect(answer.changed && answer.version >= change.version)
            // Nothing new since: a wait of 0 s answers at once, unchanged.
            let now = try await bob.groceries.call(GroceriesAPI.wait, ListWait(after: answer.version, waitSeconds: 0))
            #expect(!now.changed && now.version == answer.version)

            // The plan the same way.
            let week = try await bob.planner.call(PlannerAPI.getPlan, Empty())
            async let planWoke = bob.planner.call(PlannerAPI.wait, PlanWait(after: week.version, waitSeconds: 25))
            _ = try await ada.planner.call(PlannerAPI.putSlot, SlotAssignment(date: week.today, slot: 1, recipe: "tomato-lentil-soup"))
            let planAnswer = try await planWoke
            #expect(planAnswer.changed && planAnswer.version != week.version)
            let seen = try await bob.planner.call(PlannerAPI.getPlan, Empty())
            #expect(seen.version == planAnswer.version && seen.days[0].slots[0].recipe == "tomato-lentil-soup")
        }
    }

    /// Two members ticking and unticking the same line at the same time end in one state, the
    /// same for both, and it is the last change the list committed.
    @Test func twoMembersTickingTheSameLineAtOnceEndInOneState() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            try await bob.join(try await ada.invite())
            let line = try #require(try await ada.addItem("Eggs").list?.lines.first?.id)
            let results = try await withThrowingTaskGroup(of: (Int64, Bool).self) { group in
                for round in 0..<20 {
                    let person = round.isMultiple(of: 2) ? ada : bob
                    let checked = round % 4 < 2
                    group.addTask {
                        let change = try await person.groceries.call(GroceriesAPI.check, CheckLines(lines: [line], checked: checked))
                        return (change.version, checked)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.0)).count == 20, "every change has a version of its own")
            let last = try #require(results.max { $0.0 < $1.0 })
            let (adas, bobs) = (try await ada.list(), try await bob.list())
            #expect(adas == bobs)
            #expect(adas.version == last.0 && adas.lines.first?.checked == last.1)
        }
    }

    /// A meal cooked for the household is logged once in the diary of each member who ate it:
    /// the cook's, those they name, and anyone who marks it later for themselves.
    @Test func aCookedMealIsLoggedOnceInTheDiaryOfEachMemberWhoAteIt() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cat = try await person("Cat", on: stack)
            let eve = try await person("Eve", on: stack)
            try await bob.join(try await ada.invite())
            try await cat.join(try await ada.invite())
            let today = try await ada.planner.call(PlannerAPI.getPlan, Empty()).today
            _ = try await ada.planner.call(PlannerAPI.putSlot, SlotAssignment(date: today, slot: 2, recipe: "tomato-lentil-soup"))

            let stranger = await serviceError {
                try await ada.planner.call(PlannerAPI.cooked, CookedSlot(date: today, slot: 2, alsoEatenBy: [eve.user]))
            }
            #expect(stranger?.code == .notFound && stranger?.field == "alsoEatenBy.0")
            let twice = await serviceError {
                try await ada.planner.call(PlannerAPI.cooked, CookedSlot(date: today, slot: 2, alsoEatenBy: [bob.user, bob.user]))
            }
            #expect(twice?.code == .badRequest && twice?.field == "alsoEatenBy.1")

            let cooked = try await ada.planner.call(PlannerAPI.cooked, CookedSlot(date: today, slot: 2, alsoEatenBy: [bob.user]))
            #expect(cooked.logged && cooked.diaryEntry != nil && cooked.others.map(\.user) == [bob.user])
            let bobsEntry = try #require(cooked.others.first?.diaryEntry)
            #expect(cooked.slot.diaryEntry == cooked.diaryEntry?.id)

            // Bob's serving is in his diary; marking it himself logs nothing twice.
            let bobsDay = try await bob.tracker.call(TrackerAPI.listEntries, DayRequest(date: today))
            #expect(bobsDay.entries.map(\.id) == [bobsEntry.id])
            let again = await serviceError { try await bob.planner.call(PlannerAPI.cooked, CookedSlot(date: today, slot: 2)) }
            #expect(again?.code == .conflict && again?.field == "slot")
            let bobsWeek = try await bob.planner.call(PlannerAPI.getPlan, Empty())
            #expect(bobsWeek.days[0].slots[1].diaryEntry == bobsEntry.id, "each member sees their own entry")

            // Cat ate too, and says so herself.
            let cats = try await cat.planner.call(PlannerAPI.cooked, CookedSlot(date: today, slot: 2))
            #expect(cats.logged && cats.diaryEntry != nil && cats.diaryEntry?.id != cooked.diaryEntry?.id)
            #expect(try await ada.tracker.call(TrackerAPI.listEntries, DayRequest(date: today)).entries.count == 1)
            #expect(try await cat.tracker.call(TrackerAPI.listEntries, DayRequest(date: today)).entries.count == 1)

            // Moving the meal moves everyone's serving with it.
            let tomorrow = today.adding(days: 1)
            _ = try await ada.planner.call(PlannerAPI.moveSlot, SlotMove(from: SlotRef(date: today, slot: 2), to: SlotRef(date: tomorrow, slot: 1)))
            let moved = try await bob.planner.call(PlannerAPI.getPlan, Empty())
            #expect(moved.days[1].slots[0].diaryEntry == bobsEntry.id && moved.days[0].slots[1].recipe == nil)
        }
    }

    /// A favourite marked for the household is every member's to see (a member's private
    /// recipe only its owner's), nobody else's, and goes with a member who leaves.
    @Test func householdFavouritesAreSharedByTheMembersOnly() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cy = try await person("Cy", on: stack)
            try await bob.join(try await ada.invite())
            let mine = try await ada.catalog.call(
                CatalogAPI.createRecipe,
                RecipeDraft(
                    name: "Ada's secret stew", summary: "Hers alone.", servings: 2, prepMinutes: 5, cookMinutes: 30,
                    ingredients: [RecipeIngredient(ingredient: "onion", quantity: 1, unit: .piece)],
                    steps: [RecipeStep(description: "Stew it.", type: .cooking)]))
            for id in ["minestrone", mine.id] { _ = try await ada.catalog.call(CatalogAPI.favoriteForHousehold, RecipeID(id: id)) }
            _ = try await bob.catalog.call(CatalogAPI.favoriteForHousehold, RecipeID(id: "tomato-lentil-soup"))
            #expect(
                try await ada.catalog.call(CatalogAPI.householdFavorites, Empty()).recipes.map(\.id) == ["minestrone", mine.id, "tomato-lentil-soup"])
            #expect(
                try await bob.catalog.call(CatalogAPI.householdFavorites, Empty()).recipes.map(\.id) == ["minestrone", "tomato-lentil-soup"],
                "Ada's private recipe stays hers")
            #expect(try await cy.catalog.call(CatalogAPI.householdFavorites, Empty()).recipes.isEmpty)
            #expect(try await ada.catalog.call(CatalogAPI.favorites, Empty()).recipes.isEmpty, "a household's favourite is not a personal one")
            let unknown = await serviceError { try await cy.catalog.call(CatalogAPI.unfavoriteForHousehold, RecipeID(id: "minestrone")) }
            #expect(unknown?.code == .notFound && unknown?.field == "id", "Cy's household has no such favourite; Ada's is untouched")
            let missing = await serviceError { try await ada.catalog.call(CatalogAPI.favoriteForHousehold, RecipeID(id: "no-such-recipe")) }
            #expect(missing?.code == .notFound && missing?.field == "id")
            // Every member's export carries them.
            #expect(
                try await bob.catalog.call(CatalogAPI.exportArchive, Empty()).householdFavorites
                    == [mine.id, "minestrone", "tomato-lentil-soup"].sorted())
            _ = try await bob.planner.call(HouseholdAPI.leave, Empty())
            #expect(try await bob.catalog.call(CatalogAPI.householdFavorites, Empty()).recipes.isEmpty, "a new household of his own")
            _ = try await ada.catalog.call(CatalogAPI.unfavoriteForHousehold, RecipeID(id: "tomato-lentil-soup"))
            #expect(try await ada.catalog.call(CatalogAPI.householdFavorites, Empty()).recipes.map(\.id) == ["minestrone", mine.id])
        }
    }

    /// What one member told an import a line means, the other is not asked; a stranger is, and a
    /// member who leaves keeps only their own. Every member's export carries the household's.
    @Test func aLineOneMemberExplainedIsNotAskedOfTheOther() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cy = try await person("Cy", on: stack)
            try await bob.join(try await ada.invite())
            let document = #"{"@type": "Recipe", "name": "Pitaya", "recipeIngredient": ["1 dragonfruit", "2 onions"]}"#
            let first = try await ada.catalog.call(
                CatalogAPI.importRecipes, RecipeImport(document: document, mappings: ["1 dragonfruit": "1 banana"]))
            #expect(first.imported.count == 1)
            let bobs = try await bob.catalog.call(CatalogAPI.importRecipes, RecipeImport(document: document))
            #expect(bobs.imported.count == 1 && bobs.matched.map(\.how) == [.remembered])
            #expect(
                try await bob.catalog.call(CatalogAPI.mappings, Empty()).mappings
                    == [RememberedMapping(line: "1 dragonfruit", target: "1 banana", household: true)])
            #expect(try await cy.catalog.call(CatalogAPI.importRecipes, RecipeImport(document: document)).unmatched.map(\.line) == ["1 dragonfruit"])
            let archive = try await bob.catalog.call(CatalogAPI.exportArchive, Empty())
            #expect(archive.mappings == [RememberedMapping(line: "1 dragonfruit", target: "1 banana", household: true)])
            let adas = try await ada.catalog.call(CatalogAPI.exportArchive, Empty())
            #expect(
                adas.mappings == [
                    RememberedMapping(line: "1 dragonfruit", target: "1 banana", household: false),
                    RememberedMapping(line: "1 dragonfruit", target: "1 banana", household: true),
                ])
            // Into Cy's empty account: hers, and her household's (which had none).
            let restored = try await cy.catalog.call(CatalogAPI.importArchive, CatalogArchiveImport(archive: adas))
            #expect(restored.counts["mappings"] == 2)
            #expect(try await cy.catalog.call(CatalogAPI.importRecipes, RecipeImport(document: document)).imported.count == 1)
            _ = try await bob.planner.call(HouseholdAPI.leave, Empty())
            #expect(try await bob.catalog.call(CatalogAPI.mappings, Empty()).mappings.isEmpty, "Ada's answer stays with her household")
        }
    }

    // MARK: Leaving, removal, ownership

    /// A member who leaves or is removed is alone in a new household with nothing in it, and
    /// from that moment reads nothing of the old one; the others keep its plan and list.
    @Test func whoLeavesOrIsRemovedSeesNothingOfTheHouseholdAnyMore() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cat = try await person("Cat", on: stack)
            try await bob.join(try await ada.invite())
            try await cat.join(try await ada.invite())
            _ = try await ada.addItem("Secret birthday cake")

            let left = try await cat.planner.call(HouseholdAPI.leave, Empty())
            #expect(left.id != ada.user && left.id != cat.user && left.members.map(\.user) == [cat.user])
            #expect(try await cat.list().lines.isEmpty)

            let after = try await ada.planner.call(HouseholdAPI.remove, MemberRef(user: bob.user))
            #expect(after.members.map(\.user) == [ada.user])
            #expect(try await bob.list().lines.isEmpty, "removed, Bob's very next read is of his own new list")
            #expect(try await ada.list().lines.map(\.name) == ["Secret birthday cake"])
            #expect(try await bob.household().members.map(\.user) == [bob.user])
        }
    }

    /// The owner hands ownership on; the new owner may invite and remove, the old one no longer.
    @Test func ownershipPassesToAnotherMember() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            try await bob.join(try await ada.invite())
            #expect(await serviceError { try await bob.invite() }?.code == .forbidden, "a member invites only when allowed")
            _ = try await ada.planner.call(HouseholdAPI.allowInvites, InvitePermission(user: bob.user, mayInvite: true))
            _ = try await bob.invite()
            let handed = try await ada.planner.call(HouseholdAPI.transfer, MemberRef(user: bob.user))
            #expect(handed.members.first?.user == bob.user && handed.members.first?.role == .owner)
            #expect(await serviceError { try await ada.planner.call(HouseholdAPI.remove, MemberRef(user: bob.user)) }?.code == .forbidden)
            let renamed = try await bob.planner.call(HouseholdAPI.update, HouseholdUpdate(name: "The flat", people: 4))
            #expect(renamed.name == "The flat" && renamed.people == 4 && renamed.peopleOverride == 4)
            // Back to the number of members.
            #expect(try await bob.planner.call(HouseholdAPI.update, HouseholdUpdate(people: 0)).people == 2)
        }
    }

    // MARK: Mistakes

    /// Each mistake gets a typed error naming the field, and changes nothing.
    @Test func everyWrongInvitationIsRefusedAndWritesNothing() async throws {
        try await withStack { stack, clock in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let eve = try await person("Eve", on: stack)
            _ = try await bob.addItem("Bob's list")

            let unknown = await serviceError { try await bob.join("AAAA-BBBB-CCCC") }
            #expect(unknown?.code == .notFound && unknown?.field == "code")
            let malformed = await serviceError { try await bob.join("not a code!") }
            #expect(malformed?.code == .badRequest && malformed?.field == "code")
            let own = await serviceError { try await ada.join(try await ada.invite()) }
            #expect(own?.code == .conflict && own?.field == "code", "\(String(describing: own))")

            let revokedCode = try await ada.planner.call(HouseholdAPI.invite, InvitationRequest())
            _ = try await ada.planner.call(HouseholdAPI.revokeInvitation, InvitationRef(id: revokedCode.invitation.id))
            let revoked = await serviceError { try await bob.join(revokedCode.code) }
            #expect(revoked?.code == .conflict && revoked?.message.contains("revoked") == true)

            let once = try await ada.invite()
            try await eve.join(once)
            let reused = await serviceError { try await bob.join(once) }
            #expect(reused?.code == .conflict && reused?.message.contains("already used") == true)

            let shortLived = try await ada.invite(days: 1)
            #expect(clock.advance(by: 86_401))
            let expired = await serviceError { try await bob.join(shortLived) }
            #expect(expired?.code == .conflict && expired?.message.contains("expired") == true)

            let tooLong = await serviceError { try await ada.invite(days: 31) }
            #expect(tooLong?.code == .badRequest && tooLong?.field == "days")
            let removeSelf = await serviceError { try await ada.planner.call(HouseholdAPI.remove, MemberRef(user: ada.user)) }
            #expect(removeSelf?.code == .badRequest && removeSelf?.field == "user")
            let stranger = await serviceError { try await ada.planner.call(HouseholdAPI.remove, MemberRef(user: bob.user)) }
            #expect(stranger?.code == .notFound && stranger?.field == "user")
            let ownerLeaves = await serviceError { try await ada.planner.call(HouseholdAPI.leave, Empty()) }
            #expect(ownerLeaves?.code == .conflict && ownerLeaves?.field == "household")
            let aloneLeaves = await serviceError { try await bob.planner.call(HouseholdAPI.leave, Empty()) }
            #expect(aloneLeaves?.code == .conflict)
            let badName = await serviceError { try await ada.planner.call(HouseholdAPI.update, HouseholdUpdate(name: "\n")) }
            #expect(badName?.code == .badRequest && badName?.field == "name")
            let badPeople = await serviceError { try await ada.planner.call(HouseholdAPI.update, HouseholdUpdate(people: 21)) }
            #expect(badPeople?.code == .badRequest && badPeople?.field == "people")

            // Nothing moved: Bob is still alone with his list; Ada's household is Ada and Eve.
            #expect(try await bob.household().members.map(\.user) == [bob.user])
            #expect(try await bob.list().lines.map(\.name) == ["Bob's list"])
            #expect(try await ada.household().members.map(\.user) == [ada.user, eve.user])
        }
    }

    // MARK: Deletion and import

    /// Deleting the owner's account hands the household to the member there longest, who keeps
    /// the list; deleting the last member's erases what the household shared in every service.
    @Test func deletingMembersHandsTheHouseholdOnThenErasesIt() async throws {
        try await withStack { stack, clock in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            let cat = try await person("Cat", on: stack)
            try await bob.join(try await ada.invite())
            // Bob has been in the household longer than Cat: he is the heir.
            #expect(clock.advance(by: 60))
            try await cat.join(try await ada.invite())
            _ = try await ada.addItem("Rice")
            let household = ada.user

            _ = try await ada.planner.call(AccountAPI.delete, AccountDeletion(password: Self.password))
            let passed = try await bob.household()
            #expect(passed.id == household && passed.members.map(\.user) == [bob.user, cat.user])
            #expect(passed.members.first?.role == .owner)
            #expect(try await cat.list().lines.map(\.name) == ["Rice"])

            _ = try await cat.planner.call(AccountAPI.delete, AccountDeletion(password: Self.password))
            let deleted = try await bob.planner.call(AccountAPI.delete, AccountDeletion(password: Self.password))
            #expect(deleted.pending.isEmpty, "every service erased at once: \(deleted)")
            let rows = try stack.groceries.store.database.read { session in
                try session.value(Int.self, "SELECT COUNT(*) FROM manual_item WHERE household = ?", [household])
            }
            #expect(rows == 0)
            let members = try stack.planner.store.database.read { session in
                try session.value(Int.self, "SELECT COUNT(*) FROM household_member") ?? -1
            }
            #expect(members == 0)
        }
    }

    /// An archive's plan and list go only into a household nobody else is in, and a refused
    /// import writes nothing.
    @Test func anArchiveIsImportedOnlyIntoAHouseholdOfOnesOwn() async throws {
        try await withStack { stack, _ in
            let ada = try await person("Ada", on: stack)
            let bob = try await person("Bob", on: stack)
            _ = try await ada.addItem("Tea")
            let archive = try await ada.groceries.call(GroceriesAPI.exportArchive, Empty())
            try await bob.join(try await ada.invite())
            let refused = await serviceError { try await bob.groceries.call(GroceriesAPI.importArchive, GroceriesArchiveImport(archive: archive)) }
            #expect(refused?.code == .conflict && refused?.field == "archive.recipes")
            #expect(try await bob.list().lines.map(\.name) == ["Tea"])
        }
    }
}
