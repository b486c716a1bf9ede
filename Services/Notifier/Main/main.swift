import ArgumentParser
import NotifierService
import SousRuntime

@main
struct NotifierCommand: AsyncParsableCommand, ServiceExecutable {
    static let configuration = CommandConfiguration(
        commandName: "sous-notifier",
        abstract: "The Sous notifier: 19:00 reminders to log food, for active users, in their own time zone.",
        version: SousVersion.current,
        subcommands: [ServeCommand<Self>.self, CheckCommand<Self>.self],
        defaultSubcommand: ServeCommand<Self>.self
    )

    static let service = SousService.notifier

    static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try NotifierService(configuration: configuration).host
    }
}
