import Foundation
import SousCLI
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import Testing

/// `sous friends` against the real services: two people registered through `sous register`
/// become friends, share, compare on the board, and part.
@Suite(.closesItsSockets)
struct FriendsCLITests {
    @Test func twoPeopleBecomeFriendsShareAndPart() async throws {
        let clock = WallClock.manual(at: ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!)
        let stack = try StackFixture.make(clock: clock)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-friends-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [String] = []
            for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
            func run(_ arguments: [String], as user: String, input: [String] = []) async -> CLIResult {
                await sous(arguments + endpoints + ["--user", user], console: Console(capturing: true, input: input), credentials: folder)
            }
            let password = "correct horse battery staple"
            for (email, name) in [("ada@example.org", "Ada"), ("bob@example.org", "Bob")] {
                let registered = await sous(
                    ["register", "--email", email, "--name", name, "--device", "cli"] + endpoints,
                    console: Console(capturing: true, input: [password]), credentials: folder)
                #expect(registered.code == 0, "\(registered.err)")
            }

            let asked = await run(["friends", "request", "Bob@Example.org"], as: "ada@example.org")
            #expect(asked.code == 0 && asked.out.contains("Asked bob@example.org"), "\(asked.out)\(asked.err)")
            let stranger = await run(["friends", "request", "nobody@example.org"], as: "ada@example.org")
            #expect(stranger.code == 0 && stranger.out.contains("Asked nobody@example.org"), "the same answer for an email nobody has")
            #expect(await run(["friends", "request", "ada@example.org"], as: "ada@example.org").code == 4, "one's own email")

            let received = await run(["friends", "requests", "--json"], as: "bob@example.org")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let requests = try decoder.decode(FriendRequests.self, from: Data(received.out.utf8))
            let id = try #require(requests.received.first?.id, "\(received.out)\(received.err)")
            let accepted = await run(["friends", "accept", id], as: "bob@example.org")
            #expect(accepted.code == 0 && accepted.out.contains("Ada"), "\(accepted.out)\(accepted.err)")
            #expect(await run(["friends", "accept", id], as: "bob@example.org").code == 3, "a request is answered once")

            #expect(await run(["friends", "progress", "Ada"], as: "bob@example.org").code == 8, "nothing is shared until Ada says so")
            let shared = await run(["friends", "share", "on", "--with", "bob"], as: "ada@example.org")
            #expect(shared.code == 0 && shared.out.contains("yes (their own)"), "\(shared.out)\(shared.err)")
            #expect(
                await run(
                    ["diary", "add", "Soup", "--meal", "lunch", "--grams", "200", "--kcal", "50", "--carbs", "6", "--protein", "2", "--fat", "1.5"],
                    as: "ada@example.org"
                ).code == 0)
            let progress = await run(["friends", "progress", "ada"], as: "bob@example.org")
            #expect(
                progress.code == 0 && progress.out.contains("ada on 2026-03-10: logged") && progress.out.contains("kcal 5 %")
                    && progress.out.contains("days logged: 1 of 7"), "\(progress.out)\(progress.err)")
            #expect(!progress.out.contains("Soup"), "a friend never sees a food")

            #expect(await run(["friends", "board"], as: "ada@example.org").code == 7, "the board is for those who take part")
            for user in ["ada@example.org", "bob@example.org"] { #expect(await run(["friends", "compete", "on"], as: user).code == 0) }
            let board = await run(["friends", "board"], as: "bob@example.org")
            #expect(board.code == 0 && board.out.contains("Week of 2026-03-09 to 2026-03-15"), "\(board.out)\(board.err)")
            let rows = board.out.split(separator: "\n").map(String.init)
            #expect(rows.contains { $0.hasPrefix("1  Ada") } && rows.contains { $0.hasPrefix("2  you") }, "\(board.out)")

            #expect(await run(["friends", "end", "Ada"], as: "bob@example.org").code == 0)
            #expect(await run(["friends", "list"], as: "ada@example.org").out.contains("No friends yet"))
            #expect(await run(["friends", "end", "Bob"], as: "ada@example.org").code == 64, "no friend of that name any more")
        }
    }
}
