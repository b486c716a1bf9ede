import ArgumentParser
import PlannerService
import SousRuntime
import SousSchema

@main
struct PlannerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sous-planner",
        abstract: "The Sous planner service: cooking profiles and the rolling 7-day meal plan.",
        version: SousVersion.current,
        subcommands: [Serve.self, Check.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the service until SIGTERM or SIGINT (the default).")

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let configuration = try options.configuration(for: .planner)
        SousLogging.bootstrap(level: configuration.logLevel)
        let service = try PlannerService(configuration: configuration)
        try await service.host.run()
    }
}

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Ask a running planner for its health; exit 1 if it does not answer.")

    @OptionGroup var options: HealthCheckOptions

    func run() async throws {
        guard await options.check(.planner) else { throw ExitCode.failure }
    }
}
