public import Foundation
public import MessagePack
public import SousWire

// Households live in the planner (docs/PROTOCOL.md, "Households"). The people of one household
// share its week plan and its grocery list; everything else stays each person's own.

/// A member's place in the household.
@MessagePackCodable
public enum HouseholdRole: String, Codable, Sendable, CaseIterable {
    /// Invites, removes members, renames, hands ownership on. One per household.
    case owner
    case member
}

@MessagePackCodable
public struct HouseholdMember: Codable, Sendable, Equatable {
    public var user: String
    /// The account's display name ("" for a user without an account).
    public var name: String
    public var role: HouseholdRole
    /// Whether the member may invite others (always true for the owner).
    public var mayInvite: Bool
    public var joinedAt: Date

    public init(user: String, name: String, role: HouseholdRole, mayInvite: Bool, joinedAt: Date) {
        self.user = user
        self.name = name
        self.role = role
        self.mayInvite = mayInvite
        self.joinedAt = joinedAt
    }
}

/// The caller's household (`household.get` and every household change).
@MessagePackCodable
public struct HouseholdInfo: Codable, Sendable, Equatable {
    /// Opaque. A person who never shared a household is alone in one whose id is their user id.
    public var id: String
    public var name: String
    /// Members, the owner first, then in the order they joined.
    public var members: [HouseholdMember]
    /// How many people the plan and the list are scaled for: `peopleOverride` when set, else
    /// the number of members (for one person alone: their profile's `people`, as always).
    public var people: Int
    /// Set by the owner for guests or children without an account; nil follows the members.
    public var peopleOverride: Int?

    public init(id: String, name: String, members: [HouseholdMember], people: Int, peopleOverride: Int?) {
        self.id = id
        self.name = name
        self.members = members
        self.people = people
        self.peopleOverride = peopleOverride
    }
}

/// `household.update`: what the owner changes; absent fields stay as they are.
@MessagePackCodable
public struct HouseholdUpdate: Codable, Sendable, Equatable {
    /// 1 to 80 characters.
    public var name: String?
    /// 1 to 20; 0 clears it (the number of members again).
    public var people: Int?

    public init(name: String? = nil, people: Int? = nil) {
        self.name = name
        self.people = people
    }
}

/// `household.invite`.
@MessagePackCodable
public struct InvitationRequest: Codable, Sendable, Equatable {
    /// Days until the code expires: 1 to 30 (default 7).
    public var days: Int?

    public init(days: Int? = nil) {
        self.days = days
    }
}

/// A pending invitation. The code itself is shown once, when it is made (``NewInvitation``).
@MessagePackCodable
public struct Invitation: Codable, Sendable, Equatable {
    /// Names the invitation for `household.revokeInvitation`; it is not the code.
    public var id: String
    /// Who made it.
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: String, createdBy: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// `household.invite`'s answer: the single-use code to give the person invited.
@MessagePackCodable
public struct NewInvitation: Codable, Sendable, Equatable {
    /// 14 characters, `XXXX-XXXX-XXXX` (letters and digits that cannot be mistaken for each
    /// other); accepted in any case, with or without the dashes.
    public var code: String
    public var invitation: Invitation

    public init(code: String, invitation: Invitation) {
        self.code = code
        self.invitation = invitation
    }
}

@MessagePackCodable
public struct Invitations: Codable, Sendable, Equatable {
    /// Pending (neither used, revoked nor expired), newest first.
    public var invitations: [Invitation]

    public init(invitations: [Invitation]) {
        self.invitations = invitations
    }
}

@MessagePackCodable
public struct InvitationRef: Codable, Sendable, Equatable {
    public var id: String

    public init(id: String) {
        self.id = id
    }
}

/// `household.join`.
@MessagePackCodable
public struct JoinHousehold: Codable, Sendable, Equatable {
    public var code: String

    public init(code: String) {
        self.code = code
    }
}

/// `household.remove`, `household.transfer`.
@MessagePackCodable
public struct MemberRef: Codable, Sendable, Equatable {
    public var user: String

    public init(user: String) {
        self.user = user
    }
}

/// `household.allowInvites`.
@MessagePackCodable
public struct InvitePermission: Codable, Sendable, Equatable {
    public var user: String
    public var mayInvite: Bool

    public init(user: String, mayInvite: Bool) {
        self.user = user
        self.mayInvite = mayInvite
    }
}

/// Published on the planner's bus when people join or leave a household: the households and
/// the users whose household changed.
@MessagePackCodable
public struct HouseholdChangedEvent: Codable, Sendable, Equatable {
    public var households: [String]
    public var users: [String]

    public init(households: [String], users: [String]) {
        self.households = households
        self.users = users
    }
}

public enum HouseholdAPI {
    public static let get = Method<Planner, Empty, HouseholdInfo>.read("household.get", .user, activity: false)
    /// Owner only.
    public static let update = Method<Planner, HouseholdUpdate, HouseholdInfo>.write("household.update", .user)
    /// The owner, or a member the owner allowed.
    public static let invite = Method<Planner, InvitationRequest, NewInvitation>.write("household.invite", .user)
    public static let invitations = Method<Planner, Empty, Invitations>.read("household.invitations", .user)
    /// The owner, or whoever made it.
    public static let revokeInvitation = Method<Planner, InvitationRef, Invitations>.write("household.revokeInvitation", .user)
    /// Moves the caller into the code's household. The household the caller leaves keeps its
    /// shared plan and list if others remain in it; if nobody does, they are erased.
    public static let join = Method<Planner, JoinHousehold, HouseholdInfo>.write("household.join", .user)
    /// The caller leaves and is alone in a new household of their own (with an empty plan and
    /// list). An owner hands ownership on first (`household.transfer`).
    public static let leave = Method<Planner, Empty, HouseholdInfo>.write("household.leave", .user)
    /// Owner only: the member removed is alone in a new household of their own.
    public static let remove = Method<Planner, MemberRef, HouseholdInfo>.write("household.remove", .user)
    /// Owner only: another member becomes the owner.
    public static let transfer = Method<Planner, MemberRef, HouseholdInfo>.write("household.transfer", .user)
    /// Owner only.
    public static let allowInvites = Method<Planner, InvitePermission, HouseholdInfo>.write("household.allowInvites", .user)
}

public enum HouseholdTopics {
    /// ``HouseholdChangedEvent`` on the planner's service bus.
    public static let changed = Topic<HouseholdChangedEvent>("household.changed")
}
