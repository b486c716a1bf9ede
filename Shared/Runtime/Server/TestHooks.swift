import Foundation
import SousCrypto

/// Settings read once from the environment that exist only for tests.
enum TestHooks {
    /// `SOUS_TEST_EXIT_AFTER_COMMIT=<method>`: the process exits (code 86) right after that
    /// method's write commits, before its reply is sent, to test retries across a crash.
    static let exitAfterCommit: String? = ProcessInfo.processInfo.environment["SOUS_TEST_EXIT_AFTER_COMMIT"]
    /// `SOUS_RECORD_CORPUS=<folder>`: every request body a server receives is written there as
    /// `<method>--<digest>.msgpack`, the seeds of the fuzz test (Tests/FuzzTests/Corpus).
    static let recordCorpus: String? = ProcessInfo.processInfo.environment["SOUS_RECORD_CORPUS"]

    static func record(method: String, body: [UInt8]) {
        guard let folder = recordCorpus, method.allSatisfy({ $0.isLetter || $0 == "." }) else { return }
        let name = "\(method)--\(Sodium.digest([body]).prefix(6).map { String(format: "%02x", $0) }.joined()).msgpack"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(body))
    }
}
