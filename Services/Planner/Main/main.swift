import ArgumentParser
import PlannerService
import SousRuntime

@main
struct PlannerCommand: AsyncParsableCommand, ServiceExecutable {
    static let configuration = CommandConfiguration(
        commandName: "sous-planner",
        abstract: "The Sous planner service: cooking profiles and the rolling 7-day meal plan.",
        version: SousVersion.current,
        subcommands: [ServeCommand<Self>.self, CheckCommand<Self>.self],
        defaultSubcommand: ServeCommand<Self>.self
    )

    static let service = SousService.planner

    static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try PlannerService(configuration: configuration).host
    }
}
