import ArgumentParser
import CatalogMain
import Foundation
import GroceriesMain
import NotifierMain
import PlannerMain
import SousRuntime
import SousWire
import TrackerMain
import WebMain

// `sous-server`: the five services in one executable. Started through a link named after a
// service (`sous-catalog serve`) it is that service; `sous-server catalog serve` is the same.
// Five services on one host then map one file: the code they share (the runtime, the database
// layers, the Swift libraries) is in memory once, not once per service. `sous-server all` runs
// the five in one process.

typealias ServiceCommand = AsyncParsableCommand & ServiceExecutable

let services: [any ServiceCommand.Type] = [
    CatalogCommand.self, PlannerCommand.self, GroceriesCommand.self, TrackerCommand.self, NotifierCommand.self,
]

/// Each service's command, by the name its link has.
let commands: [String: any ServiceCommand.Type] = Dictionary(uniqueKeysWithValues: services.map { ("sous-\($0.service.rawValue)", $0) })

/// `sous-server all`: the five services in this one process, each on the endpoints it would
/// bind alone. For a small machine: one process to supervise, and the memory of one.
struct AllServices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sous-server all",
        abstract: "Run the five services in this one process, each on its own endpoints, until SIGTERM or SIGINT.",
        discussion: """
            Each service reads its settings from the environment as when it runs alone (SOUS_<NAME>_BIND, \
            SOUS_<NAME>_EVENTS_BIND, SOUS_<NAME>_ENDPOINT, SOUS_DATABASE_URL, …) and keeps its own database; \
            they still call each other over ZeroMQ. One process is one failure domain: a crash stops all five.
            """,
        version: SousVersion.current
    )

    @OptionGroup var options: SharedServiceOptions

    func run() async throws {
        var hosts: [ServiceHost] = []
        for command in services {
            let configuration = try options.configuration(for: command.service)
            SousLogging.bootstrap(level: configuration.logLevel)
            do {
                hosts.append(try command.host(for: configuration))
            } catch {
                // Five services share the output: say which one could not start (a port taken, …).
                throw StartFailure(service: command.service, error: error)
            }
        }
        // Each host stops on SIGTERM or SIGINT as when it runs alone; one that fails stops the rest.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for host in hosts { group.addTask { try await host.run() } }
            try await group.waitForAll()
        }
    }
}

/// One of the services of `sous-server all` could not start (ArgumentParser prints it, exit 1).
struct StartFailure: Error, CustomStringConvertible {
    let service: SousService
    let error: any Error
    var description: String { "the \(service.rawValue) service could not start: \(error)" }
}

/// Runs `command` as the root command (through a generic, so that its `async` entry point is the
/// one called, not ParsableCommand's synchronous one).
func run<Command: AsyncParsableCommand>(_ command: Command.Type, arguments: [String]?) async {
    await command.main(arguments)
}

let arguments = CommandLine.arguments
let calledAs = URL(fileURLWithPath: arguments.first ?? "sous-server").lastPathComponent
if let command = commands[calledAs] {
    await run(command, arguments: nil)
} else if calledAs == "sous-web" {
    await run(WebCommand.self, arguments: nil)
} else if arguments.count > 1, let command = commands["sous-\(arguments[1])"] {
    await run(command, arguments: Array(arguments.dropFirst(2)))
} else if arguments.count > 1, arguments[1] == "web" {
    await run(WebCommand.self, arguments: Array(arguments.dropFirst(2)))
} else if arguments.count > 1, arguments[1] == "all" {
    await run(AllServices.self, arguments: Array(arguments.dropFirst(2)))
} else {
    let names = SousService.allCases.map(\.rawValue)
    let usage = """
        OVERVIEW: The Sous services in one executable (version \(SousVersion.current)).

        USAGE: sous-server <service> [<subcommand>] [<options>]
               sous-<service> [<subcommand>] [<options>]   a link to sous-server (deploy/link-services.sh makes them)
               sous-server web [<subcommand>]              the web app (also as the link sous-web)
               sous-server all [<options>]                  the five in this one process (see 'sous-server all --help')
               sous-server --services                       the services, one per line

        SERVICES: \(names.joined(separator: ", "))

        See 'sous-server <service> --help' for a service's subcommands and options.

        """
    let asked = arguments.count > 1 && ["--help", "-h", "help"].contains(arguments[1])
    if arguments.count > 1, arguments[1] == "--version" {
        print(SousVersion.current)
        exit(0)
    }
    if arguments.count > 1, arguments[1] == "--services" {
        print(names.joined(separator: "\n"))
        exit(0)
    }
    if !asked && arguments.count > 1 {
        FileHandle.standardError.write(
            Data("Error: no service named \"\(arguments[1])\" (one of: \(names.joined(separator: ", ")), or all)\n\n".utf8))
    }
    // Help that was asked for goes to standard output, as ArgumentParser's does.
    FileHandle(fileDescriptor: asked ? 1 : 2).write(Data(usage.utf8))
    exit(asked ? 0 : 64)
}
