import Foundation
import PlannerService
import SousCrypto
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import ZeroMQ

/// The web app serves many people from one address. The limits the planner keeps per address
/// (failed sign-ins, registrations of taken emails, recovery requests) count the person the web
/// app names, so one person's failures lock out neither the others nor the web app; and only
/// the web app's key may name one (from anyone else the name is ignored). Over TCP with CURVE,
/// as deployed.
@Suite(.closesItsSockets)
struct WebAppAddressTests {
    static let password = "correct horse battery"
    /// Failed sign-ins one address may make in 10 minutes (LoginThrottle.addressFailures).
    static let addressFailures = 20

    func withPlanner(_ body: (PlannerService, CurveKeyPair) async throws -> Void) async throws {
        // A manual clock: the 10-minute window cannot run out between two calls.
        var configuration = ServiceConfiguration.inProcess(.planner, clock: .manual(at: Date(timeIntervalSince1970: 1_790_000_000)))
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let planner = try PlannerService(configuration: configuration, logger: quietLogger("planner"), passwordCost: .minimal)
        let webApp = try #require(KeySettings.inProcessWebAppKeyPair)
        try await withRunningServices([planner.host]) { _ in try await body(planner, webApp) }
    }

    /// A client of the planner over TCP, with `keyPair` (default: a stranger's fresh one).
    func client(of planner: PlannerService, as keyPair: CurveKeyPair? = nil) throws -> ServiceClient<Planner> {
        let curve = try planner.host.clientCurve(as: keyPair)
        return ServiceClient<Planner>(
            endpoint: planner.host.boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0), curve: { curve })
    }

    func signIn(_ client: ServiceClient<Planner>, _ email: String, password: String = password, for person: String?) async -> ServiceError? {
        do {
            _ = try await client.call(AccountAPI.login, SignIn(email: email, password: password, device: "web"), forwardedFor: person)
            return nil
        } catch {
            return error
        }
    }

    @Test func onePersonsFailedSignInsThroughTheWebAppLockOutOnlyThatPerson() async throws {
        try await withPlanner { planner, webAppKey in
            let web = try client(of: planner, as: webAppKey)
            _ = try await web.call(
                AccountAPI.register, Registration(email: "ada@example.org", password: Self.password, name: "Ada"), forwardedFor: "203.0.113.9")
            // Someone at 198.51.100.7 tries twenty accounts that do not exist.
            for attempt in 0..<Self.addressFailures {
                let failed = await signIn(web, "nobody\(attempt)@example.org", password: "a wrong guess", for: "198.51.100.7")
                #expect(failed?.code == .unauthorized, "attempt \(attempt)")
            }
            let refused = await signIn(web, "ada@example.org", for: "198.51.100.7")
            #expect(refused?.code == .rateLimited, "that person waits, even with the right password")
            #expect(await signIn(web, "ada@example.org", for: "203.0.113.9") == nil, "Ada, elsewhere, signs in through the same web app")
            #expect(await signIn(web, "ada@example.org", for: nil) == nil, "the web app's own address is not blocked either")

            for hostile in ["", "198.51.100.7\r\nX: y", String(repeating: "9", count: 65), "203.0.113.9 "] {
                let bad = await signIn(web, "ada@example.org", for: hostile)
                #expect(bad?.code == .badRequest && bad?.field == "header.forwardedFor", "\(hostile.debugDescription): \(String(describing: bad))")
            }

            // Anyone else naming an address is counted at their own: naming a new one for each
            // guess does not get a stranger past the limit.
            let stranger = try client(of: planner)
            for attempt in 0..<Self.addressFailures {
                let failed = await signIn(stranger, "someone\(attempt)@example.org", password: "a wrong guess", for: "192.0.2.\(attempt)")
                #expect(failed?.code == .unauthorized, "attempt \(attempt)")
            }
            let strangerRefused = await signIn(stranger, "ada@example.org", for: "192.0.2.250")
            #expect(strangerRefused?.code == .rateLimited, "\(String(describing: strangerRefused))")
        }
    }
}
