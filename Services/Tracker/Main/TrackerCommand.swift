public import ArgumentParser
public import SousRuntime
import TrackerService

/// `sous-tracker` (a link to `sous-server`, which runs this command when started by that name).
public struct TrackerCommand: AsyncParsableCommand, ServiceExecutable {
    public static let configuration = commandConfiguration(
        abstract: "The Sous tracker service: food diary with macros and goals, water and coffee, saved foods, products by barcode, coeliac diary.")

    public static let service = SousService.tracker

    public init() {}

    public static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try TrackerService(configuration: configuration, openFoodFacts: try OpenFoodFactsSettings.fromEnvironment()).host
    }
}
