import Foundation
import HTTPTypes
import HummingbirdTesting
import SocketCheck
import Testing

/// Two members of one household on the web: the same list, and a tick reaching the other's
/// open page through the event stream, without asking again.
@Suite(.closesItsSockets, .serialized)
struct WebHouseholdTests {
    @Test func aTickReachesTheOtherMembersOpenList() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client), bob = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await bob.register("Bob", email: "bob@example.org")
            try await bob.joinHousehold(of: ada)
            #expect(try await bob.get("/household").text.contains("Ada"))

            try await ada.get("/list")
            #expect(try await ada.post("/list/recipes", [("recipe", "tomato-lentil-soup")]).status == .seeOther)
            let shared = try await bob.get("/list?part=body")
            #expect(shared.text.contains("data-line=\"red-lentils\""), "Bob sees the household's list")
            let version = try #require(shared.headers[HTTPField.Name("X-List-Version")!])

            let port = try #require(client.port)
            let stream = try EventStream(
                port: port, path: "/list/events?after=\(version)", cookie: "sous_session=\(try #require(bob.cookie("sous_session")))")
            try await ada.post(
                "/list/check", [("line", "red-lentils"), ("checked", "1")],
                headers: [HTTPField.Name("X-Sous-Fetch")!: "1", HTTPField.Name("Idempotency-Key")!: "ada-tick-red-lentils"])
            let event = try await stream.next("list")
            #expect(Int(event) == Int(version)! + 1, "the stream names the new version")
            let seen = try await bob.get("/list?part=body")
            #expect(seen.text.contains("class=\"line checked\" data-line=\"red-lentils\""), "Bob's list shows Ada's tick")

            // Someone of another household sees none of it.
            let eve = Browser(client)
            try await eve.register("Eve", email: "eve@example.org")
            #expect(!(try await eve.get("/list?part=body")).text.contains("red-lentils"))
        }
    }

    @Test func theStreamSaysWhenTheSessionHasEnded() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            let version = try #require(try await ada.get("/list?part=body").headers[HTTPField.Name("X-List-Version")!])
            let cookie = "sous_session=\(try #require(ada.cookie("sous_session")))"
            let stream = try EventStream(port: try #require(client.port), path: "/list/events?after=\(version)", cookie: cookie)
            try await ada.get("/week")
            try await ada.post("/signout")
            #expect(try await stream.next("ended", within: .seconds(40)) == "/signin")
        }
    }
}
