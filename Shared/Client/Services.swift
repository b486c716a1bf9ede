public import Foundation
public import SousWire
public import ZeroMQ

/// The five Sous services and their local defaults.
public enum SousService: String, CaseIterable, Sendable, Codable {
    case catalog, planner, groceries, tracker, notifier

    /// Request/reply port on the local default endpoints; the event port is the next one.
    public var defaultPort: Int {
        switch self {
        case .catalog: 7101
        case .planner: 7201
        case .groceries: 7301
        case .tracker: 7401
        case .notifier: 7501
        }
    }

    /// The prefix of this service's environment variables, e.g. `SOUS_CATALOG`.
    public var environmentPrefix: String { "SOUS_\(rawValue.uppercased())" }
}

/// One of the five services as a type (``Catalog``, ``Planner``, …): where its endpoints and
/// keys are configured.
public protocol PeerService: ServiceKind {
    static var service: SousService { get }
}

extension Catalog: PeerService { public static var service: SousService { .catalog } }
extension Planner: PeerService { public static var service: SousService { .planner } }
extension Groceries: PeerService { public static var service: SousService { .groceries } }
extension Tracker: PeerService { public static var service: SousService { .tracker } }
extension Notifier: PeerService { public static var service: SousService { .notifier } }

/// Several replicas of one service behind one setting: endpoints separated by commas
/// (`tcp://catalog-0:7101,tcp://catalog-1:7101`).
public enum Replicas {
    /// The endpoints of `list`, trimmed, empty ones left out.
    public static func endpoints(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Connects a request socket to every replica in `list`. With more than one, requests queue
    /// only on connections that are up (`ZMQ_IMMEDIATE`): the DEALER's round robin then passes
    /// over a replica that is down or restarting, and a retried attempt goes to the next one.
    public static func connect(_ socket: ZMQSocket, to list: String) throws(ZMQError) {
        let endpoints = endpoints(list)
        if endpoints.count > 1 { try socket.setImmediate(true) }
        for endpoint in endpoints { try socket.connect(endpoint) }
    }
}

/// Where one service can be reached.
public struct ServiceEndpoints: Sendable, Equatable, Codable {
    /// The ROUTER clients connect to (or each replica's, separated by commas: ``Replicas``).
    public var requests: String
    /// The PUB socket subscribers connect to (or each replica's, separated by commas).
    public var events: String

    public init(requests: String, events: String) {
        self.requests = requests
        self.events = events
    }

    /// `tcp://127.0.0.1:<port>` and the next port: what the local run uses.
    public static func localDefault(for service: SousService) -> ServiceEndpoints {
        ServiceEndpoints(requests: "tcp://127.0.0.1:\(service.defaultPort)", events: "tcp://127.0.0.1:\(service.defaultPort + 1)")
    }

    /// `SOUS_<NAME>_ENDPOINT` and `SOUS_<NAME>_EVENTS`, falling back to the local defaults.
    public static func fromEnvironment(
        _ service: SousService, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ServiceEndpoints {
        let defaults = localDefault(for: service)
        return ServiceEndpoints(
            requests: environment["\(service.environmentPrefix)_ENDPOINT"] ?? defaults.requests,
            events: environment["\(service.environmentPrefix)_EVENTS"] ?? defaults.events
        )
    }
}

/// Where the services publish their public keys: `<keys>/<service>.pub`, one line of Z85.
public enum PublishedKeys {
    public static func publicKeyPath(of service: SousService, in directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent("\(service.rawValue).pub").path
    }

    /// The file's one line, trimmed; nil when it is missing or empty.
    public static func readLine(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
