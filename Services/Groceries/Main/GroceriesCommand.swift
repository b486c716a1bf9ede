public import ArgumentParser
import GroceriesService
public import SousRuntime

/// `sous-groceries` (a link to `sous-server`, which runs this command when started by that name).
public struct GroceriesCommand: AsyncParsableCommand, ServiceExecutable {
    public static let configuration = commandConfiguration(
        abstract: "The Sous groceries service: the grocery list built from planned recipes, check-off and checkout.")

    public static let service = SousService.groceries

    public init() {}

    public static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try GroceriesService(configuration: configuration).host
    }
}
