import Dispatch
import Foundation

/// A server-sent event stream read over a plain socket (the test client waits for whole
/// responses; a stream never ends). Reads run on a Dispatch thread, each bounded by a timeout.
final class EventStream: @unchecked Sendable {
    private let descriptor: Int32
    private var buffered = ""

    /// Connects to 127.0.0.1:`port` and sends GET `path` with `cookie`.
    init(port: Int, path: String, cookie: String) throws {
        descriptor = try LoopbackSocket.connect(port: port)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\nCookie: \(cookie)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        guard write(descriptor, request, request.count) == request.count else { throw HarnessError("could not send the request") }
    }

    deinit { close(descriptor) }

    /// The data of the next event named `name` (others are skipped), or an error after `limit`.
    func next(_ name: String, within limit: Duration = .seconds(30)) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.readEvent(name, until: ContinuousClock.now + limit) })
            }
        }
    }

    private func readEvent(_ name: String, until deadline: ContinuousClock.Instant) throws -> String {
        while true {
            while let end = buffered.range(of: "\n\n") {
                let block = String(buffered[..<end.lowerBound])
                buffered = String(buffered[end.upperBound...])
                let lines = block.split(separator: "\n")
                if lines.contains("event: \(name)"), let data = lines.first(where: { $0.hasPrefix("data: ") }) {
                    return String(data.dropFirst(6))
                }
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw HarnessError("no \(name) event within the limit; read: \(buffered.suffix(300))") }
            var timeout = timeval(tv_sec: Int(left.components.seconds) + 1, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &bytes, bytes.count)
            if count == 0 { throw HarnessError("the stream ended before a \(name) event; read: \(buffered.suffix(300))") }
            if count > 0 {
                // Chunked transfer: the chunk sizes are lines of their own between events; they
                // never contain "event:" or "data:", so the block parsing above skips them.
                buffered += String(decoding: bytes[..<count], as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            }
        }
    }
}
