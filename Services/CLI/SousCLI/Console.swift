import Foundation

/// Where commands write. A task-local so tests can capture a command's output in-process.
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private var capturedOut = ""
    private var capturedErr = ""
    private let capturing: Bool

    public init(capturing: Bool) { self.capturing = capturing }

    @TaskLocal public static var current = Console(capturing: false)

    public func out(_ text: String = "") {
        if capturing { lock.withLock { capturedOut += text + "\n" } } else { print(text) }
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
