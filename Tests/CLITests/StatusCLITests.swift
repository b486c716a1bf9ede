import Foundation
import SousRuntime
import SousServiceTesting
import SousTestSupport
import Testing

@Suite(.closesItsSockets)
struct StatusCLITests {
    /// `sous status --json` against all five services: every one up, and a healthy database's
    /// detail ("N migrations applied") is not reported as an error.
    @Test func healthyServicesHaveNoError() async throws {
        let stack = try StackFixture.make()
        try await withRunningServices(stack.hosts) { hosts in
            var flags: [String] = []
            for host in hosts { flags += ["--\(host.name)", host.boundEndpoints.requests] }
            let status = await sous(["status", "--json"] + flags)
            #expect(status.code == 0, "\(status.err)")
            let rows = try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [[String: Any]] ?? []
            #expect(rows.count == 5)
            for row in rows {
                #expect(row["up"] as? Bool == true && row["error"] == nil && row["database"] as? String == "ok", "\(row)")
                #expect((row["detail"] as? String)?.contains("migration") == true, "\(row)")
            }
        }
    }
}
