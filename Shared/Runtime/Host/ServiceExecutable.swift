public import ArgumentParser
import SousWire

/// What a service's command tells the shared `serve` and `check` subcommands: which service it
/// is and how to build it. The command (`Services/<Name>/Main`, run by `sous-server`) then only
/// names the two, with its own subcommands, and reads nothing else.
public protocol ServiceExecutable {
    static var service: SousService { get }
    /// Builds the service (database, sockets, handlers) and returns the host to run.
    static func host(for configuration: ServiceConfiguration) throws -> ServiceHost
}

extension ServiceExecutable {
    /// A service's command line: named `sous-<name>`, with the version, `serve` (the default)
    /// and `check`, then the service's own subcommands.
    public static func commandConfiguration(abstract: String, adding subcommands: [any ParsableCommand.Type] = []) -> CommandConfiguration {
        CommandConfiguration(
            commandName: "sous-\(service.rawValue)", abstract: abstract, version: SousVersion.current,
            subcommands: [ServeCommand<Self>.self, CheckCommand<Self>.self] + subcommands, defaultSubcommand: ServeCommand<Self>.self
        )
    }
}

/// `sous-<name> serve`: runs the service until SIGTERM or SIGINT.
public struct ServeCommand<Executable: ServiceExecutable>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "serve", abstract: "Run the service until SIGTERM or SIGINT (the default).")
    }

    @OptionGroup var options: ServiceOptions

    public init() {}

    public func run() async throws {
        let configuration = try options.configuration(for: Executable.service)
        SousLogging.bootstrap(level: configuration.logLevel)
        try await Executable.host(for: configuration).run()
    }
}

/// `sous-<name> check`: asks a running service for its health; exits 1 if it does not answer
/// healthy (the local run script and the compose health checks use it).
public struct CheckCommand<Executable: ServiceExecutable>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "check", abstract: "Ask a running \(Executable.service.rawValue) for its health; exit 1 if it does not answer."
        )
    }

    @OptionGroup var options: HealthCheckOptions

    public init() {}

    public func run() async throws {
        guard await options.check(Executable.service) else { throw ExitCode.failure }
    }
}
