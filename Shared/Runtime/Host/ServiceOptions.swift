public import ArgumentParser
public import Foundation
import Logging

/// The flags every service executable accepts; each overrides its `SOUS_*` variable.
public struct ServiceOptions: ParsableArguments, Sendable {
    @Option(help: "Endpoint the request socket binds, e.g. tcp://0.0.0.0:7101 (env SOUS_<NAME>_BIND).")
    public var bind: String?

    @Option(help: "Endpoint the event socket binds (env SOUS_<NAME>_EVENTS_BIND).")
    public var eventsBind: String?

    @OptionGroup public var shared: SharedServiceOptions

    public init() {}

    /// Environment first, then these flags on top.
    public func configuration(
        for service: SousService, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ServiceConfiguration {
        var configuration = try shared.configuration(for: service, environment: environment)
        if let bind { configuration.bind = bind }
        if let eventsBind { configuration.eventsBind = eventsBind }
        return configuration
    }
}

/// The flags that apply to every service of one process alike (`sous-server all` takes these
/// alone: each service binds its own endpoints from the environment).
public struct SharedServiceOptions: ParsableArguments, Sendable {
    @Option(help: "Folder for the SQLite database (env SOUS_DATA_DIR, default ./data).")
    public var dataDir: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (env SOUS_LOG_LEVEL).")
    public var logLevel: String?

    public init() {}

    /// Environment first, then these flags on top.
    public func configuration(
        for service: SousService, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ServiceConfiguration {
        var configuration = try ServiceConfiguration.fromEnvironment(service, environment: environment)
        if let dataDir { configuration.dataDirectory = dataDir }
        if let logLevel {
            guard let level = Logger.Level(rawValue: logLevel.lowercased()) else {
                throw ValidationError("unknown log level \"\(logLevel)\"")
            }
            configuration.logLevel = level
        }
        return configuration
    }
}
