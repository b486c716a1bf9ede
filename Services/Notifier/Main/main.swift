import ArgumentParser
import Foundation
import NotifierService
import SousRuntime
import SousSchema
import SousWire

@main
struct NotifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sous-notifier",
        abstract: "The Sous notifier: 19:00 reminders to log food, for active users, in their own time zone.",
        version: SousVersion.current,
        subcommands: [Serve.self, Check.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the service until SIGTERM or SIGINT (the default).")

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let configuration = try options.configuration(for: .notifier)
        SousLogging.bootstrap(level: configuration.logLevel)
        let service = try NotifierService(configuration: configuration)
        try await service.host.run()
    }
}

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Ask a running notifier for its health; exit 1 if it does not answer.")

    @OptionGroup var options: HealthCheckOptions

    func run() async throws {
        guard await options.check(.notifier) else { throw ExitCode.failure }
    }
}
