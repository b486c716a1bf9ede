import Foundation
import SousCLI
import SousRuntime
import SousSchema
import SousTestSupport

/// Output and exit code of one in-process `sous` run.
struct CLIResult {
    var code: Int32
    var out: String
    var err: String
}

/// Runs `sous` with `arguments` in-process, capturing what it prints, signed in as the test
/// users (``testCredentials``; `--user NAME` picks one) unless `credentials` names another folder.
/// `arguments` with a 30 s timeout per answer unless they set one: the CLI's default (3 s) is
/// for people at a terminal, and a busy two-core CI machine running the whole suite can take
/// longer than that to answer. Only for a subcommand (the root takes no timeout), and before a
/// `--`, after which everything is a positional argument.
private func patient(_ arguments: [String]) -> [String] {
    guard let first = arguments.first, !first.hasPrefix("-"), !arguments.contains(where: { $0.hasPrefix("--timeout-ms") }) else {
        return arguments
    }
    var patient = arguments
    patient.insert("--timeout-ms=30000", at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
    return patient
}

func sous(_ arguments: [String], console: Console = Console(capturing: true), credentials: String? = nil) async -> CLIResult {
    let folder: String
    if let credentials {
        folder = credentials
    } else {
        switch testCredentials {
        case .success(let path): folder = path
        case .failure(let error): return CLIResult(code: -1, out: "", err: "the test credentials could not be written: \(error)")
        }
    }
    let arguments = patient(arguments)
    let code = await Credentials.$folder.withValue(folder) {
        await Console.$current.withValue(console) { await SousCommand.run(arguments) }
    }
    return CLIResult(code: code, out: console.standardOutput, err: console.standardError)
}

/// A credentials folder where ada (the current account), bob, adam and an operator are signed
/// in with in-process test sessions (a failure to write it fails every command that uses it).
let testCredentials: Result<String, any Error> = Result {
    let folder = testCredentialsFolder
    // Every CLI test of the process shares it: removed when the process exits.
    atexit { try? FileManager.default.removeItem(atPath: testCredentialsFolder) }
    var credentials = Credentials()
    for user in ["operator", "bob", "adam", "ada"] {
        credentials.accounts.append(
            .init(user: user, email: "\(user)@example.org", name: user, session: "test-user:\(user)", token: TestSessions.token(for: user)))
    }
    credentials.current = "ada"
    try Credentials.$folder.withValue(folder) { try credentials.save() }
    return folder
}

private let testCredentialsFolder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-cli-tests-\(UUID().uuidString)").path
