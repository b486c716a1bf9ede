import ArgumentParser
import Foundation
import Logging
import PlannerService
import SousCrypto
import SousMail
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire

/// Whether `account.recover` tells an outsider which emails have an account by its timing:
/// requests for emails with an account (a code and a mail queued) against emails without one,
/// interleaved, on a planner keeping its data in a SQLite file as deployed.
struct RecoveryBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery", abstract: "account.recover for emails with an account against emails without one: the same time?")

    @Option(help: "Accounts (each asked for once or twice, under the three-a-day limit).") var accounts = 3_000
    @Flag(help: "A small run (200 accounts) to check the benchmark works.") var quick = false

    func run() async throws {
        let accounts = quick ? 200 : self.accounts
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        // A relay nobody answers at: the courier's attempts fail at once and wait their pause,
        // as mail to a slow relay would, while the replies are timed.
        let relay = MailSettings(host: "127.0.0.1", port: 1, security: .none, sender: try MailSender("sous@example.org"))
        let planner = try PlannerService(
            configuration: .inProcess(.planner), logger: logger,
            database: PlannerService.openDatabase(at: .sqlite(directory: directory), logger: logger), passwordCost: .minimal,
            mail: AccountMail(settings: relay, webURL: "https://sous.example.org"))
        let serving = Task { try await planner.host.run(signals: false) }
        defer { serving.cancel() }
        let client = planner.host.client(Planner.self, timeout: .seconds(10))
        for index in 0..<accounts {
            try client.callBlocking(
                AccountAPI.register, Registration(email: "known-\(index)@example.org", password: "correct horse battery", name: "Bench"))
        }
        let samples = try measureInterleaved(
            [
                (
                    "account.recover, an email with an account (code and mail queued)",
                    { index in _ = try client.callBlocking(AccountAPI.recover, RecoveryRequest(email: "known-\(index)@example.org")) }
                ),
                (
                    "account.recover, an email without one",
                    { index in _ = try client.callBlocking(AccountAPI.recover, RecoveryRequest(email: "unknown-\(index)@example.org")) }
                ),
            ], calls: accounts, warmup: min(100, accounts))
        report("account.recover over inproc, \(accounts) accounts, SQLite file (WAL)", samples, baseline: samples[1])
        print(
            String(
                format: "p50 difference %.1f µs, p99 difference %.1f µs", samples[0].p50 - samples[1].p50, samples[0].p99 - samples[1].p99))
    }
}
