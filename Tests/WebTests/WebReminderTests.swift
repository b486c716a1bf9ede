import Foundation
import HTTPTypes
import HummingbirdTesting
import SocketCheck
import SousTestSupport
import Testing

/// The Reminders page's channels against a real HTTP endpoint on loopback: added, tested,
/// removed, quiet hours saved, and refusals shown on the page naming what to fix.
@Suite(.closesItsSockets)
struct WebReminderTests {
    @Test func channelsAreAddedTestedAndRemovedFromThePage() async throws {
        try await withHTTPCatcher { http in
            try await WebHarness.run { _, client in
                let ada = Browser(client)
                try await ada.register("Ada", email: "ada@example.org")
                let page = try await ada.get("/reminders")
                #expect(page.text.contains("Where reminders go"))
                #expect(page.text.contains(#"id="push-subscribe""#) && page.text.contains("hidden"), "the push button waits for the script")

                let hook = try await ada.post(
                    "/reminders/channels/add", [("kind", "webhook"), ("address", http.url("/hook/ada")), ("label", "<b>home</b>")])
                #expect(hook.status == .ok)
                #expect(hook.text.contains("signing secret, shown once"))
                #expect(hook.text.contains("&lt;b&gt;home&lt;/b&gt;"), "a label is shown as text")
                let id = try #require(hook.text.range(of: #"name="id" value=""#).map { String(hook.text[$0.upperBound...].prefix { $0 != "\"" }) })

                let tested = try await ada.post("/reminders/channels/test", [("id", id)])
                #expect(tested.text.contains("The test message was delivered."))
                let received = try await http.requests(to: "/hook/ada")
                #expect(received[0].body?.contains(#""event":"test""#) == true)

                let bad = try await ada.post("/reminders/channels/add", [("kind", "ntfy"), ("address", "not a topic!")])
                #expect(bad.status == .badRequest || bad.status == .unprocessableContent)
                #expect(bad.text.contains("an ntfy topic is 1 to 64 letters"))
                let pigeon = try await ada.post("/reminders/channels/add", [("kind", "pigeon"), ("address", "roof")])
                #expect(pigeon.text.contains("Where must be one of"))

                let quiet = try await ada.post("/reminders/channels/quiet", [("quiet", "1"), ("from", "22"), ("to", "7")])
                #expect(quiet.text.contains(#"name="quiet" value="1" checked"#))
                let badQuiet = try await ada.post("/reminders/channels/quiet", [("quiet", "1"), ("from", "22"), ("to", "22")])
                #expect(badQuiet.text.contains("quiet hours start and end at different hours"))

                let removed = try await ada.post("/reminders/channels/remove", [("id", id)])
                #expect(removed.text.contains("Removed."))
                #expect(!removed.text.contains(http.url("/hook/ada")))

                // Another user cannot test or remove Ada's channel.
                let eve = Browser(client)
                try await eve.register("Eve", email: "eve@example.org")
                try await eve.get("/reminders")
                let stolen = try await eve.post("/reminders/channels/test", [("id", id)])
                #expect(stolen.text.contains("you have no channel"))
                #expect(http.requests.count == 1)
            }
        }
    }
}
