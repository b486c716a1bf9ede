public import CatalogService
import CatalogTesting
public import GroceriesService
public import NotifierService
import NotifierTesting
public import PlannerService
public import SousCrypto
public import SousRuntime
import SousSchema
import SousTestSupport
public import SousWire
public import TrackerService

/// All five services in-process, each knowing the others' endpoints: what a test of the whole
/// system (accounts, erasure, access across services) runs against. Run `hosts` with
/// `withRunningServices`.
public struct StackFixture: Sendable {
    public let catalog: CatalogService
    public let planner: PlannerService
    public let groceries: GroceriesService
    public let tracker: TrackerService
    public let notifier: NotifierService

    public var hosts: [ServiceHost] { [catalog.host, planner.host, groceries.host, tracker.host, notifier.host] }

    /// Each service's database, by service name.
    public var databases: [String: SousDatabase] {
        [
            "catalog": catalog.store.database, "planner": planner.store.database, "groceries": groceries.store.database,
            "tracker": tracker.store.database, "notifier": notifier.store.database,
        ]
    }

    /// - Parameter passwordCost: the planner's Argon2id cost (tests that only need accounts to
    ///   exist use the minimal one).
    public static func make(
        clock: WallClock = .system(), passwordCost: Sodium.PasswordCost = .minimal, mail: AccountMail = AccountMail(settings: nil, webURL: nil)
    ) throws -> StackFixture {
        var configurations: [SousService: ServiceConfiguration] = [:]
        for service in SousService.allCases { configurations[service] = .inProcess(service, clock: clock) }
        for service in SousService.allCases {
            for peer in SousService.allCases where peer != service {
                configurations[service]!.peers[peer] = ServiceEndpoints(
                    requests: configurations[peer]!.bind, events: configurations[peer]!.eventsBind)
            }
        }
        return StackFixture(
            catalog: try CatalogService(
                configuration: configurations[.catalog]!, seed: CatalogFixture.seed, logger: quietLogger("catalog"),
                database: CatalogFixture.database(), copyOf: CatalogFixture.template, fetchPolicy: CatalogFixture.fetchPolicy
            ),
            planner: try PlannerService(
                configuration: configurations[.planner]!, logger: quietLogger("planner"), passwordCost: passwordCost, mail: mail
            ),
            groceries: try GroceriesService(
                configuration: configurations[.groceries]!, logger: quietLogger("groceries")),
            tracker: try TrackerService(
                configuration: configurations[.tracker]!, logger: quietLogger("tracker")),
            notifier: try NotifierService(
                configuration: configurations[.notifier]!, logger: quietLogger("notifier"), options: NotifierOptions(startupGrace: .zero),
                channels: NotifierFixture.loopbackChannels(mail: mail.settings)
            )
        )
    }

    /// A client of `service` with a 30 s timeout per attempt.
    public func client<Service: PeerService>(_ service: Service.Type, session: String? = nil) -> ServiceClient<Service> {
        ServiceClient<Service>(
            endpoint: host(of: Service.service).boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0), session: session)
    }

    /// A client of `service` for the methods every service answers.
    public func anyClient(_ service: SousService, session: String? = nil) -> ServiceClient<AnyService> {
        ServiceClient<AnyService>(
            endpoint: host(of: service).boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0), session: session,
            name: service.rawValue
        )
    }

    public func host(of service: SousService) -> ServiceHost {
        switch service {
        case .catalog: catalog.host
        case .planner: planner.host
        case .groceries: groceries.host
        case .tracker: tracker.host
        case .notifier: notifier.host
        }
    }
}
