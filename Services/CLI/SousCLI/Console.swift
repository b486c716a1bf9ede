import Foundation
import SousClient

/// Where commands write. A task-local so tests can capture a command's output in-process.
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private var capturedOut = ""
    private var capturedErr = ""
    private var outputWaiters: [UUID: (text: String, continuation: CheckedContinuation<Void, Never>)] = [:]
    private let capturing: Bool
    /// Lines a capturing console answers prompts with, in order (tests).
    private var input: [String]

    public init(capturing: Bool, input: [String] = []) {
        self.capturing = capturing
        self.input = input
    }

    /// Reads a secret: from the captured input, or from the terminal with echo off (after
    /// `prompt` on stderr), or as one line of a piped standard input. Never from argv.
    public func readSecret(prompt: String) -> String? {
        if capturing { return lock.withLock { input.isEmpty ? nil : input.removeFirst() } }
        return Terminal.readSecret(prompt: prompt)
    }

    /// Whether a prompt can be answered: a terminal on standard input, or captured input left.
    public var canPrompt: Bool { capturing ? lock.withLock { !input.isEmpty } : isatty(STDIN_FILENO) == 1 }

    /// One line typed after `prompt` (written to stderr), or the next captured one; nil at the
    /// end of the input.
    public func readLine(prompt: String) -> String? {
        if capturing { return lock.withLock { input.isEmpty ? nil : input.removeFirst() } }
        FileHandle.standardError.write(Data(prompt.utf8))
        return Swift.readLine(strippingNewline: true)
    }

    @TaskLocal public static var current = Console(capturing: false)

    public func out(_ text: String = "", terminator: String = "\n") {
        if capturing {
            let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
                capturedOut += text + terminator
                let met = outputWaiters.filter { capturedOut.contains($0.value.text) }
                for id in met.keys { outputWaiters[id] = nil }
                return met.values.map(\.continuation)
            }
            for waiter in ready { waiter.resume() }
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

    /// Returns once the captured standard output contains `text` (or the task is cancelled), so
    /// a test can act exactly when a long-running command (`reminders watch`) says it is ready.
    public func waitForOutput(containing text: String) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let alreadyThere = lock.withLock { () -> Bool in
                    if capturedOut.contains(text) || Task.isCancelled { return true }
                    outputWaiters[id] = (text, continuation)
                    return false
                }
                if alreadyThere { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { outputWaiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
    public var standardError: String { lock.withLock { capturedErr } }
}
