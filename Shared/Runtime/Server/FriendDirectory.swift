import Logging
import SousClient
public import SousWire
import Synchronization

/// Where a service finds what a user's friends share with them, for the methods that read it
/// (``Access/friend``). The planner keeps the friendships; every other service asks it on each
/// call (``PlannerFriends``), so an ended friendship or a share switched off holds from the
/// moment the planner answered it.
public protocol FriendDirectory: Sendable {
    func friends(of user: String, for context: RequestContext) async throws(ServiceError) -> FriendsOf
}

/// The planner's answer to another service. Unlike a household, nothing stands in while the
/// planner cannot answer: a friend's data is never shown on an answer that may be out of date.
public struct PlannerFriends: FriendDirectory {
    let planner: Peer<Planner>

    public init(of configuration: ServiceConfiguration) {
        planner = Peer(Planner.self, of: configuration)
    }

    public func friends(of user: String, for context: RequestContext) async throws(ServiceError) -> FriendsOf {
        try await planner.call(FriendLookup.method, Empty(), user: user, for: context)
    }
}

/// Nobody has friends: for a service run without a planner (tests of one service).
public struct NobodysFriends: FriendDirectory {
    public init() {}

    public func friends(of user: String, for context: RequestContext) throws(ServiceError) -> FriendsOf {
        FriendsOf(competes: false, friends: [])
    }
}

/// A server's friend directory, set once its service is built.
final class FriendDirectorySlot: Sendable {
    private let value = Mutex<(any FriendDirectory)?>(nil)

    var directory: (any FriendDirectory)? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

extension FriendsOf {
    /// Whom a ``Access/friend`` request reads: the caller, or the friend it names if that friend
    /// shares their summary with the caller. Any other name is refused with the same words, so
    /// the answer never tells a stranger from a friend who does not share.
    func subject(named: String?, caller: String, method: String) throws(ServiceError) -> String {
        guard let named, named != caller else { return caller }
        guard friends.contains(where: { $0.user == named && $0.sharesSummary }) else {
            throw ServiceError(.forbidden, "\(method): \(named) is not a friend who shares their progress with you", field: "friend")
        }
        return named
    }
}
