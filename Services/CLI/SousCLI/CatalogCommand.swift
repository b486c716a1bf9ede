import ArgumentParser
import SousClient
import SousSchema
import SousWire

/// `sous catalog changes`: the sync feed an offline client follows.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Follow what changed in your catalog (for syncing an offline copy).",
        subcommands: [Changes.self]
    )

    struct Changes: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "List recipes and ingredients changed since a catalog version, and recipe ids to forget.",
            discussion: "Pass the version the previous call printed to get only what changed since; 0 (the default) lists everything."
        )

        @Option(help: "The catalog version you have (0: everything).") var since: Int64 = 0
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = ["version": "--since"]

        func validate() throws {
            guard since >= 0 else { throw ValidationError("--since must be 0 or more") }
        }

        func run() async throws {
            let changes = try await global.client(Catalog.self).call(CatalogAPI.changes, ChangesSince(version: since), session: global.token)
            if global.json { return try printJSON(changes) }
            let console = Console.current
            console.out("Catalog version \(changes.version) (asked since \(since)).")
            console.out("\(changes.recipes.count) recipes changed\(changes.recipes.isEmpty ? "." : ":")")
            for recipe in changes.recipes { console.out("  \(recipe.id)  \(recipe.name)  (version \(recipe.version))") }
            console.out(
                "\(changes.deletedRecipes.count) to forget\(changes.deletedRecipes.isEmpty ? "." : ": " + changes.deletedRecipes.joined(separator: ", "))"
            )
            console.out("\(changes.ingredients.count) ingredients changed.")
            console.out("Next time: sous catalog changes --since \(changes.version)")
        }
    }
}
