import AsyncHTTPClient
import CatalogService
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat
import SousSchema

/// Hummingbird answers with `RecipePage` as JSON (its `ResponseEncodable` goes through the
/// request context's encoder: a plain Foundation `JSONEncoder`).
extension RecipePage: @retroactive ResponseGenerator {}
extension RecipePage: @retroactive ResponseEncodable {}

/// The catalog's recipe search over HTTP/1.1 + JSON: a Hummingbird 2 application on 127.0.0.1,
/// one route, plaintext (no TLS), no authentication.
struct HTTPPeer {
    let port: Int
    let serving: Task<Void, any Error>

    static func start(store: CatalogStore, logger: Logger) async throws -> HTTPPeer {
        let router = Router()
        router.post("recipes/search") { request, context -> RecipePage in
            let search = try await request.decode(as: RecipeSearch.self, context: context)
            return try store.searchRecipes(search, user: "bench", filter: search.profile.map { ($0, search.switches ?? FilterSwitches()) })
        }
        let (ports, portsContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portsContinuation.yield(channel.localAddress?.port ?? 0)
                portsContinuation.finish()
            },
            logger: logger
        )
        let serving = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw PeerError("Hummingbird did not report its port") }
        return HTTPPeer(port: port, serving: serving)
    }

    func stop() async {
        serving.cancel()
        _ = try? await serving.value
    }
}

/// One async-http-client `HTTPClient` (its connection pool keeps the connection alive between
/// sequential calls), JSON through Foundation's `JSONEncoder` and `JSONDecoder`.
struct HTTPSearchClient {
    let client: HTTPClient
    let url: String
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()

    init(port: Int) {
        client = HTTPClient(eventLoopGroupProvider: .singleton)
        url = "http://127.0.0.1:\(port)/recipes/search"
    }

    func search(_ search: RecipeSearch) async throws -> RecipePage {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try encoder.encode(search)))
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw PeerError("HTTP \(response.status)") }
        let body = try await response.body.collect(upTo: 16 << 20)
        return try decoder.decode(RecipePage.self, from: body)
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
