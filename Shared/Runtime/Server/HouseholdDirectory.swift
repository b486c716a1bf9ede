import Logging
import SousClient
public import SousWire
import Synchronization

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
/// the moment the planner answered the change. While the planner cannot answer (down, or not
/// keeping up), the last answer it gave for the user stands in, so a list already open in a
/// shop stays usable; a user it never answered for gets its `unavailable`.
public final class PlannerHouseholds: HouseholdDirectory {
    let planner: Peer<Planner>
    private let lastKnown = Mutex<[String: String]>([:])
    /// Users remembered; past this, the memory starts over.
    static let remembered = 100_000

    public init(of configuration: ServiceConfiguration) {
        planner = Peer(Planner.self, of: configuration)
    }

    public func household(of user: String, for context: RequestContext) async throws(ServiceError) -> String {
        try await household(of: user, for: context, need: .required)
    }

    /// With `need: .optional` the planner gets one short attempt (``Peer/Need``): for a caller
    /// that does without a household when there is none to be had.
    public func household(of user: String, for context: RequestContext, need: Peer<Planner>.Need) async throws(ServiceError) -> String {
        do {
            let household = try await planner.call(HouseholdLookup.method, Empty(), user: user, for: context, need: need).household
            lastKnown.withLock { known in
                if known.count >= Self.remembered { known.removeAll() }
                known[user] = household
            }
            return household
        } catch {
            guard error.code == .unavailable || error.code == .timeout, let known = lastKnown.withLock({ $0[user] }) else { throw error }
            context.logger.notice("the planner did not answer: the household last known for the user stands in", metadata: ["error": "\(error)"])
            return known
        }
    }
}

/// Everyone alone in the household of their own: for a service run without a planner (tests of
/// one service).
public struct EveryoneAlone: HouseholdDirectory {
    public init() {}

    public func household(of user: String, for context: RequestContext) throws(ServiceError) -> String { user }
}

/// A server's household directory, set once its service is built.
final class HouseholdDirectorySlot: Sendable {
    private let value = Mutex<(any HouseholdDirectory)?>(nil)

    var directory: (any HouseholdDirectory)? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
