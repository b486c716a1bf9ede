import Foundation
import HTTPTypes
import HummingbirdTesting
import SocketCheck
import Testing

/// Friends on the web: a request by email, an answer, sharing switched on for one friend, the
/// progress page that friend sees (and a stranger does not), and the weekly board; a
/// household's favourite on the recipe page, seen by the other member.
@Suite(.closesItsSockets, .serialized)
struct WebFriendsTests {
    @Test func friendsAskAnswerShareAndCompare() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client), bob = Browser(client), eve = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await bob.register("Bob", email: "bob@example.org")
            try await eve.register("Eve", email: "eve@example.org")

            try await ada.get("/friends")
            let asked = try await ada.post("/friends/request", [("email", "bob@example.org")])
            #expect(asked.status == .ok && asked.text.contains("Asked bob@example.org"), "\(asked.status)")
            let unknown = try await ada.post("/friends/request", [("email", "nobody@example.org")])
            #expect(unknown.text.contains("Asked nobody@example.org"), "the same answer for an email nobody has")

            let page = try await bob.get("/friends")
            #expect(page.text.contains("Requests for you") && page.text.contains("ada@example.org"))
            let id = try #require(
                page.text.components(separatedBy: "name=\"id\" value=\"").dropFirst().first?.split(separator: "\"").first.map(String.init))
            let accepted = try await bob.post("/friends/answer", [("id", id), ("accept", "1")])
            #expect(accepted.status == .ok && accepted.text.contains("You are friends now"))
            let adaUser = try #require(
                accepted.text.components(separatedBy: "name=\"user\" value=\"").dropFirst().first?.split(separator: "\"").first.map(String.init))

            // Nothing is shared yet: Bob is refused, as Eve, a stranger, is.
            #expect(try await bob.get("/friends/progress?user=\(adaUser)").status == .forbidden)
            #expect(try await eve.get("/friends/progress?user=\(adaUser)").status == .forbidden)
            try await ada.get("/friends")
            let bobUser = try #require(
                (try await ada.get("/friends")).text.components(separatedBy: "name=\"user\" value=\"").dropFirst().first?.split(separator: "\"")
                    .first.map(String.init))
            #expect(try await ada.post("/friends/share", [("user", bobUser), ("share", "1")]).status == .seeOther)
            let progress = try await bob.get("/friends/progress?user=\(adaUser)")
            #expect(progress.status == .ok && progress.text.contains("Ada on ") && progress.text.contains("% of the goal"), "\(progress.status)")
            #expect(try await eve.get("/friends/progress?user=\(adaUser)").status == .forbidden, "still nothing for a stranger")

            #expect(try await bob.get("/friends/board").status == .conflict, "the board is for those who take part")
            for person in [ada, bob] {
                try await person.get("/friends")
                #expect(try await person.post("/friends/compete", [("on", "1")]).status == .seeOther)
            }
            let board = try await bob.get("/friends/board")
            #expect(board.status == .ok && board.text.contains("<td>Ada</td>") && board.text.contains("<td>You</td>"))
        }
    }

    @Test func aHouseholdsFavouriteIsEveryMembers() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client), bob = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await bob.register("Bob", email: "bob@example.org")
            try await bob.joinHousehold(of: ada)

            try await ada.get("/recipes/minestrone")
            #expect(try await ada.post("/recipes/minestrone/householdFavorite").status == .seeOther)
            #expect(try await ada.get("/recipes/minestrone").text.contains("♥ The household's favourite"))
            let shared = try await bob.get("/recipes?show=household")
            #expect(shared.text.contains("/recipes/minestrone"), "Bob sees the household's favourite")
            #expect(!(try await bob.get("/recipes?show=favorites")).text.contains("/recipes/minestrone"), "not a personal favourite")
        }
    }
}
