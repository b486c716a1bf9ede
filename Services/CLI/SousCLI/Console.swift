import Foundation

/// Where commands write. A task-local so tests can capture a command's output in-process.
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private var capturedOut = ""
    private var capturedErr = ""
    private let capturing: Bool

    public init(capturing: Bool) { self.capturing = capturing }

    @TaskLocal public static var current = Console(capturing: false)

    public func out(_ text: String = "", terminator: String = "\n") {
        if capturing {
            lock.withLock { capturedOut += text + terminator }
        } else {
            // Written straight to the descriptor: `print` is block-buffered when stdout is a pipe,
            // and streaming commands (`reminders watch`) and prompts must show as they happen.
            FileHandle.standardOutput.write(Data((text + terminator).utf8))
        }
    }

    public func err(_ text: String) {
        if capturing {
            lock.withLock { capturedErr += text + "\n" }
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    public var standardOutput: String { lock.withLock { capturedOut } }
    public var standardError: String { lock.withLock { capturedErr } }
}
