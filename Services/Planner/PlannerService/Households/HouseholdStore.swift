import Foundation
import GRDB
import SousCrypto
public import SousRuntime
import SousSchema
public import SousWire

/// Households, their members and invitations, in the planner's database. The same statements run
/// on SQLite and PostgreSQL.
///
/// A user without a `household_member` row is alone in a household whose id is their user id
/// and which has no `household` row: that is how every account starts, so a person living alone
/// never meets any of this, and every plan and list written before households existed is
/// already their household's. The rows are written the first time the household is changed
/// (named, an invitation made); from then on each member has a row.
public final class HouseholdStore: HouseholdDirectory, Sendable {
    public let database: SousDatabase

    public init(database: SousDatabase) {
        self.database = database
    }

    static let defaultName = "Home"
    static let maxPendingInvitations = 20
    static let invitationDays = 1...30
    static let defaultInvitationDays = 7
    static let peopleRange = 1...20

    struct Member: Sendable, Equatable {
        let user: String
        let mayInvite: Bool
        let joinedAt: Date
    }

    struct Household: Sendable {
        let id: String
        let name: String
        let owner: String
        let people: Int?
        /// The owner first, then in the order they joined.
        let members: [Member]
    }

    // MARK: Reading

    public func household(of user: String, for context: RequestContext) throws(ServiceError) -> String {
        try storage { try database.read { session in try Self.householdID(session, user: user) } }
    }

    /// The user's household and how many people are in it, in one read (`household.of`, asked
    /// on every call of another service's household methods).
    func membership(of user: String) throws(ServiceError) -> HouseholdOf {
        try storage {
            try database.read { session in
                let household = try Self.householdID(session, user: user)
                return HouseholdOf(household: household, members: max(try Self.members(session, household: household).count, 1))
            }
        }
    }

    /// Every member's user id (the user alone for a household without rows).
    func memberIDs(of household: String) throws(ServiceError) -> [String] {
        try storage {
            try database.read { session in
                let members = try Self.members(session, household: household).map(\.user)
                return members.isEmpty ? [household] : members
            }
        }
    }

    func info(user: String) throws(ServiceError) -> HouseholdInfo {
        try storage { try database.read { session in try Self.info(session, user: user) } }
    }

    static func householdID(_ session: any SQLSession, user: String) throws -> String {
        try session.value(String.self, #"SELECT household FROM household_member WHERE "user" = ?"#, [user]) ?? user
    }

    static func members(_ session: any SQLSession, household: String) throws -> [Member] {
        try session.rows(
            #"SELECT "user", may_invite, joined_at FROM household_member WHERE household = ? ORDER BY joined_at, "user""#, [household]
        ).map { row in
            Member(user: row["user"], mayInvite: (row["may_invite"] as Int64) != 0, joinedAt: Date(timeIntervalSince1970: row["joined_at"]))
        }
    }

    /// The caller's household: its rows, or the one of their own it stands for.
    static func household(_ session: any SQLSession, user: String) throws -> Household {
        let id = try householdID(session, user: user)
        guard let row = try session.rows("SELECT name, owner, people FROM household WHERE id = ?", [id]).first else {
            // Alone since the account was made.
            let since = try session.value(Double.self, #"SELECT created_at FROM account WHERE "user" = ?"#, [user]) ?? 0
            return Household(
                id: user, name: defaultName, owner: user, people: nil,
                members: [Member(user: user, mayInvite: true, joinedAt: Date(timeIntervalSince1970: since))])
        }
        let owner: String = row["owner"]
        let members = try members(session, household: id)
        return Household(
            id: id, name: row["name"], owner: owner, people: row["people"],
            members: members.filter { $0.user == owner } + members.filter { $0.user != owner })
    }

    /// How many people the household's plan and list are for: the owner's override, else the
    /// number of members; one person alone keeps their profile's `people`.
    static func people(_ session: any SQLSession, household id: String, profile: CookingProfile) throws -> Int {
        if let people = try session.value(Int.self, "SELECT people FROM household WHERE id = ?", [id]) { return people }
        let count = try members(session, household: id).count
        return count > 1 ? count : profile.people
    }

    static func info(_ session: any SQLSession, user: String) throws -> HouseholdInfo {
        let household = try household(session, user: user)
        let names = try accountNames(session, users: household.members.map(\.user))
        let members = household.members.map { member in
            HouseholdMember(
                user: member.user, name: names[member.user] ?? "", role: member.user == household.owner ? .owner : .member,
                mayInvite: member.user == household.owner || member.mayInvite, joinedAt: member.joinedAt)
        }
        let profile = try PlannerStore.profile(session, user: household.owner)
        return HouseholdInfo(
            id: household.id, name: household.name, members: members,
            people: try people(session, household: household.id, profile: profile), peopleOverride: household.people)
    }

    private static func accountNames(_ session: any SQLSession, users: [String]) throws -> [String: String] {
        let rows = try session.rows(
            #"SELECT "user", name FROM account WHERE "user" IN (\#(session.engine.jsonArrayValues))"#, [users.sqlJSONArray])
        return Dictionary(rows.map { ($0["user"], $0["name"]) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Changing the household

    /// Writes the rows of a household that had none (the user alone in the one of their own).
    @discardableResult
    static func materialize(_ session: any SQLSession, user: String, now: Date) throws -> Household {
        let household = try household(session, user: user)
        guard try session.value(Int.self, "SELECT 1 FROM household WHERE id = ?", [household.id]) == nil else { return household }
        try session.execute(
            "INSERT INTO household (id, name, owner, people, created_at) VALUES (?, ?, ?, NULL, ?)",
            [household.id, defaultName, user, now.timeIntervalSince1970])
        // The member since the account was made, as the household of their own always showed.
        let since = household.members.first?.joinedAt.timeIntervalSince1970 ?? now.timeIntervalSince1970
        try session.execute(
            #"INSERT INTO household_member ("user", household, may_invite, joined_at) VALUES (?, ?, 1, ?)"#, [user, household.id, since])
        return try self.household(session, user: user)
    }

    /// The owner's change of the name or the number of people.
    func update(_ update: HouseholdUpdate, user: String, now: Date) throws(ServiceError) -> HouseholdInfo {
        var name: String?
        if let given = update.name {
            let trimmed = given.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...80).contains(trimmed.count), !trimmed.contains(where: \.isNewline) else {
                throw .badRequest("a household's name is 1 to 80 characters on one line", field: "name")
            }
            name = trimmed
        }
        if let people = update.people, people != 0, !Self.peopleRange.contains(people) {
            throw .badRequest(
                "people is \(Self.peopleRange.lowerBound) to \(Self.peopleRange.upperBound), or 0 for the number of members", field: "people")
        }
        guard name != nil || update.people != nil else { throw .badRequest("give a name, people, or both", field: "name") }
        return try storage {
            try database.write { session in
                let household = try Self.materialize(session, user: user, now: now)
                try Self.requireOwner(household, user: user, to: "change the household")
                if let name { try session.execute("UPDATE household SET name = ? WHERE id = ?", [name, household.id]) }
                if let people = update.people {
                    try session.execute("UPDATE household SET people = ? WHERE id = ?", [people == 0 ? nil : people, household.id])
                }
                return try Self.info(session, user: user)
            }
        }
    }

    /// A new single-use invitation to the caller's household.
    func invite(user: String, days: Int?, now: Date) throws(ServiceError) -> NewInvitation {
        let days = days ?? Self.defaultInvitationDays
        guard Self.invitationDays.contains(days) else {
            throw .badRequest("days is \(Self.invitationDays.lowerBound) to \(Self.invitationDays.upperBound)", field: "days")
        }
        let code = InvitationCode.random()
        return try storage {
            try database.write { session in
                let household = try Self.materialize(session, user: user, now: now)
                guard household.owner == user || household.members.contains(where: { $0.user == user && $0.mayInvite }) else {
                    throw ServiceError(.forbidden, "only the household's owner, or a member the owner allowed, may invite")
                }
                let pending = try Self.pendingInvitations(session, household: household.id, now: now)
                guard pending.count < Self.maxPendingInvitations else {
                    throw ServiceError.conflict(
                        "the household has \(Self.maxPendingInvitations) pending invitations: revoke one first", field: "days")
                }
                let invitation = Invitation(
                    id: "i-" + Hex.encode(Sodium.randomBytes(8)), createdBy: user, createdAt: now,
                    expiresAt: now.addingTimeInterval(Double(days) * 86_400))
                try session.execute(
                    """
                    INSERT INTO household_invitation (id, code_digest, household, created_by, created_at, expires_at, used_by, revoked)
                    VALUES (?, ?, ?, ?, ?, ?, NULL, 0)
                    """,
                    [
                        invitation.id, InvitationCode.digest(code), household.id, user, now.timeIntervalSince1970,
                        invitation.expiresAt.timeIntervalSince1970,
                    ])
                return NewInvitation(code: code, invitation: invitation)
            }
        }
    }

    func invitations(user: String, now: Date) throws(ServiceError) -> Invitations {
        try storage {
            try database.read { session in
                Invitations(invitations: try Self.pendingInvitations(session, household: try Self.householdID(session, user: user), now: now))
            }
        }
    }

    /// The owner revokes any pending invitation; a member, those they made.
    func revokeInvitation(_ id: String, user: String, now: Date) throws(ServiceError) -> Invitations {
        try storage {
            try database.write { session in
                let household = try Self.household(session, user: user)
                guard let invitation = try Self.pendingInvitations(session, household: household.id, now: now).first(where: { $0.id == id }) else {
                    throw ServiceError.notFound("your household has no pending invitation \(id)", field: "id")
                }
                guard household.owner == user || invitation.createdBy == user else {
                    throw ServiceError(.forbidden, "only the owner or whoever made an invitation may revoke it")
                }
                try session.execute("UPDATE household_invitation SET revoked = 1 WHERE id = ?", [id])
                return Invitations(invitations: try Self.pendingInvitations(session, household: household.id, now: now))
            }
        }
    }

    private static func pendingInvitations(_ session: any SQLSession, household: String, now: Date) throws -> [Invitation] {
        try session.rows(
            """
            SELECT id, created_by, created_at, expires_at FROM household_invitation
            WHERE household = ? AND used_by IS NULL AND revoked = 0 AND expires_at > ? ORDER BY created_at DESC, id
            """, [household, now.timeIntervalSince1970]
        ).map { row in
            Invitation(
                id: row["id"], createdBy: row["created_by"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
                expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
        }
    }

    /// A change of membership: who moved, between which households, and the households nobody
    /// belongs to any more (whose shared rows the other services must erase).
    struct Moved: Sendable {
        let info: HouseholdInfo
        let households: [String]
        let users: [String]
        let dissolved: [String]
    }

    /// Moves the user into the household of an invitation's code.
    func join(code: String, user: String, now: Date, erasingIn services: [SousService]) throws(ServiceError) -> Moved {
        guard let normalized = InvitationCode.normalized(code) else {
            throw .badRequest("an invitation code is 12 letters and digits (XXXX-XXXX-XXXX)", field: "code")
        }
        return try storage {
            try database.write { session in
                guard
                    let row = try session.rows(
                        "SELECT id, household, expires_at, used_by, revoked FROM household_invitation WHERE code_digest = ?",
                        [InvitationCode.digest(normalized)]
                    ).first
                else { throw ServiceError.notFound("no invitation has this code: check it, or ask for a new one", field: "code") }
                let target: String = row["household"]
                if (row["revoked"] as Int64) != 0 { throw ServiceError.conflict("this invitation was revoked: ask for a new one", field: "code") }
                if (row["used_by"] as String?) != nil {
                    throw ServiceError.conflict("this invitation was already used: ask for a new one", field: "code")
                }
                let expiresAt = Date(timeIntervalSince1970: row["expires_at"])
                guard expiresAt > now else {
                    throw ServiceError.conflict(
                        "this invitation expired at \(ISO8601DateFormatter().string(from: expiresAt)): ask for a new one", field: "code")
                }
                let current = try Self.household(session, user: user)
                guard current.id != target else { throw ServiceError.conflict("you are already in this household", field: "code") }
                try session.execute("UPDATE household_invitation SET used_by = ? WHERE id = ?", [user, row["id"] as String])
                let dissolved = try Self.depart(session, from: current, user: user, now: now, erasingIn: services)
                try session.execute(
                    #"INSERT INTO household_member ("user", household, may_invite, joined_at) VALUES (?, ?, 0, ?)"#,
                    [user, target, now.timeIntervalSince1970])
                // Those left behind have one member fewer: their households changed too.
                return Moved(
                    info: try Self.info(session, user: user), households: [current.id, target], users: current.members.map(\.user),
                    dissolved: dissolved)
            }
        }
    }

    /// The caller leaves for a new household of their own.
    func leave(user: String, now: Date, erasingIn services: [SousService]) throws(ServiceError) -> Moved {
        try storage {
            try database.write { session in
                let current = try Self.household(session, user: user)
                guard current.members.count > 1 else {
                    throw ServiceError.conflict("you are the only member of your household: there is nobody to leave", field: "household")
                }
                guard current.owner != user else {
                    throw ServiceError.conflict(
                        "you own the household and others are in it: hand ownership to one of them first (household.transfer)", field: "household")
                }
                _ = try Self.depart(session, from: current, user: user, now: now, erasingIn: services)
                let own = try Self.startOwn(session, user: user, now: now)
                return Moved(
                    info: try Self.info(session, user: user), households: [current.id, own], users: current.members.map(\.user), dissolved: [])
            }
        }
    }

    /// The owner removes a member, who is then alone in a new household of their own.
    func remove(_ member: String, user: String, now: Date) throws(ServiceError) -> Moved {
        try storage {
            try database.write { session in
                let household = try Self.household(session, user: user)
                try Self.requireOwner(household, user: user, to: "remove a member")
                guard member != user else {
                    throw ServiceError.badRequest("the owner cannot remove themselves: hand ownership on, then leave", field: "user")
                }
                try Self.requireMember(household, member)
                try session.execute(#"DELETE FROM household_member WHERE "user" = ?"#, [member])
                let own = try Self.startOwn(session, user: member, now: now)
                return Moved(info: try Self.info(session, user: user), households: [household.id, own], users: [member], dissolved: [])
            }
        }
    }

    /// The owner hands ownership to another member.
    func transfer(to member: String, user: String) throws(ServiceError) -> HouseholdInfo {
        try storage {
            try database.write { session in
                let household = try Self.household(session, user: user)
                try Self.requireOwner(household, user: user, to: "hand ownership on")
                guard member != user else { throw ServiceError.badRequest("you already own the household", field: "user") }
                try Self.requireMember(household, member)
                try session.execute("UPDATE household SET owner = ? WHERE id = ?", [member, household.id])
                try session.execute(#"UPDATE household_member SET may_invite = 1 WHERE "user" = ?"#, [member])
                return try Self.info(session, user: user)
            }
        }
    }

    func allowInvites(_ permission: InvitePermission, user: String) throws(ServiceError) -> HouseholdInfo {
        try storage {
            try database.write { session in
                let household = try Self.household(session, user: user)
                try Self.requireOwner(household, user: user, to: "change who may invite")
                guard permission.user != user else { throw ServiceError.badRequest("the owner may always invite", field: "user") }
                try Self.requireMember(household, permission.user)
                try session.execute(#"UPDATE household_member SET may_invite = ? WHERE "user" = ?"#, [permission.mayInvite ? 1 : 0, permission.user])
                return try Self.info(session, user: user)
            }
        }
    }

    /// Takes the user out of `household` for an account's deletion: ownership passes to the
    /// member who has been there longest; a household left empty is dissolved. Returns the
    /// households dissolved.
    static func removeForDeletion(_ session: any SQLSession, user: String, now: Date, erasingIn services: [SousService]) throws -> [String] {
        let household = try household(session, user: user)
        // Nothing of the user stays in the invitations: theirs that were never used go, and their
        // id is blanked where an invitation names them as its maker or its user.
        try session.execute("DELETE FROM household_invitation WHERE created_by = ? AND used_by IS NULL", [user])
        try session.execute("UPDATE household_invitation SET created_by = '' WHERE created_by = ?", [user])
        try session.execute("UPDATE household_invitation SET used_by = '' WHERE used_by = ?", [user])
        return try depart(session, from: household, user: user, now: now, erasingIn: services)
    }

    /// Takes `user` out of `household`. A household nobody is left in goes with every row it
    /// shared here, and its erasure is queued for `services`; an owner leaving others behind
    /// hands ownership to the member who has been there longest.
    private static func depart(
        _ session: any SQLSession, from household: Household, user: String, now: Date, erasingIn services: [SousService]
    ) throws -> [String] {
        let others = household.members.filter { $0.user != user }
        try session.execute(#"DELETE FROM household_member WHERE "user" = ?"#, [user])
        guard others.isEmpty else {
            if household.owner == user, let heir = others.min(by: { ($0.joinedAt, $0.user) < ($1.joinedAt, $1.user) }) {
                try session.execute("UPDATE household SET owner = ? WHERE id = ?", [heir.user, household.id])
                try session.execute(#"UPDATE household_member SET may_invite = 1 WHERE "user" = ?"#, [heir.user])
            }
            return []
        }
        try session.execute("DELETE FROM household WHERE id = ?", [household.id])
        _ = try SousDatabase.erase(owner: household.id, columns: [SousDatabase.householdColumn], in: session)
        for service in services {
            try session.execute(
                """
                INSERT INTO household_erasure (dissolved, service, requested_at) VALUES (?, ?, ?)
                ON CONFLICT (dissolved, service) DO NOTHING
                """, [household.id, service.rawValue, now.timeIntervalSince1970])
        }
        return [household.id]
    }

    /// A new household with the user alone in it; its id is new, never the user's own (which a
    /// household they founded and left may still carry).
    private static func startOwn(_ session: any SQLSession, user: String, now: Date) throws -> String {
        let id = "h-" + Hex.encode(Sodium.randomBytes(12))
        try session.execute(
            "INSERT INTO household (id, name, owner, people, created_at) VALUES (?, ?, ?, NULL, ?)",
            [id, defaultName, user, now.timeIntervalSince1970])
        try session.execute(
            #"INSERT INTO household_member ("user", household, may_invite, joined_at) VALUES (?, ?, 1, ?)"#, [user, id, now.timeIntervalSince1970])
        return id
    }

    private static func requireOwner(_ household: Household, user: String, to action: String) throws(ServiceError) {
        guard household.owner == user else { throw ServiceError(.forbidden, "only the household's owner may \(action)") }
    }

    private static func requireMember(_ household: Household, _ user: String) throws(ServiceError) {
        guard household.members.contains(where: { $0.user == user }) else {
            throw ServiceError.notFound("\(user) is not a member of your household", field: "user")
        }
    }

    // MARK: Erasures of dissolved households

    func pendingErasures() throws(ServiceError) -> [(household: String, service: SousService)] {
        try storage {
            try database.read { session in
                try session.rows("SELECT dissolved, service FROM household_erasure ORDER BY requested_at, dissolved, service").compactMap { row in
                    SousService(rawValue: row["service"]).map { (household: row["dissolved"] as String, service: $0) }
                }
            }
        }
    }

    func erasureDone(household: String, service: SousService) throws(ServiceError) {
        try storage {
            try database.write { session in
                _ = try session.execute("DELETE FROM household_erasure WHERE dissolved = ? AND service = ?", [household, service.rawValue])
            }
        }
    }

    func storage<T>(_ work: () throws -> T) throws(ServiceError) -> T {
        try ServiceError.storage("household storage failed", work)
    }
}
