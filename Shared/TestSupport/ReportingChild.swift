import Foundation
import SousRuntime
import Synchronization

/// A test server in a child process (`Tests/Support/*.py`) that prints `{"port": N}` when it
/// listens and then one JSON line per thing it received; the lines are read as they come.
/// Closing its standard input ends it.
final class ReportingChild<Line: Decodable & Sendable>: Sendable {
    let port: Int
    private let process: Process
    private let input: FileHandle
    private let received = Mutex<[Line]>([])
    private let arrival = Wakeup()

    /// Starts `python3 <script> <arguments>`; `what` names it in errors.
    init(script: String, arguments: [String], what: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.path(of: script)] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let lines = LineReader(stdout.fileHandleForReading)
        guard let first = lines.next(), let started = try? JSONDecoder().decode(Started.self, from: Data(first.utf8)) else {
            process.terminate()
            throw ReportingChildError("\(what) did not start (deploy/install-deps.sh installs what it needs)")
        }
        port = started.port
        startThread(named: "sous-test-child") { [self] in
            while let text = lines.next() {
                guard let line = try? JSONDecoder().decode(Line.self, from: Data(text.utf8)) else { continue }
                received.withLock { $0.append(line) }
                arrival.signal()
            }
        }
    }

    var lines: [Line] { received.withLock { $0 } }

    /// Waits until at least `count` lines satisfy `matching` (at most `timeout`), and returns those.
    func lines(count: Int, within timeout: Duration, what: String, matching: @escaping @Sendable (Line) -> Bool) async throws -> [Line] {
        try await withTimeout(timeout, waitingFor: what) { [self] in
            while true {
                let now = lines.filter(matching)
                if now.count >= count { return now }
                await arrival.wait()
                try Task.checkCancellation()
            }
        }
    }

    func stop() {
        try? input.close()
        process.waitUntilExit()
    }

    private struct Started: Decodable { let port: Int }

    static func path(of script: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Support/\(script)").path
    }
}

/// A test server in a child process, stopped by closing its input.
public protocol ChildServer: Sendable {
    func stop()
}

/// Runs `body` with a server started off Swift's cooperative threads (starting one blocks until
/// it listens), stopping it afterwards however `body` ends.
func withChildServer<Server: ChildServer, T: Sendable>(
    _ start: @escaping @Sendable () throws -> Server, _ body: (Server) async throws -> T
) async throws -> T {
    let server = try await offThePool(start)
    do {
        let value = try await body(server)
        _ = try? await offThePool { server.stop() }
        return value
    } catch {
        _ = try? await offThePool { server.stop() }
        throw error
    }
}

struct ReportingChildError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Lines from a pipe, read on the calling thread.
private final class LineReader: @unchecked Sendable {
    // Used by one thread at a time: the starter, then the reading thread.
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return nil }
            buffer += chunk
        }
    }
}
