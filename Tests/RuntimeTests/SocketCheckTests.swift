import Dispatch
import Foundation
import SousRuntime
import SousTestSupport
import SousWire
import Testing
import ZeroMQ

/// The check every suite runs (`.closesItsSockets`) counts what it should, and what it found.
@Suite(.closesItsSockets)
struct SocketCheckTests {
    @Test func aSocketIsCountedFromCreationUntilItCloses() throws {
        let ledger = SocketLedger()
        let socket = try SocketLedger.$current.withValue(ledger) { try ZMQContext.shared.socket(.dealer) }
        let elsewhere = try ZMQContext.shared.socket(.pull)
        #expect(ledger.openSockets == [.dealer], "only sockets made inside the ledger's scope count")
        socket.close()
        elsewhere.close()
        #expect(ledger.openSockets.isEmpty)
    }

    /// A host keeps its handlers and they used to keep the host: one built and never run, or
    /// run and stopped, stayed in memory with its five sockets until the process ended.
    @Test func aHostNobodyHoldsIsFreedWithItsSockets() async throws {
        let ledger = SocketLedger()
        try SocketLedger.$current.withValue(ledger) {
            let host = try ServiceHost(
                configuration: .inProcess(.planner), logger: quietLogger("planner"), databaseHealth: { DatabaseHealth(status: "none") })
            // A handler that uses the host's parts, as every service's handlers do.
            let parts = host.parts
            host.server.register(Method<AnyService, Empty, HealthReport>.read("echo", .public)) { _, _ in
                _ = parts.clock.now
                return HealthReport(
                    service: "echo", version: "", protocolVersion: 0, startedAt: Date(), uptimeSeconds: 0, database: DatabaseHealth(status: "none"))
            }
            #expect(ledger.openSockets.count >= 4)
        }
        try await withTimeout(.seconds(20), waitingFor: "the host's sockets to close") { await ledger.allClosed() }
    }

    /// A caller that gives up (its task cancelled) stops waiting at once, instead of holding
    /// its client, and the client's sockets, until the service answers or the call times out.
    @Test func aCancelledCallEndsAtOnce() async throws {
        // A ROUTER that takes requests and never answers.
        let silent = try ZMQContext.shared.socket(.router)
        defer { silent.close() }
        let endpoint = "inproc://sous-test-silent-\(UUID().uuidString)"
        try silent.bind(endpoint)
        let client = ServiceClient<AnyService>(endpoint: endpoint, options: .init(timeout: .seconds(120), retries: 0))
        let call = Task { try await client.call(CommonAPI.health, Empty()) }
        // Received off Swift's cooperative pool, which a blocking receive would starve.
        let arrived: Bool = await withCheckedContinuation { continuation in
            DispatchQueue(label: "sous.test.silent").async {
                // Generous: returns as soon as the request arrives (a stalled VM once held it past 20 s).
                continuation.resume(returning: ((try? silent.receive(timeout: .seconds(90))) ?? nil) != nil)
            }
        }
        #expect(arrived, "the request arrived")
        call.cancel()
        let outcome = try await withTimeout(.seconds(60), waitingFor: "the cancelled call to end") { await call.result }
        #expect(throws: ServiceError.self) { try outcome.get() }
        #expect((outcome.error as? ServiceError)?.message.contains("cancelled") == true)
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
