import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SocketCheck
import SousTestSupport
import Testing
import WebApp

/// Writing and editing a recipe through the forms, and the rate limit.
@Suite(.closesItsSockets, .serialized)
struct WebRecipeTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 64)

    @Test func aRecipeWrittenInTheFormIsReadLikeAnImportAndEditsKeepWhatWasNotChanged() async throws {
        try await WebHarness.run { _, client in
            let ada = Browser(client)
            try await ada.register("Ada", email: "ada@example.org")
            try await ada.get("/recipes/new")
            let unknown = try await ada.upload(
                "/recipes/new",
                fields: [
                    ("name", "Garlic toast"), ("servings", "2"), ("ingredients", "2 slices bread\n1 clove unobtainium"), ("steps", "Toast."),
                    ("dishType", "side dish"),
                ], file: ("photo", "", "application/octet-stream", []))
            #expect(unknown.status == .unprocessableContent && unknown.text.contains("unobtainium"), "\(unknown.text.prefix(300))")
            #expect(unknown.text.contains("Garlic toast"), "the form keeps what was written")

            let written = try await ada.upload(
                "/recipes/new",
                fields: [
                    ("name", "Garlic toast"), ("servings", "2"), ("prepMinutes", "5"),
                    ("ingredients", "200 g rye bread\n2 garlic cloves\n1 tbsp olive oil"),
                    ("steps", "Rub the toast with garlic.\nDrizzle with oil."), ("dishType", "side dish"),
                ], file: ("photo", "toast.png", "image/png", Self.png))
            #expect(written.status == .seeOther, "\(written.text.components(separatedBy: "role=\"alert\"").last?.prefix(400) ?? "")")
            let path = try #require(written.location)
            let page = try await ada.get(path)
            #expect(page.text.contains("Garlic toast") && page.text.contains("Rub the toast with garlic.") && page.text.contains("class=\"photo\""))
            let photo = try await ada.get(path + "/photo")
            #expect(
                photo.status == .ok && photo.headers[.contentType] == "image/png" && Array(photo.body.readableBytesView) == Self.png,
                "\(photo.status) \(photo.headers[.contentType] ?? "")")

            let form = try await ada.get(path + "/edit")
            let lines = try #require(form.text.components(separatedBy: "name=\"ingredients\"").last?.components(separatedBy: ">").dropFirst().first)
            #expect(lines.contains("200 g"), "the edit form shows the lines as they are: \(lines)")
            let ingredientLines = lines.components(separatedBy: "</textarea").first ?? ""
            let edited = try await ada.upload(
                path + "/edit",
                fields: [
                    ("name", "Garlic toast"), ("servings", "2"), ("prepMinutes", "5"), ("cookMinutes", "0"),
                    ("ingredients", ingredientLines.replacingOccurrences(of: "200 g", with: "300 g") + "\n1 piece onion"),
                    ("steps", "Rub the toast with garlic.\nDrizzle with oil."), ("dishType", "side dish"),
                ], file: ("photo", "", "application/octet-stream", []))
            #expect(edited.status == .seeOther, "\(edited.text.components(separatedBy: "role=\"alert\"").last?.prefix(400) ?? "")")
            let after = try await ada.get(path)
            #expect(after.text.contains("300 g") && after.text.lowercased().contains("onion"), "\(after.text.prefix(2000))")

            let wrong = try await ada.upload(
                path + "/edit",
                fields: [
                    ("name", "Garlic toast"), ("servings", "2"), ("ingredients", "a lot of garlic"), ("steps", "Rub."), ("dishType", "side dish"),
                ], file: ("photo", "", "application/octet-stream", []))
            #expect(wrong.status == .unprocessableContent && wrong.text.contains("Line 1"))
        }
    }

    @Test func aRecipePageImportsByItsAddressAndAFoodIsLoggedByItsMeasure() async throws {
        let page = #"""
            <html><head><script type="application/ld+json">{"@type": "Recipe", "name": "Fontina toast", "recipeYield": "2",
            "recipeIngredient": ["2 slices white bread", "100 g fontina cheese"], "recipeInstructions": "Toast. Melt."}</script></head></html>
            """#
        let router = Router()
        router.get("/toast") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html"], body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
        }
        try await withLocalWebServer(router) { port in
            try await WebHarness.run { _, client in
                let ada = Browser(client)
                try await ada.register("Ada", email: "ada@example.org")
                try await ada.get("/recipes/import")
                let imported = try await ada.upload(
                    "/recipes/import", fields: [("url", "http://127.0.0.1:\(port)/toast")], file: ("document", "", "application/octet-stream", []))
                #expect(
                    imported.status == .ok && imported.text.contains("Imported 1 recipe") && imported.text.contains("Fontina toast")
                        && imported.text.contains("Cheese, fontina (a USDA food, 100 % of its words)"), "\(imported.text.prefix(3000))")
                try await ada.get("/recipes/import")
                let refused = try await ada.upload(
                    "/recipes/import", fields: [("url", "http://169.254.169.254/latest/meta-data/")],
                    file: ("document", "", "application/octet-stream", []))
                #expect(refused.status != .ok && refused.text.contains("cloud metadata"), "\(refused.text.prefix(3000))")

                // A food logged by its SR28 measure: two medium croissants (57 g each).
                let search = try await ada.get("/diary?q=croissant")
                #expect(search.text.contains("croissant, medium (57 g)"), "\(search.text.prefix(4000))")
                let options = search.text.components(separatedBy: "<option value=\"")
                let medium = try #require(options.first { $0.contains("croissant, medium") }?.prefix { $0 != "\"" })
                let logged = try await ada.post(
                    "/diary/add", [("ingredient", "croissant"), ("grams", "2"), ("measure", String(medium)), ("meal", "breakfast")])
                #expect(logged.status == .seeOther, "\(logged.text.prefix(2000))")
                let diary = try await ada.get("/diary")
                #expect(diary.text.contains("114 g"), "two medium croissants: \(diary.text.prefix(4000))")
            }
        }
    }

    /// Five requests at once, then one a minute; the client address from the proxy.
    static func strictLimits(_ configuration: inout WebConfiguration) {
        configuration.limits.requestsPerMinute = 1
        configuration.limits.burst = 5
        configuration.trustForwardedFor = true
    }

    @Test func anAddressOverTheRateLimitIsToldToWait() async throws {
        try await WebHarness.run(configure: Self.strictLimits) { _, client in
            let browser = Browser(client)
            let forwarded: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9, 198.51.100.7"]
            for _ in 0..<5 { #expect(try await browser.get("/signin", headers: forwarded).status == .ok) }
            let refused = try await browser.get("/signin", headers: forwarded)
            #expect(refused.status == .tooManyRequests && refused.text.contains("Wait a minute"))
            // Another address the proxy names has its own allowance.
            #expect(try await browser.get("/signin", headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.8"]).status == .ok)
        }
    }
}

/// A client that opens a connection and sends half a request holds it only until the idle limit.
@Suite(.closesItsSockets, .serialized)
struct WebSlowClientTests {
    static func shortIdle(_ configuration: inout WebConfiguration) {
        configuration.limits.idleTimeout = .seconds(1)
    }

    @Test func aSlowClientIsDisconnectedAfterTheIdleLimit() async throws {
        try await WebHarness.run(configure: Self.shortIdle) { _, client in
            let port = try #require(client.port)
            // The idle limit is 1 s; the wait is bounded far above it, so a busy machine cannot
            // fail the test, while a server that never closes still does.
            let closed = try await SlowClient.sendHalfARequestAndWaitForClose(port: port, limit: .seconds(60))
            #expect(closed, "the server closed the connection")
        }
    }
}

enum SlowClient {
    /// Sends the start of a request line and nothing more; true once the server closes the
    /// connection (a read returns 0 or fails), false if it is still open after `limit`.
    static func sendHalfARequestAndWaitForClose(port: Int, limit: Duration) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let descriptor: Int32
                do {
                    descriptor = try LoopbackSocket.connect(port: port)
                } catch {
                    return continuation.resume(throwing: error)
                }
                defer { close(descriptor) }
                let half = Array("GET /signin HT".utf8)
                _ = write(descriptor, half, half.count)
                var timeout = timeval(tv_sec: Int(limit.components.seconds), tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                // Whatever the server says first (a 408, say), then 0: closed; -1 with ECONNRESET:
                // reset; -1 with EAGAIN: the limit passed and it is still open.
                var buffer = [UInt8](repeating: 0, count: 512)
                var count = read(descriptor, &buffer, buffer.count)
                while count > 0 { count = read(descriptor, &buffer, buffer.count) }
                continuation.resume(returning: count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            }
        }
    }
}
