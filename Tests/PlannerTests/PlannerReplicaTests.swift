import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Two planner replicas on one PostgreSQL schema, as a deployment runs them: accounts, sessions and
/// their ends are shared.
@Suite(.closesItsSockets, .enabled(if: TestDatabase.url != nil, "replicas share a PostgreSQL schema (SOUS_TEST_DATABASE_URL)"))
struct PlannerReplicaTests {
    static let password = "correct horse battery staple"

    /// A session ended through one replica stops working on the other: each replica follows the
    /// revocations the other writes (within 2 s; the bound only keeps a broken sync from hanging).
    @Test func aSessionEndedThroughOneReplicaIsRefusedByTheOther() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-planners-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try PlannerService(configuration: .testing(.planner, dataDirectory: directory), logger: quietLogger("planner-1"))
        let second = try PlannerService(configuration: .testing(.planner, dataDirectory: directory), logger: quietLogger("planner-2"))
        try await withRunningServices([first.host, second.host]) { _ in
            let options = ClientOptions(timeout: .seconds(30), retries: 0)
            let onFirst = ServiceClient<Planner>(endpoint: first.host.boundEndpoints.requests, options: options)
            let onSecond = ServiceClient<Planner>(endpoint: second.host.boundEndpoints.requests, options: options)
            _ = try await onFirst.call(AccountAPI.register, Registration(email: "ada@example.org", password: Self.password, name: "Ada"))
            // Signed in through the second replica, known to the first.
            let signedIn = try await onSecond.call(AccountAPI.login, SignIn(email: "ada@example.org", password: Self.password, device: "laptop"))
            _ = try await onFirst.call(PlannerAPI.getProfile, Empty(), session: signedIn.token)

            _ = try await onFirst.call(AccountAPI.logout, Empty(), session: signedIn.token)
            let sequence = first.host.gate.revocations.sequence
            try await withTimeout(.seconds(20), waitingFor: "the second replica to learn of revocation \(sequence)") {
                await second.host.gate.revocations.applied(through: sequence)
            }
            let refused = await #expect(throws: ServiceError.self) {
                try await onSecond.call(PlannerAPI.getProfile, Empty(), session: signedIn.token)
            }
            #expect(refused?.code == .unauthorized)
        }
    }
}
