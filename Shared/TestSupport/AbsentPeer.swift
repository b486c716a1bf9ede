import Foundation
public import SousRuntime

extension ServiceConfiguration {
    /// A peer that is down: an `inproc://` endpoint nobody binds, whose calls give up after
    /// ``absentPeerTimeout``. Only the absent peer gets the short timeout, so a test never
    /// depends on a live peer answering quickly.
    public mutating func makeAbsent(_ peer: SousService) {
        let unique = UUID().uuidString
        peers[peer] = ServiceEndpoints(
            requests: "inproc://absent-\(peer.rawValue)-\(unique)", events: "inproc://absent-\(peer.rawValue)-events-\(unique)")
        peerTimeouts[peer] = Self.absentPeerTimeout
    }

    /// How long a call to an absent peer waits per attempt: nothing will answer, so any wait
    /// only slows the test down.
    public static let absentPeerTimeout = Duration.milliseconds(200)
}

extension ServiceConfiguration {
    /// ``inProcess(_:dataDirectory:peers:clock:)`` with every peer not in `peers` absent, so a
    /// test never reaches a real run's default endpoints and never waits long on a missing peer.
    public static func testing(
        _ service: SousService, dataDirectory: String? = nil, peers: [SousService: ServiceEndpoints] = [:], clock: WallClock = .system()
    ) -> ServiceConfiguration {
        var configuration = inProcess(service, dataDirectory: dataDirectory, peers: peers, clock: clock)
        for peer in SousService.allCases where peer != service && peers[peer] == nil { configuration.makeAbsent(peer) }
        return configuration
    }
}
