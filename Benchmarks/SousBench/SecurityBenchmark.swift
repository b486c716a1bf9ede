import ArgumentParser
import Foundation
import Logging
import PlannerService
import SousCrypto
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire

/// What accounts cost: signing in (Argon2id at the service's cost, alone and through a real
/// planner over CURVE) and checking the caller on each request (the gate).
struct SecurityBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "security",
        abstract: "Sign-in time (Argon2id) and the per-request cost of checking the caller."
    )

    @Option(help: "Sign-ins measured.") var signIns = 30
    @Option(help: "Gate checks measured.") var checks = 200_000

    func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical

        // Sign-in: the hash check alone, then account.login through a planner over CURVE.
        let password = "correct horse battery staple"
        let hash = Sodium.hashPassword(password)!
        var verify = Samples(name: "Argon2id verify (3 passes, 64 MiB)")
        for _ in 0..<signIns { verify.record { _ = Sodium.verifyPassword(password, hash: hash) } }

        var configuration = ServiceConfiguration.inProcess(.planner)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.eventsBind = "tcp://127.0.0.1:*"
        let planner = try PlannerService(
            configuration: configuration, logger: logger, database: PlannerService.openDatabase(at: .sqlite(directory: nil), logger: logger))
        let serving = Task { try await planner.host.run(signals: false) }
        let setup = try planner.host.clientCurve()
        let client = ServiceClient<Planner>(
            endpoint: planner.host.boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0), curve: { setup }
        )
        _ = try await client.call(AccountAPI.register, Registration(email: "bench@example.org", password: password, name: "Bench"))
        var login = Samples(name: "account.login over CURVE (hash check + session)")
        var health = Samples(name: "health over CURVE (same connection, reference)")
        for _ in 0..<signIns {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await client.call(AccountAPI.login, SignIn(email: "bench@example.org", password: password, device: "bench"))
            login.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
            let healthStart = DispatchTime.now().uptimeNanoseconds
            _ = try await client.call(CommonAPI.health, Empty())
            health.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - healthStart)
        }
        report("Signing in (p50 is what a user waits)", [health, verify, login], baseline: health)
        serving.cancel()
        _ = try? await serving.value

        // The check every request passes before its handler.
        let gate = Gate { SessionSigner.inProcess.keyPair.publicKey }
        let token = TestSessions.token(for: "bench")
        let signed = RequestHeader(method: "diary.list", id: "1", session: token)
        let anonymous = RequestHeader(method: "health", id: "1")
        var publicCheck = Samples(name: "gate: public method, no session (baseline)")
        var cached = Samples(name: "gate: user method, token checked before (every request after the first)")
        for _ in 0..<checks {
            try publicCheck.record { _ = try gate.admit(anonymous, from: .client(address: "127.0.0.1"), access: .public) }
            try cached.record { _ = try gate.admit(signed, from: .client(address: "127.0.0.1"), access: .user) }
        }
        var first = Samples(name: "gate: user method, a token never seen (Ed25519 verify)")
        for index in 0..<min(checks / 50, 5_000) {
            let fresh = SessionSigner.inProcess.token(
                for: SessionClaims(session: "s\(index)", user: "u\(index)", role: .user, expires: Int64(Date().timeIntervalSince1970) + 600))
            let header = RequestHeader(method: "diary.list", id: "1", session: fresh)
            try first.record { _ = try gate.admit(header, from: .client(address: "127.0.0.1"), access: .user) }
        }
        report("Checking the caller, per request (no round trip)", [publicCheck, cached, first], baseline: publicCheck)
        try await measureRevocation(password: password)
    }

    /// From the planner ending a session to the last of the other four services applying it
    /// (the announcement on the planner's bus, or the next 1 s poll): the 2 s bound.
    func measureRevocation(password: String) async throws {
        let stack = try StackFixture.make(passwordCost: .minimal)
        try await withRunningServices(stack.hosts) { _ in
            let planner = stack.client(Planner.self)
            _ = try await planner.call(AccountAPI.register, Registration(email: "revoke@example.org", password: password, name: "Revoke"))
            var samples = Samples(name: "session ended → refused by all five services")
            for _ in 0..<20 {
                let signedIn = try await planner.call(AccountAPI.login, SignIn(email: "revoke@example.org", password: password, device: "bench"))
                let start = DispatchTime.now().uptimeNanoseconds
                try await stack.client(Planner.self, session: signedIn.token).call(AccountAPI.logout, Empty())
                let sequence = stack.planner.host.gate.revocations.sequence
                for host in stack.hosts { await host.gate.revocations.applied(through: sequence) }
                samples.nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
            }
            report("Ending a session everywhere (in-process stack)", [samples])
        }
    }
}
