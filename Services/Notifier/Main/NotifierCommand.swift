public import ArgumentParser
import NotifierService
public import SousRuntime

/// `sous-notifier` (a link to `sous-server`, which runs this command when started by that name).
public struct NotifierCommand: AsyncParsableCommand, ServiceExecutable {
    public static let configuration = commandConfiguration(
        abstract: "The Sous notifier: 19:00 reminders to log food, for active users, in their own time zone.")

    public static let service = SousService.notifier

    public init() {}

    public static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try NotifierService(configuration: configuration, channels: ChannelSettings.fromEnvironment()).host
    }
}
