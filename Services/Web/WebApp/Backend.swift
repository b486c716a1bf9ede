import SousClient
import SousSchema
import SousWire

/// The five services as the web app calls them: typed clients over ZeroMQ (CURVE to anything
/// but `inproc`), each call made with the signed-in person's session token.
public final class Backend: Sendable {
    let catalog: ServiceClient<Catalog>
    let planner: ServiceClient<Planner>
    let groceries: ServiceClient<Groceries>
    let tracker: ServiceClient<Tracker>
    let notifier: ServiceClient<Notifier>
    let clients: SousClients
    /// The groceries service for long polls (`groceries.wait`, up to 15 s): one attempt, no retry.
    let watcher: ServiceClient<Groceries>

    public init(configuration: WebConfiguration) {
        func client<Service: PeerService>(_ service: Service.Type) -> ServiceClient<Service> {
            let endpoint = configuration.endpoints[Service.service] ?? ServiceEndpoints.localDefault(for: Service.service).requests
            return ServiceClient<Service>(
                endpoint: endpoint,
                options: .init(timeout: .seconds(3), retries: 2, callLimit: configuration.callLimit),
                curve: UserClientKeys.curve(
                    for: Service.service, endpoint: endpoint, keysDirectory: configuration.keysDirectory, keyPair: configuration.keyPair)
            )
        }
        catalog = client(Catalog.self)
        planner = client(Planner.self)
        groceries = client(Groceries.self)
        tracker = client(Tracker.self)
        notifier = client(Notifier.self)
        let groceriesEndpoint = configuration.endpoints[.groceries] ?? ServiceEndpoints.localDefault(for: .groceries).requests
        watcher = ServiceClient<Groceries>(
            endpoint: groceriesEndpoint, options: .init(timeout: .seconds(25), retries: 0, callLimit: .seconds(25)),
            curve: UserClientKeys.curve(
                for: .groceries, endpoint: groceriesEndpoint, keysDirectory: configuration.keysDirectory, keyPair: configuration.keyPair))
        clients = SousClients(catalog: catalog, planner: planner, groceries: groceries, tracker: tracker, notifier: notifier)
    }
}
