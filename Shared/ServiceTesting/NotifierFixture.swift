public import NotifierService
public import SousRuntime
import Foundation
import SousSchema

/// A real notifier for tests: its scheduler starts at once (no startup grace) and its calls to
/// the planner and tracker give up after `callTimeout`.
public enum NotifierFixture {
    /// A notifier bound to unique `inproc://` endpoints, subscribed to the events of `peers`.
    /// In memory unless `dataDirectory` is given (restart tests reopen the same file).
    /// Run it with `withRunningServices`.
    public static func make(
        peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system(), dataDirectory: String? = nil, callTimeout: Duration = .seconds(2)
    ) throws -> NotifierService {
        // Peers not given are unbound inproc endpoints, never the local defaults (a real run).
        var peers = peers
        for service in SousService.allCases where peers[service] == nil {
            peers[service] = ServiceEndpoints(requests: "inproc://absent-\(service.rawValue)-\(UUID().uuidString)", events: "inproc://absent-\(service.rawValue)-events-\(UUID().uuidString)")
        }
        var configuration = ServiceConfiguration.inProcess(.notifier, dataDirectory: dataDirectory, peers: peers, clock: clock)
        configuration.callTimeout = callTimeout
        return try NotifierService(configuration: configuration, logger: quietLogger("notifier"), options: NotifierOptions(startupGrace: .zero))
    }
}
