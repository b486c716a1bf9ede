public import ArgumentParser
import Foundation
public import SousClient
import SousSchema
public import SousWire

/// Options every command takes: who is asking, how to print, where the services are.
public struct GlobalOptions: ParsableArguments, Sendable {
    @Option(name: .long, help: "Which signed-in account to act as, by email or user id (env SOUS_USER, default: the last one signed in).")
    public var user: String?

    @Flag(name: .long, help: "Print the reply as JSON (stable field names, see docs/PROTOCOL.md).")
    public var json = false

    @Option(name: .customLong("catalog"), help: "Catalog endpoint (env SOUS_CATALOG_ENDPOINT).")
    public var catalogEndpoint: String?

    @Option(name: .customLong("planner"), help: "Planner endpoint (env SOUS_PLANNER_ENDPOINT).")
    public var plannerEndpoint: String?

    @Option(name: .customLong("groceries"), help: "Groceries endpoint (env SOUS_GROCERIES_ENDPOINT).")
    public var groceriesEndpoint: String?

    @Option(name: .customLong("tracker"), help: "Tracker endpoint (env SOUS_TRACKER_ENDPOINT).")
    public var trackerEndpoint: String?

    @Option(name: .customLong("notifier"), help: "Notifier endpoint (env SOUS_NOTIFIER_ENDPOINT).")
    public var notifierEndpoint: String?

    @Option(name: .long, help: "Milliseconds to wait for each answer, retries included (env SOUS_TIMEOUT_MS, default 3000).")
    public var timeoutMs: Int?

    public init() {}

    static let flagNames: Set<String> = ["--json"]
    static let valueOptionNames: Set<String> = ["--user", "--catalog", "--planner", "--groceries", "--tracker", "--notifier", "--timeout-ms"]

    /// `sous --user bob recipes show x` as well as `sous recipes show x --user bob`: global
    /// options given before the subcommand are moved after it, where every command reads them.
    public static func movedAfterSubcommand(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = String(argument.prefix { $0 != "=" })
            if flagNames.contains(argument) || (valueOptionNames.contains(name) && argument.contains("=")) {
                leading.append(argument)
                index += 1
            } else if valueOptionNames.contains(argument) {
                leading += arguments[index..<min(index + 2, arguments.count)]
                index += 2
            } else {
                break
            }
        }
        return Array(arguments[min(index, arguments.count)...]) + leading
    }

    /// The longest --timeout-ms or SOUS_TIMEOUT_MS: one hour.
    static let maxTimeoutMs = 3_600_000

    public func validate() throws {
        if let timeoutMs, !(1...Self.maxTimeoutMs).contains(timeoutMs) {
            throw ValidationError("--timeout-ms must be 1 to \(Self.maxTimeoutMs) milliseconds, got \(timeoutMs)")
        }
    }

    /// The signed-in account the command acts as: --user, then SOUS_USER, then the last one
    /// signed in (``Credentials``).
    public var account: Credentials.Account {
        get throws {
            try Credentials.load().account(user ?? ProcessInfo.processInfo.environment["SOUS_USER"])
        }
    }

    /// The session token requests carry.
    public var token: String {
        get throws { try account.token }
    }

    /// The caller's cooking profile, from the planner.
    func profile() async throws -> CookingProfile {
        try await client(Planner.self).call(PlannerAPI.getProfile, Empty(), session: token)
    }

    /// The units to show quantities in: `override`, else the profile's; metric when the planner
    /// cannot be asked (showing quantities needs no profile).
    func displayUnits(_ override: UnitSystem?) async -> UnitSystem {
        if let override { return override }
        return Self.displayUnits(nil, profile: try? await profile())
    }

    /// The units to show quantities in, for a command that has read the profile already:
    /// `override`, else `profile`'s, else (no profile) metric.
    static func displayUnits(_ override: UnitSystem?, profile: CookingProfile?) -> UnitSystem {
        override ?? profile?.units ?? .metric
    }

    public func endpoint(of service: SousService) -> String {
        let flag: String? =
            switch service {
            case .catalog: catalogEndpoint
            case .planner: plannerEndpoint
            case .groceries: groceriesEndpoint
            case .tracker: trackerEndpoint
            case .notifier: notifierEndpoint
            }
        return flag ?? ServiceEndpoints.fromEnvironment(service).requests
    }

    /// A client of one service, typed: it sends that service's methods.
    public func client<Service: PeerService>(_ service: Service.Type) -> ServiceClient<Service> {
        client(of: Service.service, as: Service.self)
    }

    /// The five services' clients together.
    public var clients: SousClients {
        SousClients(
            catalog: client(Catalog.self), planner: client(Planner.self), groceries: client(Groceries.self), tracker: client(Tracker.self),
            notifier: client(Notifier.self))
    }

    /// A client of any of the five, for the methods every service answers (`health`, `describe`, …).
    public func anyClient(_ service: SousService) -> ServiceClient<AnyService> {
        client(of: service, as: AnyService.self)
    }

    private func client<Scope: MethodScope>(of service: SousService, as scope: Scope.Type) -> ServiceClient<Scope> {
        let fromEnvironment = ProcessInfo.processInfo.environment["SOUS_TIMEOUT_MS"].flatMap(Int.init).map { min(max($0, 1), Self.maxTimeoutMs) }
        let milliseconds = timeoutMs ?? fromEnvironment ?? 3_000
        let endpoint = endpoint(of: service)
        return ServiceClient<Scope>(
            // A retry fits only when an attempt fails early: the person waits at most this long.
            endpoint: endpoint, options: .init(timeout: .milliseconds(milliseconds), retries: 2, callLimit: .milliseconds(milliseconds)),
            curve: UserClientKeys.curve(for: service, endpoint: endpoint),
            name: service.rawValue
        )
    }
}

/// Prints `value` as stable, pretty JSON.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    Console.current.out(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// The bytes of a file a command was given, or a usage error naming it.
func readFile(_ path: String) throws -> Data {
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw ValidationError("cannot read \(path): \(error.localizedDescription)")
    }
}
