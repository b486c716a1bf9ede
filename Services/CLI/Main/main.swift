import Foundation
import SousCLI

// `sous` only parses and runs; everything it does lives in SousCLI so tests can run it in-process.
exit(await SousCommand.run(Array(CommandLine.arguments.dropFirst())))
