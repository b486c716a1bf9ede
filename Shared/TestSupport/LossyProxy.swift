import Foundation
import Synchronization
public import ZeroMQ

/// A ROUTER/DEALER proxy that loses chosen replies on their way back to the client, to prove
/// that retried writes are applied once. Runs on its own thread until ``stop()``.
public final class LossyProxy: Sendable {
    /// Clients connect here.
    public let frontendEndpoint: String
    private let dropped = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let repliesToDrop: Int
    private let (finished, finishedContinuation) = AsyncStream.makeStream(of: Void.self)

    /// Forwards to `backend`, dropping the first `repliesToDrop` replies.
    public init(backend: String, repliesToDrop: Int, context: ZMQContext = .shared) throws {
        self.repliesToDrop = repliesToDrop
        let frontend = try context.socket(.router)
        frontendEndpoint = "inproc://lossy-proxy-\(UUID().uuidString)"
        try frontend.bind(frontendEndpoint)
        let backendSocket = try context.socket(.dealer)
        try backendSocket.connect(backend)
        let sockets = Sockets(frontend: frontend, backend: backendSocket)
        let thread = Thread { [self] in
            defer {
                sockets.frontend.close()
                sockets.backend.close()
                finishedContinuation.finish()
            }
            while !stopping.load(ordering: .acquiring) {
                guard let ready = try? ZMQPoller.poll([(sockets.frontend, .readable), (sockets.backend, .readable)], timeout: .milliseconds(20))
                else { return }
                if !ready[0].isEmpty, let frames = try? sockets.frontend.receiveMultipart(dontWait: true) {
                    _ = try? sockets.backend.send(multipart: frames)
                }
                if !ready[1].isEmpty, let frames = try? sockets.backend.receiveMultipart(dontWait: true) {
                    if dropped.load(ordering: .relaxed) < repliesToDrop {
                        dropped.add(1, ordering: .relaxed)
                    } else {
                        _ = try? sockets.frontend.send(multipart: frames)
                    }
                }
            }
        }
        thread.start()
    }

    /// Replies lost so far.
    public var droppedReplies: Int { dropped.load(ordering: .relaxed) }

    public func stop() async {
        stopping.store(true, ordering: .releasing)
        for await _ in finished {}
    }

    private final class Sockets: @unchecked Sendable {
        let frontend: ZMQSocket
        let backend: ZMQSocket
        init(frontend: ZMQSocket, backend: ZMQSocket) {
            self.frontend = frontend
            self.backend = backend
        }
    }
}
