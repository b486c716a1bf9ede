import Foundation
import SousRuntime
import Synchronization

/// A real SMTP server on loopback for tests of what Sous mails: `Tests/Support/mail_catcher.py`
/// (Python's aiosmtpd) in a child process, with STARTTLS (or TLS from the first byte) under a
/// certificate for `localhost` made for the run, and AUTH when a user is given. The mails it
/// accepts are read back as they arrive.
public final class MailCatcher: ChildServer {
    public enum Mode: String, Sendable { case starttls, implicit, none }

    public var port: Int { child.port }
    /// The certificate the server presents, for the client's `SOUS_SMTP_CA_FILE`.
    public let certificateFile: String
    private let child: ReportingChild<CaughtMail>
    private let folder: URL

    /// Starts the server. `refuse`, `defer` and `stall` name substrings of recipient addresses
    /// the server answers 550, answers 451, or never answers.
    public init(
        mode: Mode = .starttls, user: String? = nil, password: String? = nil, refuse: [String] = [], defer deferred: [String] = [],
        stall: [String] = []
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificateFile = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        try Self.run(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", certificateFile,
            ])
        var arguments = ["--tls-mode", mode.rawValue, "--cert", certificateFile, "--key", key]
        if let user, let password { arguments += ["--user", user, "--password", password] }
        for (flag, values) in [("--refuse", refuse), ("--defer", deferred), ("--stall", stall)] {
            for value in values { arguments += [flag, value] }
        }
        child = try ReportingChild(script: "mail_catcher.py", arguments: arguments, what: "the mail catcher (aiosmtpd)")
    }

    /// The mails accepted so far.
    public var mails: [CaughtMail] { child.lines }

    /// Waits until at least `count` mails have arrived (at most `timeout`), and returns them all.
    public func mails(count: Int, within timeout: Duration = .seconds(30)) async throws -> [CaughtMail] {
        try await child.lines(count: count, within: timeout, what: "\(count) mail(s) at the mail catcher") { _ in true }
    }

    /// Stops the server (closing its standard input ends it) and removes its certificate.
    public func stop() {
        child.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ReportingChildError("\(arguments.first ?? executable) failed") }
    }
}

/// Runs `body` with a started ``MailCatcher``, stopping it afterwards.
public func withMailCatcher<T: Sendable>(
    mode: MailCatcher.Mode = .starttls, user: String? = nil, password: String? = nil, refuse: [String] = [], defer deferred: [String] = [],
    stall: [String] = [], _ body: (MailCatcher) async throws -> T
) async throws -> T {
    try await withChildServer({ try MailCatcher(mode: mode, user: user, password: password, refuse: refuse, defer: deferred, stall: stall) }, body)
}

/// One mail as the server accepted it.
public struct CaughtMail: Sendable, Decodable {
    public let from: String
    public let to: [String]
    /// The raw message: headers, a blank line, the body.
    public let data: String
    /// Whether the session was encrypted.
    public let tls: Bool
    /// The user the client authenticated as.
    public let auth: String?

    /// A header's value (the first of that name), encoded words decoded.
    public func header(_ name: String) -> String? {
        let head = data.components(separatedBy: "\r\n\r\n").first ?? ""
        var unfolded: [String] = []
        for line in head.components(separatedBy: "\r\n") {
            if line.hasPrefix(" ") || line.hasPrefix("\t"), !unfolded.isEmpty {
                unfolded[unfolded.count - 1] += line.trimmingCharacters(in: .whitespaces)
            } else {
                unfolded.append(line)
            }
        }
        guard let line = unfolded.first(where: { $0.lowercased().hasPrefix(name.lowercased() + ":") }) else { return nil }
        let value = line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        return Self.decodedWords(value)
    }

    /// The body's text, decoded from base64 when the message says so.
    public var text: String {
        let body = data.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        guard header("Content-Transfer-Encoding")?.lowercased() == "base64" else { return body }
        let joined = body.components(separatedBy: "\r\n").joined()
        return Data(base64Encoded: joined).map { String(decoding: $0, as: UTF8.self) } ?? body
    }

    private static func decodedWords(_ value: String) -> String {
        var result = ""
        var rest = Substring(value)
        while let start = rest.range(of: "=?UTF-8?B?"), let end = rest[start.upperBound...].range(of: "?=") {
            result += rest[..<start.lowerBound]
            let encoded = String(rest[start.upperBound..<end.lowerBound])
            result += Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) } ?? encoded
            rest = rest[end.upperBound...]
        }
        return result + rest
    }
}
