import Foundation
import Hummingbird
import SousFetch
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Synchronization
import Testing
import TrackerService

/// Unknown barcodes looked up in Open Food Facts: a real HTTP server on loopback answers in the
/// API v2 shape (written for these tests, not copied), and counts what it is asked.
@Suite(.closesItsSockets)
struct OpenFoodFactsTests {
    static let crackers = Barcode.completing("500000000001")

    static func found(name: String, nutriments: String) -> String {
        #"{"code": "x", "status": 1, "status_verbose": "product found", "product": {"product_name": "\#(name)", "brands": "Testbrand", "quantity": "250 g", "nutriments": {\#(nutriments)}, "allergens_tags": ["en:gluten", "en:sesame-seeds"]}}"#
    }

    static let cracker = "\"energy-kcal_100g\": 420, \"carbohydrates_100g\": 70, \"proteins_100g\": 9, \"fat_100g\": 11"

    /// A server answering `answers` by code (status and body), counting every request.
    final class FakeOpenFoodFacts: Sendable {
        let answers: Mutex<[String: (HTTPResponse.Status, String)]>
        let asked = Mutex<[String]>([])
        let userAgents = Mutex<[String]>([])

        init(_ answers: [String: (HTTPResponse.Status, String)]) { self.answers = Mutex(answers) }

        var router: Router<BasicRequestContext> {
            let router = Router()
            router.get("/api/v2/product/:file") { request, context in
                let code = String((context.parameters.get("file") ?? "").prefix { $0.isNumber })
                self.asked.withLock { $0.append(code) }
                self.userAgents.withLock { $0.append(request.headers[.userAgent] ?? "") }
                let (status, body) = self.answers.withLock { $0[code] } ?? (.notFound, #"{"status": 0, "status_verbose": "product not found"}"#)
                return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
            }
            return router
        }
    }

    static func settings(port: Int, perMinute: Int = 10, minute: Duration = .seconds(60)) -> OpenFoodFactsSettings {
        OpenFoodFactsSettings(
            enabled: true, baseURL: "http://127.0.0.1:\(port)", contact: "ops@example.org", lookupsPerMinute: perMinute,
            policy: FetchPolicy(allowed: AddressRange("127.0.0.0/8").map { [$0] } ?? []), minute: minute)
    }

    @Test func anUnknownBarcodeIsLookedUpOnceKeptAndRefreshedAfterThirtyDays() async throws {
        let off = FakeOpenFoodFacts([Self.crackers: (.ok, Self.found(name: "Oat crackers", nutriments: Self.cracker))])
        try await withLocalWebServer(off.router) { port in
            try await withTracker(planner: false, openFoodFacts: Self.settings(port: port)) { world in
                let first = try await world.call(TrackerAPI.product, BarcodeLookup(code: Self.crackers), user: "ada")
                #expect(first.name == "Oat crackers" && first.brand == "Testbrand" && first.quantity == "250 g")
                #expect(first.per100g == Macros(kcal: 420, carbohydrates: 70, protein: 9, fat: 11))
                #expect(first.allergens == ["en:gluten", "en:sesame-seeds"])
                #expect(first.source == "openfoodfacts" && first.fetchedAt == world.clock.now)
                #expect(
                    off.userAgents.withLock { $0 }.first?.contains("Sous") == true
                        && off.userAgents.withLock { $0 }.first?.contains("ops@example.org") == true)
                // Kept: the second lookup and the diary do not ask again.
                #expect(try await world.call(TrackerAPI.product, BarcodeLookup(code: Self.crackers), user: "bob") == first)
                let entry = try await world.call(
                    TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .snack, grams: 30, barcode: Self.crackers), user: "ada")
                #expect(entry.food == "Oat crackers" && entry.per100g.kcal == 420)
                #expect(off.asked.withLock { $0 } == [Self.crackers])
                // After 30 days it is asked again, and what changed is kept.
                off.answers.withLock { $0[Self.crackers] = (.ok, Self.found(name: "Oat crackers, new recipe", nutriments: Self.cracker)) }
                _ = world.clock.advance(by: 31 * 24 * 3600)
                let refreshed = try await world.call(TrackerAPI.product, BarcodeLookup(code: Self.crackers), user: "ada")
                #expect(refreshed.name == "Oat crackers, new recipe" && refreshed.fetchedAt == world.clock.now)
                // Open Food Facts down: what was kept is still used.
                off.answers.withLock { $0[Self.crackers] = (.serviceUnavailable, "{}") }
                _ = world.clock.advance(by: 31 * 24 * 3600)
                let offline = try await world.call(TrackerAPI.product, BarcodeLookup(code: Self.crackers), user: "ada")
                #expect(offline.name == "Oat crackers, new recipe")
                #expect(off.asked.withLock { $0.count } == 3)
            }
        }
    }

    @Test func whatOpenFoodFactsCannotGiveIsSaidPlainly() async throws {
        let codes = (1...7).map { Barcode.completing("50000000010\($0)") }
        let off = FakeOpenFoodFacts([
            codes[1]: (.internalServerError, "oops"),
            codes[2]: (.ok, "{not json"),
            codes[3]: (.ok, Self.found(name: "Mystery", nutriments: "\"carbohydrates_100g\": 5")),
            codes[4]: (
                .ok,
                Self.found(
                    name: "Sugar bomb", nutriments: "\"energy-kcal_100g\": 10000, \"carbohydrates_100g\": 5, \"proteins_100g\": 1, \"fat_100g\": 1")
            ),
            codes[5]: (
                .ok,
                Self.found(
                    name: "Antifat", nutriments: "\"energy-kcal_100g\": 100, \"carbohydrates_100g\": 5, \"proteins_100g\": 1, \"fat_100g\": -3")
            ),
            codes[6]: (.ok, Self.found(name: "", nutriments: Self.cracker)),
        ])
        try await withLocalWebServer(off.router) { port in
            try await withTracker(planner: false, openFoodFacts: Self.settings(port: port)) { world in
                let expectations: [(String, ErrorCode, String)] = [
                    (codes[0], .notFound, "here or in Open Food Facts"), (codes[1], .unavailable, "could not be reached"),
                    (codes[2], .unavailable, "not its JSON"), (codes[3], .notFound, "no kcal per 100 g"),
                    (codes[4], .notFound, "impossible kcal"), (codes[5], .notFound, "impossible fat"), (codes[6], .notFound, "not its name"),
                ]
                for (code, errorCode, words) in expectations {
                    let error = await world.failure(TrackerAPI.product, BarcodeLookup(code: code), user: "ada")
                    #expect(
                        error?.code == errorCode && error?.field == "code" && error?.message.contains(words) == true,
                        "\(code): \(String(describing: error))")
                }
                // Through the diary the error names its field.
                let logged = await world.failure(
                    TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .snack, grams: 30, barcode: codes[4]), user: "ada")
                #expect(logged?.code == .notFound && logged?.field == "barcode")
                // Nothing unusable was kept: asked again.
                _ = await world.failure(TrackerAPI.product, BarcodeLookup(code: codes[4]), user: "ada")
                #expect(off.asked.withLock { $0.filter { $0 == codes[4] }.count } == 3)
            }
        }
        // Switched off, or no server: said so, never "not found" for a lookup that did not happen.
        try await withTracker(planner: false) { world in
            let error = await world.failure(TrackerAPI.product, BarcodeLookup(code: codes[0]), user: "ada")
            #expect(error?.code == .notFound && error?.message.contains("switched off") == true, "\(String(describing: error))")
        }
        var nowhere = Self.settings(port: 9)
        nowhere.policy.timeout = .seconds(5)
        try await withTracker(planner: false, openFoodFacts: nowhere) { world in
            let error = await world.failure(TrackerAPI.product, BarcodeLookup(code: codes[0]), user: "ada")
            #expect(
                error?.code == .unavailable && error?.message.contains("Open Food Facts could not be reached") == true, "\(String(describing: error))"
            )
        }
    }

    @Test func lookupsArePacedAndOneCodeIsAskedOnce() async throws {
        let codes = (1...3).map { Barcode.completing("50000000020\($0)") }
        let off = FakeOpenFoodFacts(
            Dictionary(uniqueKeysWithValues: codes.map { ($0, (.ok, Self.found(name: "Crackers \($0)", nutriments: Self.cracker))) }))
        try await withLocalWebServer(off.router) { port in
            // Two lookups in any 2 s: the third waits its turn.
            try await withTracker(planner: false, openFoodFacts: Self.settings(port: port, perMinute: 2, minute: .seconds(2))) { world in
                let clock = ContinuousClock()
                let start = clock.now
                try await withThrowingTaskGroup(of: Product.self) { group in
                    for code in codes + [codes[0], codes[0], codes[0]] {
                        group.addTask { try await world.call(TrackerAPI.product, BarcodeLookup(code: code), user: "ada") }
                    }
                    var names: Set<String> = []
                    for try await product in group { names.insert(product.name) }
                    #expect(names.count == 3)
                }
                #expect(clock.now - start >= .seconds(2), "the third lookup waited for the window")
                #expect(off.asked.withLock { $0.sorted() } == codes.sorted(), "each code asked once")
            }
        }
    }
}
