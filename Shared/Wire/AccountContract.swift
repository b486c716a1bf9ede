public import MessagePack

// The account contract every service relies on, kept in the wire module so that the runtime
// (which checks sessions and erases users) does not depend on the whole schema. The planner
// serves the rest of `AccountAPI` (Shared/Schema/Accounts.swift).

/// What an account may do beyond its own data.
@MessagePackCodable
public enum AccountRole: String, Codable, Sendable, CaseIterable {
    case user
    /// May change what every user shares (imports, seed reloads, the clock).
    case `operator`
}

/// What one service erased for `account.erase`.
@MessagePackCodable
public struct ErasureReport: Codable, Sendable, Equatable {
    public var service: String
    /// Rows deleted, by table (rows deleted through a cascade are not counted).
    public var rows: [String: Int]

    public init(service: String, rows: [String: Int]) {
        self.service = service
        self.rows = rows
    }
}

/// A household whose shared rows go (`household.erase`).
@MessagePackCodable
public struct HouseholdRef: Codable, Sendable, Equatable {
    public var household: String

    public init(household: String) {
        self.household = household
    }
}

/// The household a user belongs to (`household.of`).
@MessagePackCodable
public struct HouseholdOf: Codable, Sendable, Equatable {
    public var household: String
    /// How many people belong to it (1 for a person alone).
    public var members: Int

    public init(household: String, members: Int) {
        self.household = household
        self.members = members
    }
}

/// How another service finds the household of the user it acts for (``HouseholdDirectory``).
public enum HouseholdLookup {
    /// Served by the planner, for services only; `activity: false`, since a lookup is not the user doing something.
    public static let method = Method<Planner, Empty, HouseholdOf>.read("household.of", .service, activity: false)
    /// Answered by every service: deletes the rows a household shared (every table's
    /// `household` column), once nobody belongs to it any more.
    public static let erase = Method<AnyService, HouseholdRef, ErasureReport>.write("household.erase", .service, remembersReply: false)
}

@MessagePackCodable
public struct RevocationsSince: Codable, Sendable {
    /// The `sequence` of the last answer; 0 for every revocation still in force.
    public var since: Int64

    public init(since: Int64) {
        self.since = since
    }
}

/// One ended session, as `account.revocations` lists it.
@MessagePackCodable
public struct RevokedSession: Codable, Sendable, Equatable {
    public var session: String
    /// Unix seconds when its token expires: the revocation matters until then.
    public var expires: Int64

    public init(session: String, expires: Int64) {
        self.session = session
        self.expires = expires
    }
}

@MessagePackCodable
public struct Revocations: Codable, Sendable {
    public var revoked: [RevokedSession]
    /// Pass it as `since` next time.
    public var sequence: Int64

    public init(revoked: [RevokedSession], sequence: Int64) {
        self.revoked = revoked
        self.sequence = sequence
    }
}

/// Published by the planner on its service bus when sessions end: a hint to fetch
/// `account.revocations` now rather than at the next poll.
@MessagePackCodable
public struct SessionsRevokedEvent: Codable, Sendable {
    public var sequence: Int64

    public init(sequence: Int64) {
        self.sequence = sequence
    }
}

public enum AccountAPI {
    /// Sessions ended since `since`: every service polls it (and listens for
    /// ``SessionsRevokedEvent``) so that an ended session stops working everywhere within 2 s.
    public static let revocations = Method<Planner, RevocationsSince, Revocations>.read("account.revocations", .service, lane: .control)
    /// Answered by every service: deletes every row of the user the calling service acts for.
    public static let erase = Method<AnyService, Empty, ErasureReport>.write("account.erase", .service, remembersReply: false)
}

public enum AccountTopics {
    /// ``SessionsRevokedEvent`` on the planner's service bus.
    public static let revoked = Topic<SessionsRevokedEvent>("account.revoked")
}

/// A friend as another service sees them (`friends.of`): who they are and what they share with
/// the user asked for.
@MessagePackCodable
public struct FriendShare: Codable, Sendable, Equatable {
    public var user: String
    /// The friend's display name.
    public var name: String
    /// Whether the friend shares their daily summary with the user.
    public var sharesSummary: Bool
    /// Whether the friend takes part in the weekly board.
    public var competes: Bool

    public init(user: String, name: String, sharesSummary: Bool, competes: Bool) {
        self.user = user
        self.name = name
        self.sharesSummary = sharesSummary
        self.competes = competes
    }
}

/// A user's friends and what each shares with them (`friends.of`).
@MessagePackCodable
public struct FriendsOf: Codable, Sendable, Equatable {
    /// Whether the user takes part in the weekly board themselves.
    public var competes: Bool
    public var friends: [FriendShare]

    public init(competes: Bool, friends: [FriendShare]) {
        self.competes = competes
        self.friends = friends
    }
}

/// How another service finds what a user's friends share with them (``FriendDirectory``).
public enum FriendLookup {
    /// Served by the planner, for services only.
    public static let method = Method<Planner, Empty, FriendsOf>.read("friends.of", .service, activity: false)
}

/// A request of a ``Access/friend`` method: the friend whose shared data it reads, or nil for
/// the caller's own.
public protocol FriendScoped {
    var friend: String? { get }
}
