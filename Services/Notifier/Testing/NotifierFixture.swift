import Foundation
public import NotifierService
public import SousRuntime
import SousSchema
import SousTestSupport

/// A real notifier for tests: its scheduler starts at once (no startup grace); peers not given
/// are absent (see ``ServiceConfiguration/makeAbsent(_:)``).
public enum NotifierFixture {
    /// A notifier bound to unique `inproc://` endpoints, subscribed to the events of `peers`.
    /// In memory unless `dataDirectory` is given (restart tests reopen the same file; replicas
    /// made with the same one share a PostgreSQL schema).
    /// Run it with `withRunningServices`.
    public static func make(
        peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system(), dataDirectory: String? = nil,
        options: NotifierOptions = NotifierOptions(startupGrace: .zero)
    ) throws -> NotifierService {
        let configuration = ServiceConfiguration.testing(.notifier, dataDirectory: dataDirectory, peers: peers, clock: clock)
        return try NotifierService(configuration: configuration, logger: quietLogger("notifier"), options: options)
    }
}
