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
func sous(_ arguments: [String], console: Console = Console(capturing: true), credentials: String = testCredentials) async -> CLIResult {
    let code = await Credentials.$folder.withValue(credentials) {
        await Console.$current.withValue(console) { await SousCommand.run(arguments) }
    }
    return CLIResult(code: code, out: console.standardOutput, err: console.standardError)
}

/// A credentials folder where ada (the current account), bob, adam and an operator are signed
/// in with in-process test sessions.
let testCredentials: String = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-cli-tests-\(UUID().uuidString)").path
    var credentials = Credentials()
    for user in ["operator", "bob", "adam", "ada"] {
        credentials.accounts.append(.init(user: user, email: "\(user)@example.org", name: user, session: "test-user:\(user)", token: TestSessions.token(for: user)))
    }
    credentials.current = "ada"
    Credentials.$folder.withValue(folder) { try! credentials.save() }
    return folder
}()
