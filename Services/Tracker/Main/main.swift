import ArgumentParser
import SousRuntime
import TrackerService

@main
struct TrackerCommand: AsyncParsableCommand, ServiceExecutable {
    static let configuration = CommandConfiguration(
        commandName: "sous-tracker",
        abstract: "The Sous tracker service: food diary with macros and goals, water and coffee, saved foods, products by barcode, coeliac diary.",
        version: SousVersion.current,
        subcommands: [ServeCommand<Self>.self, CheckCommand<Self>.self],
        defaultSubcommand: ServeCommand<Self>.self
    )

    static let service = SousService.tracker

    static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try TrackerService(configuration: configuration).host
    }
}
