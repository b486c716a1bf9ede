import Foundation
import Hummingbird
import SousCLI
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import Testing

/// `sous recipes import <address>` against the real services and a real web server: the page is
/// fetched, lines matched to USDA foods are listed, and a line one member of a household
/// explained is not asked of the other.
@Suite(.closesItsSockets)
struct RecipeImportCLITests {
    static let page = #"""
        <html><head><script type="application/ld+json">
        {"@context": "https://schema.org", "@type": "Recipe", "name": "Pitaya bowl", "recipeYield": "2",
         "recipeIngredient": ["1 dragonfruit", "100 g fontina cheese", "2 onions"], "recipeInstructions": "Mix."}
        </script></head><body></body></html>
        """#

    @Test func aPageImportsAndAHouseholdIsNotAskedTwice() async throws {
        let stack = try StackFixture.make()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-import-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let router = Router()
        router.get("/bowl") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: ResponseBody(byteBuffer: ByteBuffer(string: Self.page)))
        }
        try await withLocalWebServer(router) { port in
            try await withRunningServices(stack.hosts) { _ in
                var endpoints: [String] = []
                for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
                func run(_ arguments: [String], as user: String, input: [String] = []) async -> CLIResult {
                    await sous(arguments + endpoints + ["--user", user], console: Console(capturing: true, input: input), credentials: folder)
                }
                for (email, name) in [("ada@example.org", "Ada"), ("bob@example.org", "Bob")] {
                    let registered = await sous(
                        ["register", "--email", email, "--name", name, "--device", "cli"] + endpoints,
                        console: Console(capturing: true, input: ["correct horse battery staple"]), credentials: folder)
                    #expect(registered.code == 0, "\(registered.err)")
                }
                let invited = await run(["household", "invite"], as: "ada@example.org")
                let code = try #require(invited.out.split(separator: "\n").first { $0.hasPrefix("Invitation code: ") }?.split(separator: " ").last)
                #expect(await run(["household", "join", String(code)], as: "bob@example.org").code == 0)

                let address = "http://127.0.0.1:\(port)/bowl"
                let unasked = await run(["recipes", "import", address, "--no-prompt"], as: "ada@example.org")
                #expect(unasked.code == 4 && unasked.out.contains("\"1 dragonfruit\": no catalog ingredient"), "\(unasked.out)\(unasked.err)")
                let asked = await run(["recipes", "import", address], as: "ada@example.org", input: ["1 banana"])
                #expect(
                    asked.code == 0 && asked.out.contains("Imported r-") && asked.out.contains("Pitaya bowl, 3 ingredient lines")
                        && asked.out.contains(#""100 g fontina cheese" is Cheese, fontina (a USDA food, 100 % of its words)"#),
                    "\(asked.out)\(asked.err)")
                // Bob lives with Ada: her answer is the household's.
                let bob = await run(["recipes", "import", address, "--no-prompt"], as: "bob@example.org")
                #expect(
                    bob.code == 0 && bob.out.contains(#""1 dragonfruit" is Banana, as you or your household said before"#), "\(bob.out)\(bob.err)")
                let mappings = await run(["recipes", "mappings"], as: "bob@example.org")
                #expect(mappings.code == 0 && mappings.out.contains("1 dragonfruit") && mappings.out.contains("household"), "\(mappings.out)")
                let blocked = await run(["recipes", "import", "http://169.254.169.254/latest/meta-data/"], as: "bob@example.org")
                #expect(blocked.code == 4 && blocked.err.contains("link-local and cloud metadata"), "\(blocked.out)\(blocked.err)")
            }
        }
    }
}
