import Foundation
public import NotifierService
public import SousRuntime
import SousSchema
import SousTestSupport

/// A real notifier for tests: its scheduler starts at once (no startup grace); peers not given
/// are absent (see ``ServiceConfiguration/makeAbsent(_:)``).
public enum NotifierFixture {
    /// A notifier bound to unique `inproc://` endpoints, subscribed to the events of `peers`.
    /// In memory unless `dataDirectory` is given (restart tests reopen the same file).
    /// Run it with `withRunningServices`.
    public static func make(
        peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system(), dataDirectory: String? = nil
    ) throws -> NotifierService {
        let configuration = ServiceConfiguration.testing(.notifier, dataDirectory: dataDirectory, peers: peers, clock: clock)
        return try NotifierService(configuration: configuration, logger: quietLogger("notifier"), options: NotifierOptions(startupGrace: .zero))
    }
}
