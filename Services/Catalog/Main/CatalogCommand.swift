public import ArgumentParser
import CatalogService
import Foundation
import SousFetch
public import SousRuntime
import SousSchema
import SousWire

/// `sous-catalog` (a link to `sous-server`, which runs this command when started by that name).
public struct CatalogCommand: AsyncParsableCommand, ServiceExecutable {
    public static let configuration = commandConfiguration(
        abstract: "The Sous catalog service: ingredients, recipes, search, favorites and community recipes.",
        adding: [ImportUSDA.self])

    public static let service = SousService.catalog

    public init() {}

    public static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try CatalogService(configuration: configuration, fetchPolicy: try FetchPolicy.fromEnvironment()).host
    }
}

struct ImportUSDA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-usda",
        abstract: "Import a USDA SR28 directory (FOOD_DES.txt, NUT_DATA.txt) into a running catalog as extra ingredients."
    )

    @Argument(help: "The SR28 ASCII directory.")
    var directory: String

    @Option(help: "The catalog's request endpoint (env SOUS_CATALOG_ENDPOINT).")
    var endpoint: String?

    @Option(help: "Ingredients per request.")
    var batchSize = 500

    @Option(help: "The signed-in operator to import as, by email (default: the last account `sous login` signed in).")
    var user: String?

    func run() async throws {
        let endpoint = endpoint ?? ServiceEndpoints.fromEnvironment(.catalog).requests
        print("Reading \(directory)…")
        let ingredients = try UsdaImporter.parse(directory: URL(fileURLWithPath: directory)) { done, total in
            print("\r  parsed \(done)/\(total) foods", terminator: "")
        }
        print("")
        // Imports change what every user sees: they need an operator's session (`sous login`).
        let token = try Credentials.load().account(user).token
        let client = ServiceClient<Catalog>(
            endpoint: endpoint, options: .init(timeout: .seconds(30), retries: 2), curve: UserClientKeys.curve(for: .catalog, endpoint: endpoint)
        )
        var imported = 0
        for start in stride(from: 0, to: ingredients.count, by: max(batchSize, 1)) {
            let batch = Array(ingredients[start..<min(start + batchSize, ingredients.count)])
            let report = try await client.call(
                CatalogAPI.importIngredients, IngredientImport(source: "usda-sr28", ingredients: batch), session: token)
            imported += report.imported
            let percent = imported * 100 / max(ingredients.count, 1)
            print("\r  imported \(imported)/\(ingredients.count) (\(percent)%) catalog version \(report.catalogVersion)", terminator: "")
        }
        print("\nDone: \(imported) USDA ingredients in the catalog at \(endpoint).")
    }
}
