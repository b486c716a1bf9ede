import Foundation
import SousCLI

/// Output and exit code of one in-process `sous` run.
struct CLIResult {
    var code: Int32
    var out: String
    var err: String
}

/// Runs `sous` with `arguments` in-process, capturing what it prints.
func sous(_ arguments: [String], console: Console = Console(capturing: true)) async -> CLIResult {
    let code = await Console.$current.withValue(console) { await SousCommand.run(arguments) }
    return CLIResult(code: code, out: console.standardOutput, err: console.standardError)
}
