public import Hummingbird
import HummingbirdTesting

/// A real HTTP server on 127.0.0.1 (a free port) for tests of what the services fetch from the
/// web: recipe pages, images, Open Food Facts. `router` holds the answers; `body` gets the port.
public func withLocalWebServer<T: Sendable>(
    _ router: Router<BasicRequestContext>, _ body: @Sendable (_ port: Int) async throws -> T
) async throws -> T {
    let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    return try await application.test(.live) { client in
        guard let port = client.port else { throw LocalWebServerError() }
        return try await body(port)
    }
}

struct LocalWebServerError: Error, CustomStringConvertible {
    var description: String { "the local web server has no port" }
}
