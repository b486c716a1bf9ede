import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PlannerService
import SocketCheck
import SousClient
import SousMail
import SousSchema
import SousTestSupport
import Testing
import WebApp

/// Every page, signed in and not, over real HTTP against the real services.
@Suite(.closesItsSockets, .serialized)
struct WebPagesTests {
    static let pages = [
        ("/week", "This week"), ("/list", "Grocery list"), ("/recipes", "recipes found"), ("/recipes?show=favorites", "Favourites"),
        ("/recipes?show=mine", "Mine"), ("/recipes?show=community", "Community"), ("/recipes/tomato-lentil-soup", "Nutrition per serving"),
        ("/recipes/new", "Write a recipe"), ("/recipes/import", "Import a recipe"), ("/cook/tomato-lentil-soup", "Have these ready"),
        ("/cook/tomato-lentil-soup?step=1", "Step 1 of"), ("/diary", "Today against your goals"), ("/diary?q=lentils", "kcal/100 g"),
        ("/goals", "Or start from a preset"), ("/settings", "Cooking patience"), ("/household", "Invite someone"),
        ("/coeliac", "Journal"), ("/reminders", "Next reminder"), ("/account", "Where you are signed in"), ("/list/orders", "No orders yet"),
        ("/pantry", "What you have"), ("/week/templates", "Keep this week"), ("/week/calendar", "Make a private address"),
    ]

    @Test func everyPageRendersForASignedInPersonWithTheSecurityHeaders() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            for (path, text) in Self.pages {
                let page = try await ada.get(path)
                #expect(page.status == .ok, "\(path): \(page.status) \(page.text.prefix(300))")
                #expect(page.text.contains(text), "\(path) shows \(text)")
                #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true, "\(path)")
                #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(path)")
                #expect(page.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
                #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin", "\(path)")
                #expect(!page.text.contains("<script>") && !page.text.contains(" style=\""), "\(path): no inline script or style")
                for attribute in ["src=\"http", "href=\"http", "action=\"http", "src=\"//", "href=\"//"] {
                    #expect(!page.text.contains(attribute), "\(path): nothing from another origin")
                }
                #expect(page.text.contains("<html lang=\"en\">") && page.text.contains("Skip to content"), "\(path)")
            }
            let chart = try await ada.get("/diary")
            #expect(chart.text.contains("<svg") && !chart.text.contains("<?xml"), "the chart is inline SVG")
        }
    }

    @Test func withoutASessionPagesSendToSignInAndAssetsAreServed() async throws {
        try await WebHarness.run { _, client in
            let stranger = Browser(client)
            for (path, _) in Self.pages {
                let page = try await stranger.get(path)
                #expect(page.status == .seeOther, "\(path)")
                #expect(page.location?.hasPrefix("/signin?next=") == true, "\(path): \(page.location ?? "")")
            }
            #expect(try await stranger.get("/signin").status == .ok)
            #expect(try await stranger.get("/register").status == .ok)
            for asset in ["/static/app.css", "/static/app.js", "/sw.js", "/manifest.webmanifest", "/static/icon.svg"] {
                let file = try await stranger.get(asset)
                #expect(file.status == .ok && file.body.readableBytes > 100, "\(asset)")
            }
            #expect(try await stranger.get("/static/../Package.swift").status == .notFound)
            #expect(try await stranger.get("/static/%2e%2e/%2e%2e/etc/passwd").status == .notFound)
            #expect(try await stranger.get("/no-such-page").status == .notFound)
            let signedOut = try await stranger.post("/list/check", [("line", "onion"), ("checked", "1")])
            #expect(signedOut.status == .seeOther || signedOut.status == .unauthorized)
        }
    }

    @Test func signInOutAndWrongCredentialsSayWhatWentWrong() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await ada.post("/signout")
            #expect(ada.cookie("sous_session") == nil)
            #expect(try await ada.get("/week").status == .seeOther)

            try await ada.get("/signin")
            let wrong = try await ada.post("/signin", [("email", "ada@example.org"), ("password", "not the password")])
            #expect(wrong.status == .unauthorized && wrong.text.contains("role=\"alert\""), "\(wrong.status)")
            #expect(wrong.text.contains("value=\"ada@example.org\""), "the email is kept")
            let short = try await Browser(client).post("/register", [("name", "Bo"), ("email", "bo@example.org"), ("password", "short")])
            #expect(short.status == .forbidden, "no form token from this browser yet")
            let bo = Browser(client)
            try await bo.get("/register")
            let refused = try await bo.post("/register", [("name", "Bo"), ("email", "bo@example.org"), ("password", "short")])
            #expect(refused.status == .unprocessableContent && refused.text.contains("password"), "\(refused.text.prefix(200))")

            let right = try await ada.post("/signin", [("email", "ada@example.org"), ("password", "correct horse battery"), ("next", "/diary")])
            #expect(right.status == .seeOther && right.location == "/diary")
            try await ada.get("/week")
            let offsite = try await ada.post(
                "/signin", [("email", "ada@example.org"), ("password", "correct horse battery"), ("next", "//evil.example")])
            #expect(offsite.location == "/week", "only a path on this site: \(offsite.status) \(offsite.text.prefix(300))")
        }
    }

    /// Each line of a recipe's ingredients says which packs to buy; the totals say what they cost.
    @Test func theListSaysWhichPacksToBuy() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await ada.get("/list")
            #expect(try await ada.post("/list/recipes", [("recipe", "tomato-lentil-soup")]).status == .seeOther)
            let list = try await ada.get("/list")
            #expect(list.text.contains("<small class=\"packs\">buy 1 × ") && list.text.contains(" · in packs €"), "\(list.text.prefix(2000))")
        }
    }

    /// The pantry page: an item added by its form is shown and taken off the list's line; a bad
    /// quantity is refused on the form, naming it; a staple stays off the list.
    @Test func thePantryPageAddsWhatTheListTakesOff() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await ada.get("/list")
            #expect(try await ada.post("/list/recipes", [("recipe", "tomato-lentil-soup")]).status == .seeOther)
            let page = try await ada.get("/pantry")
            #expect(page.status == .ok && page.text.contains("Nothing yet"))
            let bad = try await ada.post("/pantry/add", [("ingredient", "red-lentils"), ("quantity", "-3")])
            #expect(bad.status == .unprocessableContent && bad.text.contains("Quantity"), "\(bad.status)")
            let added = try await ada.post(
                "/pantry/add",
                [("ingredient", "red-lentils"), ("quantity", "150"), ("unit", "g"), ("bestBefore", "2030-01-01"), ("location", "<b>shelf</b>")])
            #expect(added.status == .seeOther, "\(added.status) \(added.text.prefix(500))")
            let shown = try await ada.get("/pantry")
            #expect(shown.text.contains("150 g Red lentils") && shown.text.contains("&lt;b&gt;shelf&lt;/b&gt;") && !shown.text.contains("<b>shelf"))
            // What the pantry holds finds recipes, with the share of it each uses.
            #expect(shown.text.contains("Recipes that use what you have"))
            let using = try await ada.get("/recipes?filters=1&pantry=1&diets=1&allergens=1&dislikes=1&equipment=1&patience=1&household=1")
            #expect(using.status == .ok && using.text.contains("From your pantry: Red lentils ("), "\(using.text.prefix(3000))")
            #expect(using.text.contains("Tomato and Red Lentil Soup"))
            // The soup for the household's 2 needs 100 g of lentils: the pantry covers it.
            let list = try await ada.get("/list")
            #expect(list.text.contains("need 100 g, have 150 g in the pantry"), "\(list.text.prefix(3000))")
            #expect(try await ada.post("/pantry/staple", [("ingredient", "salt")]).status == .seeOther)
            #expect(try await ada.get("/pantry").text.contains("It ran out"))
        }
    }

    /// Ada, signed up, with the soup planned for today's dinner; today as the week page gives it.
    static func adaWithTodaysDinner(_ client: any TestClientProtocol) async throws -> (Browser, String) {
        let ada = Browser(client)
        try await ada.register("Ada", email: "ada@example.org")
        try await ada.get("/week")
        #expect(try await ada.post("/week/choose", [("recipe", "tomato-lentil-soup")]).status == .seeOther)
        let today = String(try #require(try await ada.get("/week").text.firstMatch(of: /data-date="(\d{4}-\d{2}-\d{2})"/)).1)
        #expect(try await ada.post("/week/put", [("date", today), ("slot", "2"), ("recipe", "tomato-lentil-soup")]).status == .seeOther)
        return (ada, today)
    }

    @Test func aWeekIsKeptAsATemplatePlannedAgainAndRepeated() async throws {
        try await WebHarness.run { _, client in
            let (ada, today) = try await Self.adaWithTodaysDinner(client)

            let name = "<i>Busy</i> weeks"
            let saved = try await ada.post("/week/templates/save", [("name", name)])
            #expect(
                saved.status == .ok && saved.text.contains("Saved this week as “&lt;i&gt;Busy&lt;/i&gt; weeks” (1 meal)"),
                "\(saved.text.prefix(2000))")
            #expect(saved.text.contains("Tomato and Red Lentil Soup") && !saved.text.contains("<i>Busy"))
            #expect(try await ada.post("/week/templates/save", [("name", name)]).status == .conflict, "a name is kept once unless replaced")

            #expect(try await ada.post("/week/clear", [("date", today), ("slot", "2")]).status == .seeOther)
            let applied = try await ada.post("/week/templates/apply", [("template", name), ("mode", "fill")])
            #expect(applied.status == .ok && applied.text.contains("Planned 1 meal."), "\(applied.text.prefix(2000))")
            #expect(try await ada.get("/week").text.contains("Tomato and Red Lentil Soup"))
            let again = try await ada.post("/week/templates/apply", [("template", name), ("mode", "replace")])
            #expect(again.text.contains("The week already was as"))
            let bad = try await ada.post("/week/templates/apply", [("template", name), ("mode", "sometimes")])
            #expect(bad.status == .unprocessableContent && bad.text.contains("Choose to fill the empty slots or replace the week"))

            let repeated = try await ada.post("/week/templates/repeat", [("template", name), ("everyWeeks", "2")])
            #expect(repeated.text.contains("repeats every 2 weeks") && repeated.text.contains("Repeats every 2 weeks from \(today)"))
            let stopped = try await ada.post("/week/templates/repeat", [("template", name), ("everyWeeks", "0")])
            #expect(stopped.text.contains("no longer repeats") && !stopped.text.contains("Repeats every"))
            let deleted = try await ada.post("/week/templates/delete", [("template", name)])
            #expect(deleted.text.contains("Deleted") && deleted.text.contains("No templates yet"))
            #expect(try await ada.post("/week/templates/delete", [("template", name)]).status == .notFound)
        }
    }

    @Test func aCalendarAppReadsTheWeekFromAPrivateAddressUntilItIsStopped() async throws {
        try await WebHarness.run { _, client in
            let (ada, _) = try await Self.adaWithTodaysDinner(client)

            let made = try await ada.post("/week/calendar/feed", [("on", "1")])
            #expect(made.status == .ok && made.text.contains("shown only this once"), "\(made.status) \(made.text.prefix(2000))")
            let token = String(try #require(made.text.firstMatch(of: /\/calendar\/([A-Za-z0-9_-]{43})\.ics/)).1)
            #expect(made.text.contains("webcal://"))

            // A calendar app has no cookie: the address is enough.
            let app = Browser(client)
            let feed = try await app.get("/calendar/\(token).ics")
            #expect(feed.status == .ok && feed.headers[.contentType] == "text/calendar; charset=utf-8")
            #expect(feed.text.contains("SUMMARY:Dinner: Tomato and Red Lentil Soup\r\n"), "\(feed.text)")
            let status = try await ada.get("/week/calendar")
            #expect(status.text.contains("Stop the address") && !status.text.contains(token), "the address is shown once")

            #expect(try await ada.post("/week/calendar/feed", [("on", "0")]).status == .ok)
            #expect(try await app.get("/calendar/\(token).ics").status == .notFound)
            for path in ["/calendar/\(token)", "/calendar/nothing.ics", "/calendar/..%2F..%2Fetc%2Fpasswd.ics"] {
                #expect(try await app.get(path).status == .notFound, "\(path)")
            }
        }
    }

    @Test func formsWithoutTheirTokenAreRefusedAndWriteNothing() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await ada.get("/list")
            for token in ["", "forged", String(repeating: "A", count: 43)] {
                let refused = try await ada.post("/list/items", [("text", "paper towels")], csrf: token)
                #expect(refused.status == .forbidden && refused.text.contains("expired"), "\(token)")
            }
            let list = try await ada.get("/list")
            #expect(!list.text.contains("paper towels"), "nothing was written")

            // Each page masks the token afresh (a compressed page never repeats it); any of them is valid.
            let first = ada.formToken
            try await ada.get("/list")
            let second = ada.formToken
            #expect(first != second && first.count == 86, "\(first) \(second)")
            #expect(try await ada.post("/list/items", [("text", "kitchen roll")], csrf: first).status == .seeOther)
            #expect(try await ada.post("/list/items", [("text", "dish soap")], csrf: second).status == .seeOther)
            // A masked token with one bit changed is refused.
            var bytes = Array(second.utf8)
            bytes[60] = bytes[60] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(try await ada.post("/list/items", [("text", "paper towels")], csrf: String(decoding: bytes, as: UTF8.self)).status == .forbidden)

            // Another browser's token is not this one's.
            let bo = Browser(client)
            try await bo.register("Bo", email: "bo@example.org")
            try await bo.get("/list")
            #expect(try await ada.post("/list/items", [("text", "paper towels")], csrf: bo.formToken).status == .forbidden)
            #expect(try await ada.post("/list/items", [("text", "paper towels")]).status == .seeOther)
            #expect(try await ada.get("/list").text.contains("paper towels"))
        }
    }

    @Test func aForgedOrChangedCookieIsNobody() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            let sealed = try #require(ada.cookie("sous_session"))
            var changed = Array(sealed)
            changed[changed.count / 2] = changed[changed.count / 2] == "A" ? "B" : "A"
            for value in [String(changed), "not-a-cookie", String(repeating: "x", count: 5000), "%00%ff", ""] {
                ada.setCookie("sous_session", value)
                let page = try await ada.get("/week")
                #expect(page.status == .seeOther && page.location?.hasPrefix("/signin") == true, "\(value.prefix(20))")
            }
            ada.setCookie("sous_session", sealed)
            #expect(try await ada.get("/week").status == .ok)
        }
    }

    @Test func hostileTextIsShownAsTextAndLimitsAnswerClearly() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await ada.get("/list")
            let hostile = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"
            #expect(try await ada.post("/list/items", [("text", hostile)]).status == .seeOther)
            let list = try await ada.get("/list")
            #expect(list.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "escaped")
            #expect(!list.text.contains("<script>alert(1)") && !list.text.contains("<img src=x"))

            let large = try await ada.post("/list/items", [("text", String(repeating: "a", count: 70 * 1024))])
            #expect(large.status == .contentTooLarge && large.text.contains("KiB"))
            let many = try await ada.post("/list/items", (0..<300).map { ("f\($0)", "x") })
            #expect(many.status == .contentTooLarge && many.text.contains("200 fields"))
            let badUTF8 = try await ada.send(
                "/list/items", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(Browser.escape(ada.formToken))&text=%ff%fe"))
            #expect(badUTF8.status == .unprocessableContent && badUTF8.text.contains("text"))
            let json = try await ada.send("/list/items", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}"))
            #expect(json.status == .unsupportedMediaType)

            try await ada.get("/coeliac")
            let notImage = try await ada.upload(
                "/coeliac/journal", fields: [("title", "Lunch out")], file: ("photo", "photo.png", "image/png", Array("<?php echo 1; ?>".utf8)))
            #expect(notImage.status == .unprocessableContent && notImage.text.contains("not a JPEG, PNG or WebP"))
            #expect(!(try await ada.get("/coeliac")).text.contains("Lunch out"), "nothing written")
            let huge = try await ada.upload(
                "/coeliac/journal", fields: [("title", "Lunch out")],
                file: ("photo", "big.png", "image/png", [0x89] + [UInt8](repeating: 0, count: 600 * 1024)))
            #expect(huge.status == .contentTooLarge)
            // An archive may be larger than a photo, from a signed-in browser only.
            try await ada.get("/account")
            let archive = try await ada.upload(
                "/account/import", fields: [], file: ("archive", "sous.json", "application/json", [UInt8](repeating: 0x20, count: 1024 * 1024)))
            #expect(archive.status == .unprocessableContent && archive.text.contains("not a Sous archive"), "\(archive.status)")
            #expect(try await ada.send("/week", method: .put, headers: [:], body: nil).status == .methodNotAllowed)
        }
    }

    @Test func aTickSentTwiceWithOneKeyIsAppliedOnce() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await ada.get("/list")
            #expect(try await ada.post("/list/recipes", [("recipe", "tomato-lentil-soup")]).status == .seeOther)
            let before = try await ada.get("/list?part=body")
            let version = try #require(before.headers[HTTPField.Name("X-List-Version")!].flatMap(Int.init))
            #expect(before.text.contains("data-line=\"red-lentils\""), "\(before.text.prefix(600))")
            for _ in 0..<3 {
                let tick = try await ada.post(
                    "/list/check", [("line", "red-lentils"), ("checked", "1")],
                    headers: [HTTPField.Name("X-Sous-Fetch")!: "1", HTTPField.Name("Idempotency-Key")!: "tick-0001-red-lentils"])
                #expect(tick.status == .noContent)
            }
            let after = try await ada.get("/list?part=body")
            #expect(after.headers[HTTPField.Name("X-List-Version")!].flatMap(Int.init) == version + 1, "one write for three sends")
            #expect(after.text.contains("1 of"))
            let refused = try await ada.post(
                "/list/check", [("line", "no-such-line"), ("checked", "1")], headers: [HTTPField.Name("X-Sous-Fetch")!: "1"])
            #expect(refused.status == .notFound && refused.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(refused.text.contains("\"field\""))
        }
    }

    @Test func aSessionEndedElsewhereEndsHere() async throws {
        try await WebHarness.run { _, client in
            let phone = Browser(client)
            try await phone.register("Ada", email: "ada@example.org")
            let laptop = Browser(client)
            try await laptop.get("/signin")
            #expect(try await laptop.post("/signin", [("email", "ada@example.org"), ("password", "correct horse battery")]).status == .seeOther)
            let account = try await laptop.get("/account")
            // The laptop ends the phone's session (the one that is not "this browser").
            let other = try #require(
                account.text.components(separatedBy: "name=\"session\" value=\"").dropFirst().first?.split(separator: "\"").first)
            #expect(try await laptop.post("/account/sessions/end", [("session", String(other))]).status == .seeOther)
            // Every service learns of it within about a second; the planner at once.
            let ended = try await phone.get("/week")
            #expect(ended.status == .seeOther && ended.location?.hasPrefix("/signin") == true)
            #expect(phone.cookie("sous_session") == nil, "the cookie is forgotten")
            #expect(try await laptop.get("/week").status == .ok)
        }
    }
}

/// A forgotten password reset from the browser, through a real SMTP server.
@Suite(.closesItsSockets)
struct WebRecoveryTests {
    @Test func aForgottenPasswordIsResetFromTheMailedLink() async throws {
        try await withMailCatcher { catcher in
            let settings = MailSettings(
                host: "localhost", port: catcher.port, security: .startTLS, sender: try MailSender("sous@example.org"),
                extraTrustRoots: catcher.certificateFile)
            try await WebHarness.run(mail: AccountMail(settings: settings, webURL: "https://sous.example.org")) { _, client in
                let ada = Browser(client)
                try await ada.register("Ada", email: "ada@example.org")
                try await ada.post("/signout")

                let stranger = Browser(client)
                let signIn = try await stranger.get("/signin")
                #expect(signIn.text.contains("href=\"/forgot\""))
                try await stranger.get("/forgot")
                let asked = try await stranger.post("/forgot", [("email", "ada@example.org")])
                #expect(asked.status == .ok && asked.text.contains("a code is on its way"), "\(asked.status)")
                let mail = try #require(try await catcher.mails(count: 1).first)
                let link = try #require(mail.text.components(separatedBy: "\r\n").first { $0.hasPrefix("https://sous.example.org/reset?code=") })
                let path = String(link.dropFirst("https://sous.example.org".count))
                let code = String(path.dropFirst("/reset?code=".count))

                let form = try await stranger.get(path)
                #expect(form.text.contains("value=\"\(code)\""), "the link fills the code in")
                let weak = try await stranger.post("/reset", [("code", code), ("password", "short")])
                #expect(weak.status == .unprocessableContent && weak.text.contains("10 characters"), "\(weak.status)")
                let done = try await stranger.post("/reset", [("code", code), ("password", "a brand new evening")])
                #expect(done.status == .ok && done.text.contains("Your new password is set"), "\(done.status) \(done.text.prefix(300))")
                let reused = try await stranger.post("/reset", [("code", code), ("password", "yet another evening")])
                #expect(reused.status == .unprocessableContent && reused.text.contains("wrong, used or expired"), "\(reused.status)")

                try await ada.get("/signin")
                let old = try await ada.post("/signin", [("email", "ada@example.org"), ("password", "correct horse battery")])
                #expect(old.status == .unauthorized)
                let new = try await ada.post("/signin", [("email", "ada@example.org"), ("password", "a brand new evening")])
                #expect(new.status == .seeOther)
            }
        }
    }

    @Test func aNewAccountConfirmsItsEmailFromTheMailedLinkBeforeSigningIn() async throws {
        try await withMailCatcher { catcher in
            let settings = MailSettings(
                host: "localhost", port: catcher.port, security: .startTLS, sender: try MailSender("sous@example.org"),
                extraTrustRoots: catcher.certificateFile)
            try await WebHarness.run(mail: AccountMail(settings: settings, webURL: "https://sous.example.org", verifiesEmail: true)) { _, client in
                let ada = Browser(client)
                try await ada.get("/register")
                let made = try await ada.post(
                    "/register", [("name", "Ada"), ("email", "ada@example.org"), ("password", "correct horse battery")])
                #expect(made.status == .ok && made.text.contains("Confirm your email") && ada.cookie("sous_session") == nil, "\(made.status)")

                let early = try await ada.post("/signin", [("email", "ada@example.org"), ("password", "correct horse battery")])
                #expect(early.status == .forbidden && early.text.contains("Confirm your email first") && ada.cookie("sous_session") == nil)

                let mail = try #require(try await catcher.mails(count: 1).first)
                let link = try #require(mail.text.components(separatedBy: "\r\n").first { $0.hasPrefix("https://sous.example.org/verify?code=") })
                let path = String(link.dropFirst("https://sous.example.org".count))
                let code = String(path.dropFirst("/verify?code=".count))
                let form = try await ada.get(path)
                #expect(form.text.contains("value=\"\(code)\""), "the link fills the code in")
                let wrong = try await ada.post("/verify", [("code", "AAAAA-AAAAA")])
                #expect(wrong.status == .unprocessableContent && wrong.text.contains("wrong, used or expired"), "\(wrong.status)")
                let confirmed = try await ada.post("/verify", [("code", code)])
                #expect(confirmed.status == .ok && confirmed.text.contains("Your email is confirmed"), "\(confirmed.status)")
                let signedIn = try await ada.post("/signin", [("email", "ada@example.org"), ("password", "correct horse battery")])
                #expect(signedIn.status == .seeOther && ada.cookie("sous_session") != nil)
            }
        }
    }
}
