import Foundation
import Logging
import ServiceLifecycle
import SousWire

/// Keeps a service's ``RevocationList`` current, so that a session ended at the planner stops
/// working here within 2 s (docs/PROTOCOL.md, "Sessions"): it asks the planner for
/// `account.revocations` at once whenever the planner announces one on its service bus, and
/// every second regardless, since a PUB/SUB bus may drop an event.
///
/// While the planner cannot be reached, tokens keep being checked against the last list known:
/// no session can be ended then either, since ending one is a planner write.
///
/// The planner's own replicas follow the list the same way, reading it from their shared
/// database instead of asking (``ServiceHost/init(configuration:logger:database:services:ownRevocations:)``):
/// a session ended through one replica stops working on the others within the same 2 s.
final class RevocationSync: Service, Sendable {
    static let pollInterval = Duration.seconds(1)

    /// Where the list comes from: the revocations after a sequence, and the newest sequence.
    typealias Source = @Sendable (_ since: Int64) async throws -> Revocations

    private let configuration: ServiceConfiguration
    private let revocations: RevocationList
    private let source: Source?
    private let logger: Logger

    /// Follows the list from `source`, or from the planner's `account.revocations` when nil.
    init(configuration: ServiceConfiguration, revocations: RevocationList, source: Source? = nil, logger: Logger) {
        self.configuration = configuration
        self.revocations = revocations
        self.source = source
        self.logger = logger
    }

    func run() async throws {
        let planner = Peer(Planner.self, of: configuration)
        let fetch: Source =
            source ?? { since in try await planner.call(AccountAPI.revocations, RevocationsSince(since: since), user: nil, for: nil) }
        let subscriber = EventSubscriber(
            sources: [.init(endpoint: configuration.endpoints(of: .planner).events, curve: configuration.curveSetup(for: .planner, events: true))],
            prefixes: [AccountTopics.revoked.name],
            logger: logger
        )
        let (wake, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await subscriber.run() }
            group.addTask {
                for await _ in subscriber.events { waker.yield() }
            }
            group.addTask {
                while !Task.isCancelled {
                    waker.yield()
                    try? await Task.sleep(for: Self.pollInterval)
                }
            }
            await withTaskCancellationOrGracefulShutdownHandler {
                var failing = false
                for await _ in wake {
                    do {
                        let answer = try await fetch(revocations.sequence)
                        revocations.apply(answer.revoked, upTo: answer.sequence)
                        if failing { logger.notice("revocations reachable again") }
                        failing = false
                    } catch {
                        if !failing {
                            logger.notice("revocations cannot be fetched; checking against the last list", metadata: ["error": "\(error)"])
                        }
                        failing = true
                    }
                }
            } onCancelOrGracefulShutdown: {
                waker.finish()
            }
            group.cancelAll()
        }
    }
}
