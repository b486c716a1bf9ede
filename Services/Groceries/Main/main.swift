import ArgumentParser
import GroceriesService
import SousRuntime

@main
struct GroceriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sous-groceries",
        abstract: "The Sous groceries service: the grocery list built from planned recipes, check-off and checkout.",
        version: SousVersion.current,
        subcommands: [Serve.self, Check.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the service until SIGTERM or SIGINT (the default).")

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let configuration = try options.configuration(for: .groceries)
        SousLogging.bootstrap(level: configuration.logLevel)
        let service = try GroceriesService(configuration: configuration)
        try await service.host.run()
    }
}

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Ask a running groceries service for its health; exit 1 if it does not answer.")

    @OptionGroup var options: HealthCheckOptions

    func run() async throws {
        guard await options.check(.groceries) else { throw ExitCode.failure }
    }
}
