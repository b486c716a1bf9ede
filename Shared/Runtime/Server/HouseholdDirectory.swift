import SousClient
import Synchronization
public import SousWire

/// Where a service finds which household a user belongs to, for the methods whose data the
/// household shares (``Access/household``). The planner keeps the households and answers from
/// its own database; every other service asks the planner (``PlannerHouseholds``).
///
/// A user who never joined or formed a household is alone in one whose id is their own user
/// id, so nothing changes for a person living alone and data written before households
/// existed is already that household's.
public protocol HouseholdDirectory: Sendable {
    /// The id of the household `user` belongs to now.
    func household(of user: String, for context: RequestContext) async throws(ServiceError) -> String
}

/// The planner's answer to another service: the caller's household, asked on every call that
/// needs it, so a member who has left or been removed reaches nothing of the household's from
/// the moment the planner answered the change.
public struct PlannerHouseholds: HouseholdDirectory {
    let planner: Peer<Planner>

    public init(of configuration: ServiceConfiguration) {
        planner = Peer(Planner.self, of: configuration)
    }

    public func household(of user: String, for context: RequestContext) async throws(ServiceError) -> String {
        try await planner.call(HouseholdLookup.method, Empty(), user: user, for: context).household
    }
}

/// A server's household directory, set once its service is built.
final class HouseholdDirectorySlot: Sendable {
    private let value = Mutex<(any HouseholdDirectory)?>(nil)

    var directory: (any HouseholdDirectory)? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
