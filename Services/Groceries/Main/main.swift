import ArgumentParser
import GroceriesService
import SousRuntime

@main
struct GroceriesCommand: AsyncParsableCommand, ServiceExecutable {
    static let configuration = CommandConfiguration(
        commandName: "sous-groceries",
        abstract: "The Sous groceries service: the grocery list built from planned recipes, check-off and checkout.",
        version: SousVersion.current,
        subcommands: [ServeCommand<Self>.self, CheckCommand<Self>.self],
        defaultSubcommand: ServeCommand<Self>.self
    )

    static let service = SousService.groceries

    static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try GroceriesService(configuration: configuration).host
    }
}
