import ArgumentParser
import SousRuntime
import TrackerService

@main
struct TrackerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sous-tracker",
        abstract: "The Sous tracker service: food diary with macros and goals, water and coffee, saved foods, products by barcode, coeliac diary.",
        version: SousVersion.current,
        subcommands: [Serve.self, Check.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the service until SIGTERM or SIGINT (the default).")

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        let configuration = try options.configuration(for: .tracker)
        SousLogging.bootstrap(level: configuration.logLevel)
        let service = try TrackerService(configuration: configuration)
        try await service.host.run()
    }
}

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Ask a running tracker for its health; exit 1 if it does not answer.")

    @OptionGroup var options: HealthCheckOptions

    func run() async throws {
        guard await options.check(.tracker) else { throw ExitCode.failure }
    }
}
