import ArgumentParser
import CatalogMain
import Foundation
import GroceriesMain
import NotifierMain
import PlannerMain
import SousRuntime
import TrackerMain

// `sous-server`: the five services in one executable. Started through a link named after a
// service (`sous-catalog serve`) it is that service; `sous-server catalog serve` is the same.
// Five services on one host then map one file: the code they share (the runtime, the database
// layers, the Swift libraries) is in memory once, not once per service.

/// Each service's command, by the name its link has.
let commands: [String: any (AsyncParsableCommand & ServiceExecutable).Type] = Dictionary(
    uniqueKeysWithValues: [CatalogCommand.self, PlannerCommand.self, GroceriesCommand.self, TrackerCommand.self, NotifierCommand.self]
        .map { ("sous-\($0.service.rawValue)", $0) })

func run<Command: AsyncParsableCommand>(_ command: Command.Type, arguments: [String]?) async {
    await command.main(arguments)
}

let arguments = CommandLine.arguments
let calledAs = URL(fileURLWithPath: arguments.first ?? "sous-server").lastPathComponent
if let command = commands[calledAs] {
    await run(command, arguments: nil)
} else if arguments.count > 1, let command = commands["sous-\(arguments[1])"] {
    await run(command, arguments: Array(arguments.dropFirst(2)))
} else {
    let services = SousService.allCases.map(\.rawValue)
    let usage = """
        OVERVIEW: The Sous services in one executable (version \(SousVersion.current)).

        USAGE: sous-server <service> [<subcommand>] [<options>]
               sous-<service> [<subcommand>] [<options>]    (a link to sous-server, as deploy/link-services.sh makes)
               sous-server --services                       (the services, one per line)

        SERVICES: \(services.joined(separator: ", "))

        See 'sous-server <service> --help' for a service's subcommands and options.

        """
    let asked = arguments.count > 1 && ["--help", "-h", "help"].contains(arguments[1])
    if arguments.count > 1, arguments[1] == "--version" {
        print(SousVersion.current)
        exit(0)
    }
    if arguments.count > 1, arguments[1] == "--services" {
        print(services.joined(separator: "\n"))
        exit(0)
    }
    if !asked && arguments.count > 1 {
        FileHandle.standardError.write(Data("Error: no service named \"\(arguments[1])\" (one of: \(services.joined(separator: ", ")))\n\n".utf8))
    }
    FileHandle.standardError.write(Data(usage.utf8))
    exit(asked ? 0 : 64)
}
