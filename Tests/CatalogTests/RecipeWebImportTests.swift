import CatalogService
import CatalogTesting
import Foundation
import Hummingbird
import SousFetch
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// `recipes.import` with a `url`: the catalog fetches a real page from a real HTTP server on
/// loopback (which test catalogs are allowed to reach), reads its JSON-LD or microdata and its
/// image, and refuses whatever it must not fetch or cannot read, naming `url`.
@Suite(.closesItsSockets)
struct RecipeWebImportTests {
    /// A PNG as far as anything checks: its signature, then bytes.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 2000)

    static let jsonLDPage = #"""
        <!doctype html><html><head><title>Lentil soup | Example Kitchen</title>
        <script type="application/ld+json">{"@context": "https://schema.org", "@type": "WebSite", "name": "Example Kitchen"}</script>
        <script type='application/ld+json'>
        {"@context": "https://schema.org", "@type": "Recipe", "name": "Lentil Soup", "image": ["/images/soup.png"],
         "recipeYield": "4", "recipeIngredient": ["200 g red lentils", "1 onion, finely chopped", "200 g fontina cheese, grated"],
         "recipeInstructions": "<p>Chop the onion.</p>,<p>Simmer the lentils &amp; onion for 20 minutes.</p>"}
        </script></head><body><h1>Lentil soup</h1></body></html>
        """#

    static let microdataPage = #"""
        <html><body><div itemscope itemtype="https://schema.org/Recipe">
          <h1 itemprop="name">Cheese on toast</h1>
          <img itemprop="image" src="/images/toast.png" alt="">
          <meta itemprop="recipeYield" content="2">
          <ul><li itemprop="recipeIngredient">2 slices white bread</li><li itemprop="recipeIngredient">50 g cheddar, grated</li></ul>
          <ol itemprop="recipeInstructions"><li>Toast the bread.</li><li>Top with <b>cheese</b> and grill.</li></ol>
        </div></body></html>
        """#

    static func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func image(_ bytes: Data, type: String = "image/png") -> Response {
        Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    @Test func aRecipePageImportsWithItsPhotoAndCleanSteps() async throws {
        let router = Router()
        router.get("/soup") { _, _ in Self.html(Self.jsonLDPage) }
        router.get("/images/soup.png") { _, _ in Self.image(Self.png) }
        try await withLocalWebServer(router) { port in
            try await withCatalog { _, client in
                let address = "http://127.0.0.1:\(port)/soup"
                let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(url: address), user: "ada")
                let imported = try #require(report.imported.first, "\(report.unmatched)")
                #expect(report.matched.map(\.ingredient) == ["usda-01020"])
                let recipe = try await client.call(CatalogAPI.getRecipe, .init(id: imported.id), user: "ada")
                #expect(recipe.name == "Lentil Soup" && recipe.servings == 4 && recipe.link == address)
                #expect(recipe.steps.map(\.description) == ["Chop the onion.", "Simmer the lentils & onion for 20 minutes."])
                // The image, addressed relative to the page, was fetched and became the photo.
                #expect(recipe.photo?.type == "png" && recipe.image == "http://127.0.0.1:\(port)/images/soup.png")
                let photo = try await client.call(CatalogAPI.photo, RecipeID(id: imported.id), user: "ada")
                #expect(photo.photo == Self.png)
            }
        }
    }

    @Test func aPageWithOnlyMicrodataImports() async throws {
        let router = Router()
        router.get("/toast") { _, _ in Self.html(Self.microdataPage) }
        // An "image" that is a page: no photo, and the recipe still imports.
        router.get("/images/toast.png") { _, _ in Self.html("<html>not an image</html>") }
        try await withLocalWebServer(router) { port in
            try await withCatalog { _, client in
                let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(url: "http://127.0.0.1:\(port)/toast"), user: "ada")
                let imported = try #require(report.imported.first, "\(report.unmatched)")
                let recipe = try await client.call(CatalogAPI.getRecipe, .init(id: imported.id), user: "ada")
                #expect(recipe.name == "Cheese on toast" && recipe.servings == 2 && recipe.photo == nil)
                #expect(recipe.ingredients.map(\.ingredient).sorted() == ["cheddar", "white-bread"])
                #expect(recipe.steps.map(\.description) == ["Toast the bread.", "Top with cheese and grill."])
            }
        }
    }

    @Test func pagesThatAreNoRecipeOrTooLargeAreRefusedNamingTheURL() async throws {
        let sixMegabytes = String(repeating: " ", count: 6_000_000)
        let router = Router()
        router.get("/about") { _, _ in Self.html("<html><body><h1>About us</h1></body></html>") }
        router.get("/broken") { _, _ in Self.html(#"<script type="application/ld+json">{"@type": "Recipe", "name": </script>"#) }
        router.get("/gone") { _, _ in Response(status: .notFound) }
        router.get("/huge") { _, _ in Self.html("<html>" + sixMegabytes + "</html>") }
        // 100 MB announced by no length: read until the limit, then dropped.
        router.get("/endless") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html"],
                body: ResponseBody { writer in
                    for _ in 0..<1600 { try await writer.write(ByteBuffer(repeating: 0x20, count: 65536)) }
                    try await writer.finish(nil)
                })
        }
        try await withLocalWebServer(router) { port in
            try await withCatalog { _, client in
                for (path, words) in [
                    ("/about", "no schema.org Recipe"), ("/broken", "not valid JSON"), ("/gone", "HTTP 404"), ("/huge", "larger than 5 MB"),
                    ("/endless", "larger than 5 MB"),
                ] {
                    let error = await serviceError {
                        try await client.call(CatalogAPI.importRecipes, RecipeImport(url: "http://127.0.0.1:\(port)\(path)"), user: "ada")
                    }
                    #expect(
                        error?.code == .badRequest && error?.field == "url" && error?.message.contains(words) == true,
                        "\(path): \(String(describing: error))")
                }
                for address in ["ftp://127.0.0.1/soup", "file:///etc/passwd", "http://", "http://ada:secret@127.0.0.1:\(port)/soup", "soup"] {
                    let error = await serviceError { try await client.call(CatalogAPI.importRecipes, RecipeImport(url: address), user: "ada") }
                    #expect(error?.code == .badRequest && error?.field == "url", "\(address): \(String(describing: error))")
                }
                let both = await serviceError {
                    try await client.call(CatalogAPI.importRecipes, RecipeImport(document: "{}", url: "http://127.0.0.1/"), user: "ada")
                }
                #expect(both?.code == .badRequest && both?.field == "document")
                let mine = try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada")
                #expect(mine.recipes.isEmpty, "nothing half-imported")
            }
        }
    }

    @Test func privateAddressesAreNeverFetchedNotEvenThroughARedirect() async throws {
        let router = Router()
        router.get("/soup") { _, _ in Self.html(Self.jsonLDPage) }
        for (path, target) in [
            ("/metadata", "http://169.254.169.254/latest/meta-data/"), ("/private", "http://10.0.0.1/admin"),
            ("/mapped", "http://[::ffff:192.168.1.1]/"), ("/loop", "/loop"),
        ] {
            router.get(RouterPath(path)) { _, _ in Response(status: .found, headers: [.location: target]) }
        }
        try await withLocalWebServer(router) { port in
            // Test catalogs may reach loopback (127.0.0.0/8), and nothing else private.
            try await withCatalog { _, client in
                for (path, range) in [
                    ("/metadata", "link-local and cloud metadata"), ("/private", "a private address"), ("/mapped", "a private address"),
                ] {
                    let error = await serviceError {
                        try await client.call(CatalogAPI.importRecipes, RecipeImport(url: "http://127.0.0.1:\(port)\(path)"), user: "ada")
                    }
                    #expect(
                        error?.code == .badRequest && error?.field == "url" && error?.message.contains(range) == true,
                        "\(path): \(String(describing: error))")
                }
                let loop = await serviceError {
                    try await client.call(CatalogAPI.importRecipes, RecipeImport(url: "http://127.0.0.1:\(port)/loop"), user: "ada")
                }
                #expect(
                    loop?.code == .badRequest && loop?.field == "url" && loop?.message.contains("redirects") == true, "\(String(describing: loop))")
                for address in ["http://[::1]:\(port)/soup", "http://0.0.0.0:\(port)/soup"] {
                    let error = await serviceError { try await client.call(CatalogAPI.importRecipes, RecipeImport(url: address), user: "ada") }
                    #expect(error?.code == .badRequest && error?.field == "url", "\(address): \(String(describing: error))")
                }
            }
            // A catalog as deployed (public addresses only) does not fetch loopback either.
            try await withCatalog(fetchPolicy: FetchPolicy()) { _, client in
                let error = await serviceError {
                    try await client.call(CatalogAPI.importRecipes, RecipeImport(url: "http://127.0.0.1:\(port)/soup"), user: "ada")
                }
                #expect(error?.code == .badRequest && error?.message.contains("a loopback address") == true, "\(String(describing: error))")
                let named = await serviceError {
                    try await client.call(CatalogAPI.importRecipes, RecipeImport(url: "http://localhost:\(port)/soup"), user: "ada")
                }
                #expect(named?.code == .badRequest && named?.message.contains("a loopback address") == true, "\(String(describing: named))")
            }
        }
    }

    @Test func aPageThatDoesNotAnswerInTimeIsUnavailableNotHanging() async throws {
        let policy = FetchPolicy(allowed: CatalogFixture.fetchPolicy.allowed, timeout: .seconds(1))
        let router = Router()
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .seconds(4))
            return Self.html(Self.jsonLDPage)
        }
        try await withLocalWebServer(router) { port in
            try await withCatalog(fetchPolicy: policy) { _, client in
                let error = await serviceError {
                    try await client.call(CatalogAPI.importRecipes, RecipeImport(url: "http://127.0.0.1:\(port)/slow"), user: "ada")
                }
                #expect(
                    error?.code == .unavailable && error?.field == "url" && error?.message.contains("within 1 s") == true,
                    "\(String(describing: error))")
            }
        }
    }

    @Test func aSavedPageImportsAsADocument() async throws {
        try await withCatalog { _, client in
            for page in [Self.jsonLDPage, Self.microdataPage] {
                let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: "\n  " + page), user: "ada")
                #expect(report.imported.count == 1, "\(report.unmatched)")
            }
            let none = await serviceError {
                try await client.call(CatalogAPI.importRecipes, RecipeImport(document: "<html><p>Hello</p></html>"), user: "ada")
            }
            #expect(none?.code == .badRequest && none?.field == "document" && none?.message.contains("no schema.org Recipe") == true)
        }
    }

    @Test func reservedAddressesAreKnownInBothFamilies() throws {
        let reserved = [
            "127.0.0.1": "loopback", "10.1.2.3": "private", "172.31.255.255": "private", "192.168.0.1": "private",
            "169.254.169.254": "link-local and cloud metadata", "100.64.0.1": "carrier-grade NAT", "0.0.0.0": "unspecified",
            "224.0.0.1": "multicast", "::1": "loopback", "::": "unspecified", "fe80::1": "link-local", "fd00::1": "private",
            "::ffff:127.0.0.1": "loopback", "::ffff:10.0.0.1": "private", "[::1]": "loopback",
        ]
        for (text, name) in reserved {
            let address = try #require(NetworkAddress(text), "\(text)")
            #expect(address.reservedRange?.name == name, "\(text)")
        }
        for text in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"] {
            #expect(try #require(NetworkAddress(text)).reservedRange == nil, "\(text)")
        }
        #expect(NetworkAddress("999.1.1.1") == nil && NetworkAddress("localhost") == nil && AddressRange("10.0.0.0/33") == nil)
        let allowed = try FetchPolicy.fromEnvironment(["SOUS_FETCH_ALLOW": "127.0.0.0/8, 10.1.0.0/16"])
        #expect(allowed.allowed.map(\.description) == ["127.0.0.0/8", "10.1.0.0/16"])
        #expect(throws: ConfigurationError.self) { try FetchPolicy.fromEnvironment(["SOUS_FETCH_ALLOW": "10.0.0.0/99"]) }
    }
}
