public import ArgumentParser
import Foundation
import SousWire

/// `sous-<service> check`: asks a running service for `health`; exits 0 when it answers with a
/// healthy database, 1 otherwise. Used by the local run script and the compose health checks.
public struct HealthCheckOptions: ParsableArguments, Sendable {
    @Option(help: "The service's request endpoint (default: env SOUS_<NAME>_ENDPOINT or the local default).")
    public var endpoint: String?

    @Option(help: "Milliseconds to wait for the answer.")
    public var timeoutMs = 2_000

    public init() {}

    /// Prints one line and returns whether the service is healthy.
    public func check(_ service: SousService) async -> Bool {
        let endpoint = endpoint ?? ServiceEndpoints.fromEnvironment(service).requests
        let client = ServiceClient<AnyService>(
            endpoint: endpoint, options: .init(timeout: .milliseconds(timeoutMs), retries: 0),
            curve: UserClientKeys.curve(for: service, endpoint: endpoint),
            name: service.rawValue
        )
        do {
            let report = try await client.call(CommonAPI.health, Empty())
            let healthy = report.database.status != "error"
            print("\(report.service) \(report.version) at \(endpoint): up \(Int(report.uptimeSeconds)) s, database \(report.database.status)")
            return healthy
        } catch {
            print("\(service.rawValue) at \(endpoint): \(error.message)")
            return false
        }
    }
}
