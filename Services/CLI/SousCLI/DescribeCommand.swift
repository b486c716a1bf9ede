import ArgumentParser
import SousClient
import SousSchema
import SousWire

/// `sous describe SERVICE`: what a service serves, from the service itself.
struct DescribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "List a service's methods with the shapes of their requests and replies (what `describe` answers; --json for all of it)."
    )

    @Argument(help: "catalog, planner, groceries, tracker or notifier.") var service: SousService
    @Option(help: "Also list the fields of this type (repeatable), e.g. RecipeDraft.") var type: [String] = []
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let description = try await global.anyClient(service).call(CommonAPI.describe, Empty(), session: try? global.token)
        if global.json { return try printJSON(description) }
        var table = Table([("METHOD", .left), ("REQUEST", .left), ("REPLY", .left), ("KIND", .left), ("ACCESS", .left)])
        for method in description.methods {
            table.add([method.name, method.request.description, method.reply.description, method.write ? "write" : "read", method.access.rawValue])
        }
        Console.current.out("\(description.service) (protocol \(description.protocolVersion)):\n" + table.render())
        let types = Dictionary(uniqueKeysWithValues: description.types.map { ($0.name, $0) })
        for name in type {
            guard let found = types[name] else { throw ValidationError("\(description.service) uses no type \(name)") }
            Console.current.out("")
            Console.current.out(ProtocolReference.typeList([found]))
        }
    }
}
