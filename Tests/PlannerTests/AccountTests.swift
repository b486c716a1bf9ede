import Foundation
import GRDB
import NotifierService
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// Accounts end to end, against all five real services in-process: who may sign in, what a
/// session can do, how it ends everywhere, and that deleting an account leaves nothing behind.
@Suite(.closesItsSockets)
struct AccountTests {
    static let password = "correct horse battery staple"

    func withStack(_ body: @escaping @Sendable (StackFixture) async throws -> Void) async throws {
        let stack = try StackFixture.make()
        try await withRunningServices(stack.hosts) { _ in try await body(stack) }
    }

    @discardableResult
    func register(_ email: String, on stack: StackFixture, password: String = password) async throws -> AccountInfo {
        try await stack.client(Planner.self).call(AccountAPI.register, Registration(email: email, password: password, name: "Ada"))
    }

    func login(_ email: String, on stack: StackFixture, password: String = password, device: String = "laptop") async throws(ServiceError) -> SignedIn
    {
        try await stack.client(Planner.self).call(AccountAPI.login, SignIn(email: email, password: password, device: device))
    }

    func signInFailure(_ email: String, on stack: StackFixture) async -> ServiceError? {
        do {
            _ = try await login(email, on: stack)
            return nil
        } catch {
            return error
        }
    }

    @Test func registerSignInOnTwoDevicesAndSeeTheSameData() async throws {
        try await withStack { stack in
            let account = try await register("Ada@Example.org", on: stack)
            #expect(account.email == "ada@example.org" && account.role == .user && account.user.hasPrefix("u-"))
            let laptop = try await login("ada@example.org", on: stack)
            let phone = try await login("ADA@example.ORG", on: stack, device: "phone")
            #expect(laptop.account.user == account.user && phone.account.user == account.user)

            // What one device writes, the other reads, in any service.
            _ = try await stack.client(Tracker.self, session: laptop.token).call(TrackerAPI.changeDrink, DrinkChange(drink: .water, delta: 2))
            let drinks = try await stack.client(Tracker.self, session: phone.token).call(TrackerAPI.drinks, DayRequest())
            #expect(drinks.water == 2)

            let who = try await stack.client(Planner.self, session: phone.token).call(AccountAPI.whoami, Empty())
            #expect(who.account == account && who.session.device == "phone" && who.session.current)
            let sessions = try await stack.client(Planner.self, session: laptop.token).call(AccountAPI.sessions, Empty())
            #expect(sessions.sessions.map(\.device) == ["laptop", "phone"])
            #expect(sessions.sessions.filter(\.current).map(\.id) == [laptop.session.id])
        }
    }

    @Test func badRegistrationsAndSignInsAreTypedErrorsThatWriteNothing() async throws {
        try await withStack { stack in
            try await register("ada@example.org", on: stack)
            let planner = stack.client(Planner.self)
            func registration(_ email: String, _ password: String, _ name: String = "Ada") async -> ServiceError? {
                do {
                    _ = try await planner.call(AccountAPI.register, Registration(email: email, password: password, name: name))
                    return nil
                } catch { return error }
            }
            #expect(
                await registration("ADA@example.org", Self.password)
                    == .conflict("an account with this email exists; sign in instead", field: "email"))
            #expect(await registration("bob@example.org", "short")?.field == "password")
            #expect(await registration("bob@example.org", "password123")?.field == "password", "a common password")
            #expect(await registration("bob@example.org", "aaaaaaaaaaaa")?.field == "password")
            #expect(await registration("not-an-email", Self.password)?.field == "email")
            #expect(await registration("bob@example.org", Self.password, "")?.field == "name")
            #expect(await registration("bob@example.org", String(repeating: "x", count: 2000))?.field == "password")
            // Adopting a protocol-1 user id (sous-planner account adopt): never a blank one.
            for blank in ["   ", " ada", ""] {
                #expect(throws: ServiceError.badRequest("a user id has 1 to 128 bytes, without leading or trailing spaces", field: "user")) {
                    try stack.planner.accounts.createAccount(
                        user: blank, email: "old@example.org", password: Self.password, name: "Old", role: .user, now: Date())
                }
            }

            let wrong = await #expect(throws: ServiceError.self) { try await login("ada@example.org", on: stack, password: "not the password") }
            #expect(wrong?.code == .unauthorized && wrong?.field == "password")
            let unknown = await #expect(throws: ServiceError.self) { try await login("nobody@example.org", on: stack) }
            #expect(unknown == wrong, "an unknown email is answered like a wrong password")
            let forged = await #expect(throws: ServiceError.self) {
                try await stack.client(Tracker.self, session: "eyJmb3JnZWQiOnRydWV9.AAAA").call(TrackerAPI.drinks, DayRequest())
            }
            #expect(forged?.code == .unauthorized && forged?.field == "header.session")
            // None of it created an account or a session.
            let accounts = try stack.planner.store.database.read { session in try session.value(Int.self, "SELECT count(*) FROM account") ?? -1 }
            let sessions = try stack.planner.store.database.read { session in try session.value(Int.self, "SELECT count(*) FROM session") ?? -1 }
            #expect(accounts == 1)
            #expect(sessions == 0)
        }
    }

    /// The community page names a recipe's author by display name, which the catalog asks the
    /// planner for (a method no user may call).
    @Test func theCommunityPageNamesAuthorsByTheirDisplayName() async throws {
        try await withStack { stack in
            let ada = try await register("ada@example.org", on: stack)
            let adaSession = try await login("ada@example.org", on: stack).token
            _ = try await register("bob@example.org", on: stack)
            let bobSession = try await login("bob@example.org", on: stack).token
            let catalog = stack.client(Catalog.self, session: adaSession)
            let toast = try await catalog.call(CatalogAPI.createRecipe, RecipeDraft(name: "Ada's toast", summary: "Toast, shared."))
            _ = try await catalog.call(CatalogAPI.share, RecipeID(id: toast.id))
            let page = try await stack.client(Catalog.self, session: bobSession).call(CatalogAPI.community, RecipeSearch())
            let shared = try #require(page.recipes.first { $0.recipe.id == toast.id })
            #expect(shared.sharedBy == ada.user && shared.sharedByName == "Ada")
            let asked = await #expect(throws: ServiceError.self) {
                try await stack.client(Planner.self, session: bobSession).call(AccountAPI.names, UserIDs(users: [ada.user]))
            }
            #expect(asked?.code == .forbidden)
        }
    }

    @Test func repeatedFailuresAreRefusedForAWhile() async throws {
        // The lockout is timed on the planner's clock: a manual one, so a slow machine cannot
        // let the first (1 s) lockout run out between two calls.
        let clock = WallClock.manual(at: Date())
        let stack = try StackFixture.make(clock: clock)
        try await withRunningServices(stack.hosts) { _ in
            try await register("ada@example.org", on: stack)
            for attempt in 1...5 {
                let wrong = await #expect(throws: ServiceError.self) { try await login("ada@example.org", on: stack, password: "wrong password!") }
                #expect(wrong?.code == .unauthorized, "attempt \(attempt)")
            }
            let refused = await #expect(throws: ServiceError.self) { try await login("ada@example.org", on: stack) }
            #expect(refused?.code == .rateLimited, "even the right password waits once the account is locked")
            #expect(refused?.message.contains("try again in 1 s") == true)
            clock.advance(by: 1.5)
            #expect(try await login("ada@example.org", on: stack).account.email == "ada@example.org", "the first lockout lasts a second")
        }
    }

    /// Signing out, ending another device's session, or changing the password stops the old
    /// tokens in every service (within 2 s; the bound here only keeps a broken sync from hanging).
    @Test func endedSessionsStopWorkingInEveryService() async throws {
        try await withStack { stack in
            try await register("ada@example.org", on: stack)
            let laptop = try await login("ada@example.org", on: stack)
            let phone = try await login("ada@example.org", on: stack, device: "phone")
            let tablet = try await login("ada@example.org", on: stack, device: "tablet")
            for token in [laptop.token, phone.token, tablet.token] {
                _ = try await stack.client(Catalog.self, session: token).call(CatalogAPI.favorites, Empty())
            }
            // The laptop ends the phone's session.
            _ = try await stack.client(Planner.self, session: laptop.token).call(AccountAPI.endSession, SessionRef(session: phone.session.id))
            try await untilRefused(phone.token, by: stack)
            // The laptop changes the password: the tablet is signed out, the laptop is not.
            let changed = try await stack.client(Planner.self, session: laptop.token).call(
                AccountAPI.changePassword, PasswordChange(current: Self.password, new: "a new long passphrase")
            )
            #expect(changed.endedSessions == 1)
            try await untilRefused(tablet.token, by: stack)
            _ = try await stack.client(Catalog.self, session: laptop.token).call(CatalogAPI.favorites, Empty())
            let old = await signInFailure("ada@example.org", on: stack)
            #expect(old?.code == .unauthorized)
            _ = try await login("ada@example.org", on: stack, password: "a new long passphrase")
            // Signing out.
            _ = try await stack.client(Planner.self, session: laptop.token).call(AccountAPI.logout, Empty())
            try await untilRefused(laptop.token, by: stack)
        }
    }

    /// A long poll held open for a session (the web app's live list) ends as soon as the
    /// service learns the session ended, not when its wait runs out.
    @Test func aLongPollEndsWithItsSession() async throws {
        try await withStack { stack in
            try await register("ada@example.org", on: stack)
            let phone = try await login("ada@example.org", on: stack, device: "phone")
            let groceries = ServiceClient<Groceries>(
                endpoint: stack.host(of: .groceries).boundEndpoints.requests, options: .init(timeout: .seconds(120), retries: 0), session: phone.token
            )
            let now = try await groceries.call(GroceriesAPI.wait, ListWait(after: 0, waitSeconds: 0))
            let waiting = Task { try await groceries.call(GroceriesAPI.wait, ListWait(after: now.version, waitSeconds: 25)) }
            _ = try await stack.client(Planner.self, session: phone.token).call(AccountAPI.logout, Empty())
            let sequence = stack.planner.host.gate.revocations.sequence
            try await withTimeout(.seconds(20), waitingFor: "the groceries service to learn of the sign-out") {
                await stack.host(of: .groceries).gate.revocations.applied(through: sequence)
            }
            // Once the service knows, the wait ends at once: well inside the 25 s it asked for.
            let ended = await #expect(throws: ServiceError.self) {
                try await withTimeout(.seconds(10), waitingFor: "the long poll to end with its session") { try await waiting.value }
            }
            #expect(ended?.code == .unauthorized, "\(String(describing: ended))")
        }
    }

    /// Waits until every service but the planner refuses `token` (the planner refuses at once).
    /// Waits until every service has applied the planner's revocations (the event or the
    /// next poll), then expects each to refuse `token`.
    func untilRefused(_ token: String, by stack: StackFixture) async throws {
        let sequence = stack.planner.host.gate.revocations.sequence
        for host in stack.hosts {
            try await withTimeout(.seconds(20), waitingFor: "\(host.name) to learn of revocation \(sequence)") {
                await host.gate.revocations.applied(through: sequence)
            }
        }
        for service in SousService.allCases {
            #expect(try await !accepts(token, in: service, of: stack), "\(service) still accepts an ended session")
        }
    }

    /// Whether `service` answers a user method for `token`; false once it answers unauthorized.
    func accepts(_ token: String, in service: SousService, of stack: StackFixture) async throws -> Bool {
        do {
            switch service {
            case .catalog: _ = try await stack.client(Catalog.self, session: token).call(CatalogAPI.favorites, Empty())
            case .planner: _ = try await stack.client(Planner.self, session: token).call(PlannerAPI.getProfile, Empty())
            case .groceries: _ = try await stack.client(Groceries.self, session: token).call(GroceriesAPI.list, Empty())
            case .tracker: _ = try await stack.client(Tracker.self, session: token).call(TrackerAPI.drinks, DayRequest())
            case .notifier: _ = try await stack.client(Notifier.self, session: token).call(NotifierAPI.next, Empty())
            }
            return true
        } catch {
            guard error.code == .unauthorized else { throw error }
            return false
        }
    }

    /// Deleting an account erases every row of that user in all five databases (found by
    /// looking at every text value of every table, not by knowing the schemas).
    @Test func deletingAnAccountLeavesNoRowOfTheUserInAnyService() async throws {
        try await withStack { stack in
            let account = try await register("ada@example.org", on: stack)
            let other = try await register("bob@example.org", on: stack)
            let ada = try await login("ada@example.org", on: stack)
            let bob = try await login("bob@example.org", on: stack)
            for signedIn in [ada, bob] {
                let token = signedIn.token
                _ = try await stack.client(Planner.self, session: token).call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Europe/Rome"))
                _ = try await stack.client(Planner.self, session: token).call(PlannerAPI.addRecipe, RecipeID(id: "tomato-lentil-soup"))
                let recipe = try await stack.client(Catalog.self, session: token).call(
                    CatalogAPI.createRecipe, RecipeDraft(name: "Soup of \(signedIn.account.name)", summary: "mine"))
                _ = try await stack.client(Catalog.self, session: token).call(CatalogAPI.favorite, RecipeID(id: recipe.id))
                _ = try await stack.client(Groceries.self, session: token).call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "tomato-lentil-soup"))
                _ = try await stack.client(Groceries.self, session: token).call(GroceriesAPI.addItem, AddListItem(text: "paper towels", count: 2))
                _ = try await stack.client(Tracker.self, session: token).call(
                    TrackerAPI.addEntry, DiaryAdd(meal: .lunch, grams: 120, ingredient: "tomato"))
                _ = try await stack.client(Tracker.self, session: token).call(TrackerAPI.changeDrink, DrinkChange(drink: .coffee, delta: 1))
            }
            // The notifier learns of both from their activity.
            try await eventually(within: .seconds(20), waitingFor: "the notifier to see both users") {
                guard try stack.notifier.store.pending(of: account.user) != nil, try stack.notifier.store.pending(of: other.user) != nil else {
                    throw ServiceError.notFound("not yet")
                }
            }
            let before = try rowsNaming(account.user, in: stack)
            #expect(Set(before.map { $0.split(separator: ".")[0] }).count == 5, "the user had rows in every service: \(before)")

            let wrong = await #expect(throws: ServiceError.self) {
                try await stack.client(Planner.self, session: ada.token).call(AccountAPI.delete, AccountDeletion(password: "not the password"))
            }
            #expect(wrong?.code == .unauthorized && wrong?.field == "password")
            let deleted = try await stack.client(Planner.self, session: ada.token).call(AccountAPI.delete, AccountDeletion(password: Self.password))
            #expect(deleted == AccountDeleted(user: account.user, erased: ["planner", "catalog", "groceries", "tracker", "notifier"], pending: []))

            let after = try rowsNaming(account.user, in: stack)
            #expect(after.isEmpty, "no row of the deleted user is left: \(after)")
            let others = try rowsNaming(other.user, in: stack)
            #expect(Set(others.map { $0.split(separator: ".")[0] }).count == 5, "the other user's rows are all there")
            try await untilRefused(ada.token, by: stack)
            let gone = await signInFailure("ada@example.org", on: stack)
            #expect(gone?.code == .unauthorized)
        }
    }

    /// "service.table.column" for every text or blob value, in every table of every service,
    /// that is or contains `user`.
    func rowsNaming(_ user: String, in stack: StackFixture) throws -> [String] {
        var found: [String] = []
        for (service, database) in stack.databases.sorted(by: { $0.key < $1.key }) {
            try database.read { session in
                // (table, column, the test that the column's value contains the user's id)
                let columns: [(String, String, String)]
                switch session.engine {
                case .sqlite:
                    let tables = try session.values(String.self, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                    columns = try tables.flatMap { table in
                        try session.values(String.self, "SELECT name FROM pragma_table_info(?)", [table]).map { column in
                            (table, column, "instr(CAST(\(column.quotedDatabaseIdentifier) AS BLOB), CAST(? AS BLOB)) > 0")
                        }
                    }
                case .postgres:
                    columns = try session.rows(
                        "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()"
                    ).map { row in
                        let column = (row["column_name"] as String).quotedDatabaseIdentifier
                        let test =
                            row["data_type"] == "bytea"
                            ? "position(convert_to(?, 'UTF8') in \(column)) > 0" : "strpos(CAST(\(column) AS TEXT), ?) > 0"
                        return (row["table_name"], row["column_name"], test)
                    }
                }
                for (table, column, test) in columns {
                    let count = try session.value(Int.self, "SELECT count(*) FROM \(table.quotedDatabaseIdentifier) WHERE \(test)", [user]) ?? 0
                    found += Array(repeating: "\(service).\(table).\(column)", count: count)
                }
            }
        }
        return found
    }
}
