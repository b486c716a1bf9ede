import Foundation
import SousCLI
import SousTestSupport
import SousWire
import Testing

@Suite(.closesItsSockets)
struct CLIParsingTests {
    @Test func unknownSubcommandIsAUsageError() async {
        let result = await sous(["recipes", "frobnicate"])
        #expect(result.code == 64)
        #expect(result.out.isEmpty)
        #expect(!result.err.isEmpty)
    }

    @Test func aMistypedCommandIsNamedWithTheClosestOne() async {
        let singular = await sous(["recipe", "search", "lentil"])
        #expect(singular.code == 64 && singular.err.contains("did you mean `sous recipes`?"), "\(singular.err)")
        let typo = await sous(["--json", "grocereis", "show"])
        #expect(typo.code == 64 && typo.err.contains("did you mean `sous groceries`?"), "\(typo.err)")
        let nothingClose = await sous(["xylophone"])
        #expect(nothingClose.code == 64 && nothingClose.err.contains("see `sous --help`"), "\(nothingClose.err)")
    }

    @Test func versionPrintsTheVersion() async {
        let result = await sous(["--version"])
        #expect(result.code == 0 && result.out.trimmingCharacters(in: .whitespacesAndNewlines) == SousVersion.current)
    }

    @Test func helpPrintsToStandardOutputAndSucceeds() async {
        let result = await sous(["--help"])
        #expect(result.code == 0)
        #expect(result.out.contains("recipes"))
    }

    @Test func anUnreachableServiceNamesTheServiceAndWhereItWasLooked() async {
        let result = await sous(["recipes", "show", "pancakes", "--catalog", "inproc://nobody-binds-this", "--timeout-ms", "100"])
        #expect(result.code == 5)
        #expect(result.err.contains("catalog"))
        #expect(result.err.contains("inproc://nobody-binds-this"))
        #expect(result.err.split(separator: "\n").count == 1, "one line on stderr")
        // The command's limit is for the whole call, retries included: one attempt used it up.
        #expect(result.err.contains("(1 attempt,"), "\(result.err)")
        let search = await sous(["recipes", "search", "lentil", "--catalog", "inproc://nobody-binds-this", "--timeout-ms", "100"])
        #expect(search.code == 5 && search.err.contains("catalog did not answer") && !search.err.contains("--no-filters"), "\(search.err)")
    }

    @Test func numbersOutOfRangeAreUsageErrorsNotCrashes() async {
        for arguments in [
            ["reminders", "watch", "--timeout", "inf"],
            ["reminders", "watch", "--timeout", "nan"],
            ["reminders", "watch", "--timeout", "1e300"],
            ["status", "--timeout-ms", "-1"],
            ["status", "--timeout-ms", "9223372036854775807"],
        ] {
            let result = await sous(
                arguments + ["--planner", "inproc://nobody-binds-this", "--timeout-ms", "100"].filter { _ in !arguments.contains("--timeout-ms") })
            #expect(result.code == 64, "\(arguments): \(result.err)")
            #expect(!result.err.isEmpty)
        }
    }
}
