import Foundation
public import SousRuntime

/// A PostgreSQL server of one test's own (`deploy/postgres-test-server.sh`), for what the
/// shared test server must not suffer: being stopped and started again.
public final class PrivatePostgres: Sendable {
    public let directory: String
    public let url: String

    /// Whether PostgreSQL's server is installed here (`deploy/install-deps.sh` installs it).
    public static var isInstalled: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).contains {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb")
        }
    }

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-pg-\(UUID().uuidString.prefix(8))").path
        url = try Self.script("start", directory).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A location in a schema of its own on this server.
    public func location(schema: String) throws -> PostgresLocation {
        try PostgresLocation(url: url, defaultSchema: schema)
    }

    /// Stops the server; its data stays for ``resume()``.
    public func halt() throws { _ = try Self.script("halt", directory) }

    public func resume() throws { _ = try Self.script("resume", directory) }

    /// Stops the server and deletes its folder.
    public func stop() { _ = try? Self.script("stop", directory) }

    private static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/postgres-test-server.sh").path

    /// Runs the script with posix_spawn and waitpid (Foundation's `Process` on Linux can miss
    /// the child's exit and wait forever), its output in files.
    @discardableResult
    private static func script(_ command: String, _ directory: String) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sous-pg-\(UUID().uuidString)").path
        defer {
            try? FileManager.default.removeItem(atPath: output + ".out")
            try? FileManager.default.removeItem(atPath: output + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, output + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let words: [String] = ["/bin/bash", scriptPath, command, directory]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, arguments, environ)
        guard spawned == 0 else { throw PrivatePostgresError(description: "\(command): cannot start bash (\(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let printed = (try? String(contentsOfFile: output + ".out", encoding: .utf8)) ?? ""
        guard status == 0 else {
            let complaint = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
            throw PrivatePostgresError(description: "\(command) failed (status \(status)): \(complaint)")
        }
        return printed
    }
}

struct PrivatePostgresError: Error, CustomStringConvertible {
    let description: String
}
