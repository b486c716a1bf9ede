import Foundation
public import NotifierService
import SousFetch
public import SousMail
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
        options: NotifierOptions = NotifierOptions(startupGrace: .zero), channels: ChannelSettings = NotifierFixture.loopbackChannels()
    ) throws -> NotifierService {
        let configuration = ServiceConfiguration.testing(.notifier, dataDirectory: dataDirectory, peers: peers, clock: clock)
        return try NotifierService(configuration: configuration, logger: quietLogger("notifier"), options: options, channels: channels)
    }

    /// Channels that may reach servers on loopback (the tests' ntfy, webhook and push
    /// endpoints), through `mail` when given.
    public static func loopbackChannels(mail: MailSettings? = nil, timeout: Duration = .seconds(10)) -> ChannelSettings {
        ChannelSettings(
            mail: mail, fetch: FetchPolicy(allowed: [AddressRange("127.0.0.0/8")!]), webURL: "https://sous.example",
            vapidSubject: "mailto:ops@sous.example",
            timeout: timeout)
    }
}
