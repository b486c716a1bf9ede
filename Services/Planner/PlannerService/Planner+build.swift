import Foundation
public import Logging
public import SousCrypto
import SousMail
public import SousRuntime
import SousSchema
import SousWire

/// The planner service: cooking profiles and the rolling week of meals, with the clients it
/// reads recipes from the catalog and logs cooked meals to the tracker with.
public struct PlannerService: Sendable {
    public let host: ServiceHost
    public let store: PlannerStore
    public let accounts: AccountStore
    /// Applies repeating week templates (once a minute; tests call ``RepeatingWeeks/applyDue()``).
    public let repeatingWeeks: RepeatingWeeks

    /// Builds the planner from `configuration`: opens the database, binds the sockets and
    /// registers methods. `database` replaces the one `configuration` names (tests that share
    /// one database between two planners).
    /// - Parameter passwordCost: the Argon2id cost of new password hashes (tests that register
    ///   many accounts use ``Sodium/PasswordCost/minimal``).
    /// - Parameter mail: the relay recovery codes are mailed through (none: `account.recover`
    ///   answers `unavailable`, and an operator issues codes on the machine).
    public init(
        configuration: ServiceConfiguration, logger: Logger? = nil, database: SousDatabase? = nil, passwordCost: Sodium.PasswordCost = .standard,
        mail: AccountMail = AccountMail(settings: nil, webURL: nil)
    ) throws {
        let logger = logger ?? SousLogging.logger(for: "planner", level: configuration.logLevel)
        let database = try database ?? Self.openDatabase(at: configuration.database, logger: logger)
        let store = PlannerStore(database: database)
        let accounts = AccountStore(database: database, passwordCost: passwordCost)
        let households = HouseholdStore(database: database)
        let eraser = AccountEraser(store: accounts, households: households, configuration: configuration, logger: logger)
        let changes = ChangeSignals()
        let repeatingWeeks = RepeatingWeeks(logger: logger)
        // Other replicas' changes wake the `plan.wait` calls waiting here.
        let follower = ReplicaChangeFollower(
            configuration: configuration, topic: PlannerTopics.planChanged, key: { $0.household }, changes: changes, logger: logger)
        let courier = mail.settings.map { settings in
            OutboxCourier(
                database: database, transports: [MailTransport.channel: MailTransport(settings: settings)], clock: configuration.clock, logger: logger
            )
        }
        let host = try ServiceHost(
            configuration: configuration, logger: logger, database: database,
            services: [eraser, repeatingWeeks] + (follower.map { [$0] } ?? []) + (courier.map { [$0] } ?? []),
            ownRevocations: { since in try accounts.liveRevocations(since: since, now: configuration.clock.now) })
        let signer = try Self.sessionSigner(configuration)
        let known = try accounts.revocations(since: 0, now: Date())
        host.gate.revocations.apply(known.revoked, upTo: known.sequence)
        self.host = host
        self.store = store
        self.accounts = accounts
        self.repeatingWeeks = repeatingWeeks
        host.server.useHouseholds(households)
        let handlers = PlannerHandlers(
            host: host.parts, store: store, households: households, changes: changes, catalog: Peer<Catalog>(Catalog.self, of: configuration),
            tracker: Peer<Tracker>(Tracker.self, of: configuration), groceries: Peer<Groceries>(Groceries.self, of: configuration)
        )
        handlers.register(on: host.server)
        repeatingWeeks.use(handlers)
        AccountHandlers(host: host.parts, store: accounts, signer: signer, eraser: eraser, mail: mail, courier: courier).register(on: host.server)
        HouseholdHandlers(host: host.parts, store: households, eraser: eraser).register(on: host.server)
        FriendHandlers(host: host.parts, store: FriendStore(database: database)).register(on: host.server)
    }

    /// The key sessions are signed with: the configured one, or `<data>/sessions.key`, whose
    /// public half is published for the other services as `<keys>/sessions.pub`.
    static func sessionSigner(_ configuration: ServiceConfiguration) throws -> SessionSigner {
        let keyPair = try configuration.keys.sessionSigningKey ?? SessionKeyFile.loadOrCreate(dataDirectory: configuration.dataDirectory)
        if let directory = configuration.keysDirectory { try SessionKeyFile.publish(keyPair.publicKey, in: directory) }
        return SessionSigner(keyPair: keyPair)
    }

    /// Opens (creating and migrating as needed) the planner database at `location`.
    public static func openDatabase(at location: DatabaseLocation, logger: Logger) throws -> SousDatabase {
        try SousDatabase(name: "planner", location: location, schema: PlannerMigrations.schema, logger: logger)
    }
}

/// The planner's methods: validate, call the store, publish events (the runtime records activity).
struct PlannerHandlers: Sendable {
    let host: HostParts
    let store: PlannerStore
    let households: HouseholdStore
    /// Wakes `plan.wait` calls when their household's plan changes.
    let changes: ChangeSignals
    let catalog: Peer<Catalog>
    let tracker: Peer<Tracker>
    /// Takes a cooked meal's ingredients out of the household's pantry.
    let groceries: Peer<Groceries>

    var now: Date { host.clock.now }

    /// The route table: every method the planner serves and the function that answers it.
    func register(on server: RPCServer) {
        // profile.get, plan.multiplier and plan.household are what other services read for a user, so they are
        // declared without activity (the notifier would otherwise see every reminder check as
        // the user being active).
        server.register(PlannerAPI.getProfile, use: getProfile)
        server.register(PlannerAPI.suggestedMultiplier, use: suggestedMultiplier)
        server.register(PlannerAPI.household, use: household)
        server.register(PlannerAPI.weekHousehold, use: weekHousehold)
        server.register(PlannerAPI.updateProfile, use: updateProfile)
        server.register(PlannerAPI.resetProfile, use: resetProfile)
        server.register(PlannerAPI.getPlan, use: getPlan)
        server.register(PlannerAPI.history, use: history)
        server.register(PlannerAPI.selection, use: selection)
        server.register(PlannerAPI.addRecipe, use: addRecipe)
        server.register(PlannerAPI.removeRecipe, use: removeRecipe)
        server.register(PlannerAPI.putSlot, use: putSlot)
        server.register(PlannerAPI.moveSlot, use: moveSlot)
        server.register(PlannerAPI.clearSlot, use: clearSlot)
        server.register(PlannerAPI.cooked, use: cooked)
        server.register(PlannerAPI.fill, use: fill)
        server.register(PlannerAPI.unfill, use: unfill)
        server.register(PlannerAPI.exportArchive, use: exportArchive)
        server.register(PlannerAPI.importArchive, use: importArchive)
        server.register(PlannerAPI.calendar, use: calendar)
        server.register(PlannerAPI.saveTemplate, use: saveTemplate)
        server.register(PlannerAPI.templates, use: templates)
        server.register(PlannerAPI.deleteTemplate, use: deleteTemplate)
        server.register(PlannerAPI.applyTemplate, use: applyTemplate)
        server.register(PlannerAPI.repeatTemplate, use: repeatTemplate)
        server.register(PlannerAPI.setFeed, use: setFeed)
        server.register(PlannerAPI.feed, use: feed)
        server.register(PlannerAPI.feedCalendar, use: feedCalendar)
        server.register(PlannerAPI.wait, use: wait)
    }

    // MARK: Read by other services

    func getProfile(_ request: Empty, user: String, context: RequestContext) throws -> CookingProfile {
        try store.profile(user: user)
    }

    func suggestedMultiplier(_ request: RecipeID, user: String, context: RequestContext) async throws -> SuggestedMultiplier {
        let member = try member(user, context)
        let planned = try store.plannedSlots(member: member, recipe: request.id, now: now)
        // An id in no slot may be one nobody knows: notFound, like every other planner method.
        if planned == 0 { _ = try await recipeName(request.id, member: member, field: "id", context: context) }
        return SuggestedMultiplier(recipe: request.id, multiplier: max(planned, 1), plannedSlots: planned)
    }

    /// For the groceries service, which reads the recipe from the catalog itself: no catalog call.
    func household(_ request: RecipeID, user: String, context: RequestContext) throws -> RecipeHousehold {
        let member = try member(user, context)
        guard !request.id.isEmpty else { throw ServiceError.badRequest("recipe id is empty", field: "id") }
        guard request.id.utf8.count <= 200 else { throw ServiceError.badRequest("recipe id is longer than 200 bytes", field: "id") }
        return try store.weekHousehold(member: member, now: now).household(of: request.id)
    }

    /// For the groceries service, which keeps it per user until a planner event or midnight.
    func weekHousehold(_ request: Empty, user: String, context: RequestContext) throws -> WeekHousehold {
        try store.weekHousehold(member: try member(user, context), now: now)
    }

    // MARK: Profile

    func updateProfile(_ request: ProfileUpdate, user: String, context: RequestContext) async throws -> CookingProfile {
        let current = try store.profile(user: user)
        let profile = try await ProfileValidation.validated(request, over: current, catalog: catalog, user: user, context: context)
        try store.save(profile, user: user, now: now)
        profileChanged(user: user, profile: profile)
        return profile
    }

    func resetProfile(_ request: Empty, user: String, context: RequestContext) throws -> CookingProfile {
        try store.resetProfile(user: user)
        profileChanged(user: user, profile: .defaults)
        return .defaults
    }

    // MARK: Plan

    func getPlan(_ request: Empty, user: String, context: RequestContext) throws -> WeekPlan {
        try store.week(member: try member(user, context), now: now)
    }

    func history(_ request: PlanDateRange, user: String, context: RequestContext) throws -> PlanDays {
        let member = try member(user, context)
        try checkRange(request)
        let days = try store.days(member: member, range: request, now: now)
        return PlanDays(days: days)
    }

    func selection(_ request: Empty, user: String, context: RequestContext) throws -> PlanSelection {
        PlanSelection(recipes: try store.selection(member: try member(user, context), now: now))
    }

    func addRecipe(_ request: RecipeID, user: String, context: RequestContext) async throws -> PlanSelection {
        let member = try member(user, context)
        let name = try await recipeName(request.id, member: member, field: "id", context: context)
        if try store.add(member: member, recipe: request.id, name: name, now: now) {
            planChanged(member, dates: [])
        }
        return PlanSelection(recipes: try store.selection(member: member, now: now))
    }

    func removeRecipe(_ request: RecipeID, user: String, context: RequestContext) throws -> PlanSelection {
        let member = try member(user, context)
        let cleared = try store.remove(member: member, recipe: request.id, now: now)
        planChanged(member, dates: cleared)
        return PlanSelection(recipes: try store.selection(member: member, now: now))
    }

    func putSlot(_ request: SlotAssignment, user: String, context: RequestContext) async throws -> PlanSlot {
        let member = try member(user, context)
        // Checked before asking the catalog, so a bad slot is named even when it is down.
        try store.window(user: user, now: now).check(SlotRef(date: request.date, slot: request.slot))
        let name = try await recipeName(request.recipe, member: member, field: "recipe", context: context)
        let slot = try store.put(member: member, assignment: request, name: name, now: now, idempotent: context.idempotency)
        planChanged(member, dates: [request.date])
        return slot
    }

    func moveSlot(_ request: SlotMove, user: String, context: RequestContext) throws -> PlanDays {
        let member = try member(user, context)
        let slots = try store.move(member: member, move: request, now: now)
        planChanged(member, dates: Array(Set([request.from.date, request.to.date])).sorted())
        return PlanDays(
            days: try store.days(
                member: member, range: PlanDateRange(from: min(request.from.date, request.to.date), to: max(request.from.date, request.to.date)),
                now: now
            )
            .filter { day in slots.contains { $0.date == day.date } })
    }

    func clearSlot(_ request: SlotRef, user: String, context: RequestContext) throws -> PlanSlot {
        let member = try member(user, context)
        let slot = try store.clear(member: member, ref: request, now: now)
        planChanged(member, dates: [request.date])
        return slot
    }

    // MARK: Cooked it

    /// Commits the cooked mark first, then asks the tracker to log one serving in the diary of
    /// the caller and of each member named in `alsoEatenBy` who has none of it yet. A tracker that
    /// fails leaves the mark in place and says so in the reply; calling again retries the logging.
    func cooked(_ request: CookedSlot, user: String, context: RequestContext) async throws -> CookedResult {
        let member = try member(user, context)
        let others = try eaters(request.alsoEatenBy ?? [], besides: member)
        let ref = request.ref
        let (slot, logged) = try store.markCooked(member: member, ref: ref, others: others, now: now)
        planChanged(member, dates: [ref.date])
        guard let recipe = slot.recipe else { throw ServiceError.internal("cooked slot lost its recipe") }
        let (pantry, pantryError) = await takeFromPantry(recipe, ref: ref, member: member, context: context)
        var servings: [MemberServing] = []
        for other in others {
            if logged.contains(other) {
                servings.append(MemberServing(user: other, logged: true, diaryEntry: nil, error: nil))
                continue
            }
            do {
                let entry = try await logServing(of: recipe, slot: slot, for: other, context: context)
                try store.recordDiaryEntry(entry.id, eater: other, member: member, ref: ref, recipe: recipe) { _ in () }
                servings.append(MemberServing(user: other, logged: true, diaryEntry: entry, error: nil))
            } catch {
                context.logger.warning("cooked meal not logged for another member", metadata: ["error": "\(error)"])
                servings.append(
                    MemberServing(user: other, logged: false, diaryEntry: nil, error: "could not be logged to their diary (\(error.message))"))
            }
        }
        if slot.diaryEntry != nil {
            return CookedResult(
                slot: slot, logged: true, diaryEntry: nil, loggingError: nil, others: servings, pantry: pantry, pantryError: pantryError)
        }
        let entry: DiaryEntry
        do {
            entry = try await logServing(of: recipe, slot: slot, for: user, context: context)
        } catch {
            context.logger.warning("cooked meal not logged", metadata: ["error": "\(error)"])
            let message =
                "Marked \(PlannerStore.label(ref)) as cooked, but it could not be logged to your diary (\(error.message)). "
                + "Mark it as cooked again to retry logging."
            return CookedResult(
                slot: slot, logged: false, diaryEntry: nil, loggingError: message, others: servings, pantry: pantry, pantryError: pantryError)
        }
        return try store.recordDiaryEntry(entry.id, eater: user, member: member, ref: ref, recipe: recipe) { recorded in
            CookedResult(
                slot: recorded, logged: true, diaryEntry: entry, loggingError: nil, others: servings, pantry: pantry, pantryError: pantryError)
        }
    }

    /// What the meal used comes out of the household's pantry (once per slot and recipe, in the
    /// groceries service), scaled to the household's people. A groceries service that cannot be
    /// asked leaves the pantry as it is and says so; the meal stays cooked.
    private func takeFromPantry(
        _ recipe: String, ref: SlotRef, member: PlanMember, context: RequestContext
    ) async -> (PantryTaken?, String?) {
        do {
            let people = try store.weekHousehold(member: member, now: now).people
            let taken = try await groceries.call(
                PantryAPI.cook, PantryCook(recipe: recipe, people: people, date: ref.date, slot: ref.slot), user: member.user, for: context,
                need: .optional)
            return (taken, nil)
        } catch {
            context.logger.warning("cooked meal not taken from the pantry", metadata: ["error": "\(error)"])
            return (nil, "Your pantry was not updated (\(error.message)). Mark it as cooked again to retry.")
        }
    }

    /// One serving of the slot's meal in `eater`'s diary, under a key derived from this request's
    /// (per user): marking again after a lost reply logs it once.
    private func logServing(of recipe: String, slot: PlanSlot, for eater: String, context: RequestContext) async throws(ServiceError) -> DiaryEntry {
        try await tracker.call(
            TrackerAPI.logRecipeServing, RecipeServingLog(date: slot.date, meal: slot.meal, recipe: recipe, servings: 1), user: eater, for: context)
    }

    /// The other members named as having eaten a meal: each once, each in the caller's household.
    private func eaters(_ named: [String], besides member: PlanMember) throws(ServiceError) -> [String] {
        guard named.count <= 20 else { throw .badRequest("at most 20 people ate one meal", field: "alsoEatenBy") }
        let members = Set(try households.memberIDs(of: member.household))
        var others: [String] = []
        for (index, user) in named.enumerated() {
            guard user != member.user else { throw .badRequest("you are counted already: name the others", field: "alsoEatenBy.\(index)") }
            guard members.contains(user) else {
                throw .notFound("\(user) is not a member of your household", field: "alsoEatenBy.\(index)")
            }
            guard !others.contains(user) else { throw .badRequest("\(user) is named twice", field: "alsoEatenBy.\(index)") }
            others.append(user)
        }
        return others
    }

    // MARK: Calendar

    static let maxRangeDays = 366

    func checkRange(_ range: PlanDateRange) throws(ServiceError) {
        guard range.from <= range.to else { throw .badRequest("from \(range.from) is after to \(range.to)", field: "to") }
        guard range.from.days(to: range.to) < Self.maxRangeDays else {
            throw .badRequest("at most \(Self.maxRangeDays) days at once", field: "to")
        }
    }

    func calendar(_ request: CalendarRequest, user: String, context: RequestContext) throws -> CalendarExport {
        let member = try member(user, context)
        let profile = try store.profile(user: user)
        let window = PlanWindow(now: now, profile: profile)
        let range: PlanDateRange
        switch (request.from, request.to) {
        case (nil, nil): range = PlanDateRange(from: window.today, to: window.last)
        case (let from?, let to?): range = PlanDateRange(from: from, to: to)
        case (nil, _): throw ServiceError.badRequest("give both from and to, or neither for the visible week", field: "from")
        case (_, nil): throw ServiceError.badRequest("give both from and to, or neither for the visible week", field: "to")
        }
        try checkRange(range)
        return try calendar(member: member, window: window, range: range)
    }

    /// The calendar of `member`'s plan over `range`, in the time zone of `window`.
    func calendar(member: PlanMember, window: PlanWindow, range: PlanDateRange) throws -> CalendarExport {
        let user = member.user
        let days = try store.days(member: member, range: range, now: now)
        let events = days.flatMap(\.slots).compactMap { slot -> ICalendar.Event? in
            guard let recipe = slot.recipe else { return nil }
            let hour = slot.meal == .lunch ? 12 : 19
            return ICalendar.Event(
                uid: "\(slot.date)-\(slot.meal.rawValue)-\(Self.uidSafe(user))@planner.sous",
                start: slot.date.instant(hour: hour, in: window.timeZone),
                end: slot.date.instant(hour: hour + 1, in: window.timeZone),
                summary: "\(slot.meal.rawValue.capitalized): \(slot.recipeName ?? recipe)",
                description: "Sous recipe \(recipe)"
            )
        }
        return CalendarExport(calendar: ICalendar.calendar(name: "Sous meal plan", events: events, stamp: now), events: events.count)
    }

    /// The user id with everything but letters, digits, dot, dash and underscore percent-encoded.
    static func uidSafe(_ user: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.")
        return user.addingPercentEncoding(withAllowedCharacters: allowed) ?? user
    }

    // MARK: Helpers

    /// The recipe's name: the selection's copy, or the catalog's (notFound naming `field`).
    func recipeName(_ id: String, member: PlanMember, field: String, context: RequestContext) async throws -> String {
        if let name = try store.selectedName(member: member, recipe: id) { return name }
        do {
            return try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: id), user: member.user, for: context, notFoundField: field).name
        } catch {
            guard error.code == .notFound else { throw error }
            throw ServiceError.notFound("no recipe \"\(id)\" in the catalog", field: field)
        }
    }

    func profileChanged(user: String, profile: CookingProfile) {
        host.publisher.publish(PlannerTopics.profileChanged, ProfileChangedEvent(user: user, profile: profile))
    }

    /// Tells every member of the household: each one's week as another service keeps it
    /// (the groceries' scaling) is out of date.
    func planChanged(_ member: PlanMember, dates: [LocalDate]) {
        let members = (try? households.memberIDs(of: member.household)) ?? [member.user]
        for user in members {
            host.publisher.publish(PlannerTopics.planChanged, PlanChangedEvent(user: user, household: member.household, dates: dates))
        }
        changes.changed(member.household)
    }

    /// `plan.wait`: answers as soon as the household's plan version differs from `after` (at once
    /// if it already does), else when `waitSeconds` have passed.
    func wait(_ request: PlanWait, user: String, context: RequestContext) async throws -> PlanVersionNow {
        let household = try context.requireHousehold()
        let version = try await changes.longPoll(
            household, waitSeconds: request.waitSeconds, context: context, read: { try store.version(household: household) },
            isNew: { $0 != request.after })
        return PlanVersionNow(version: version, changed: version != request.after)
    }

    /// The person and the household whose plan a call reads or writes (the server found the
    /// household: plan methods are declared with household access).
    func member(_ user: String, _ context: RequestContext) throws(ServiceError) -> PlanMember {
        PlanMember(user: user, household: try context.requireHousehold())
    }
}
