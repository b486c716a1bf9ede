import CatalogService
import CatalogTesting
import Foundation
import GroceriesService
import Logging
import PlannerService
import SousRuntime
import SousWire

/// A catalog, planner and groceries service in this process over TCP loopback, each on a SQLite
/// file of its own under `directory`, as deployed (in memory, their quick reads would take a
/// queue's slower path: no reader of the I/O thread's own, statements prepared on every read).
struct GroceriesStack {
    let catalog: CatalogService
    let planner: PlannerService
    let groceries: GroceriesService
    let serving: [Task<Void, any Error>]

    init(directory: String, logger: Logger) throws {
        func tcp(_ service: SousService, peers: [SousService: ServiceEndpoints] = [:]) -> ServiceConfiguration {
            var configuration = ServiceConfiguration.inProcess(service, peers: peers)
            configuration.bind = "tcp://127.0.0.1:*"
            configuration.eventsBind = "tcp://127.0.0.1:*"
            configuration.callTimeout = .seconds(10)
            return configuration
        }
        catalog = try CatalogService(
            configuration: tcp(.catalog), seed: try CatalogFixture.seed, logger: logger,
            database: CatalogService.openDatabase(at: .sqlite(directory: "\(directory)/catalog"), logger: logger))
        planner = try PlannerService(
            configuration: tcp(.planner, peers: [.catalog: catalog.host.boundEndpoints]), logger: logger,
            database: PlannerService.openDatabase(at: .sqlite(directory: "\(directory)/planner"), logger: logger))
        groceries = try GroceriesService(
            configuration: tcp(.groceries, peers: [.catalog: catalog.host.boundEndpoints, .planner: planner.host.boundEndpoints]), logger: logger,
            database: GroceriesService.openDatabase(at: .sqlite(directory: directory), logger: logger))
        serving = [catalog.host, planner.host, groceries.host].map { host in Task { try await host.run(signals: false) } }
    }

    func stop() async {
        for task in serving { task.cancel() }
        for task in serving { _ = try? await task.value }
    }
}
