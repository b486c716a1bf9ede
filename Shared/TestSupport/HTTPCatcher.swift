import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A real HTTP server on loopback for tests of what Sous posts to ntfy topics, webhooks and
/// Web Push services: `Tests/Support/http_catcher.py` in a child process. Pushes are decrypted
/// with the subscription's keys and their VAPID header verified there, independently of the
/// Swift code that made them. Every request is read back as it arrives.
///
/// Paths decide the answer: `/hang/…` never answers, `/status/CODE/…` answers CODE,
/// `/redirect/…?to=URL` redirects, `/push/ID` is a push subscription's endpoint, anything
/// else is 200.
public final class HTTPCatcher: ChildServer {
    private let child: ReportingChild<CaughtRequest>

    public init() throws {
        child = try ReportingChild(script: "http_catcher.py", arguments: [], what: "the HTTP catcher (python3-cryptography)")
    }

    public var port: Int { child.port }
    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public var requests: [CaughtRequest] { child.lines }

    /// Waits until at least `count` requests whose path starts with `prefix` have arrived.
    public func requests(count: Int = 1, to prefix: String, within timeout: Duration = .seconds(30)) async throws -> [CaughtRequest] {
        try await child.lines(count: count, within: timeout, what: "\(count) request(s) to \(prefix)") { $0.path.hasPrefix(prefix) }
    }

    /// A new browser subscription at this push service (its keys stay here, for decrypting).
    public func subscribe() async throws -> Subscription {
        try JSONDecoder().decode(Subscription.self, from: Data(try await post("/_subscribe")))
    }

    /// The browser left: later pushes to the subscription answer 410.
    public func forget(_ subscription: Subscription) async throws {
        _ = try await post("/_forget/\(subscription.id)")
    }

    private func post(_ path: String) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url(path))
        request.method = .POST
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
    }

    public func stop() { child.stop() }

    public struct Subscription: Sendable, Decodable {
        public let id: String
        public let endpoint: String
        public let p256dh: String
        public let auth: String
    }
}

/// Runs `body` with a started ``HTTPCatcher``, stopping it afterwards.
public func withHTTPCatcher<T: Sendable>(_ body: (HTTPCatcher) async throws -> T) async throws -> T {
    try await withChildServer({ try HTTPCatcher() }, body)
}

/// One request as the catcher received it.
public struct CaughtRequest: Sendable, Decodable {
    /// `http`, or `push` for a request to a push subscription's endpoint.
    public let kind: String
    public let method: String?
    public let path: String
    /// The status it was answered (nil: never answered).
    public let status: Int?
    /// Lower-cased names.
    public let headers: [String: String]
    public let body: String?
    /// A push's decrypted payload (nil when it did not decrypt).
    public let plaintext: String?
    /// Why a push was refused.
    public let error: String?
    public let vapid: VAPID?

    public struct VAPID: Sendable, Decodable {
        public let aud: String
        public let sub: String
        public let exp: Int
    }
}
