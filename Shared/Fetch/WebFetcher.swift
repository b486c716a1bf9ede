import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SousRuntime

/// What a service may fetch from the web, and how much.
public struct FetchPolicy: Sendable {
    /// Reserved ranges the operator allows anyway (tests allow loopback: "127.0.0.0/8").
    public var allowed: [AddressRange]
    /// The most bytes a response body may have.
    public var maxBytes: Int
    /// For the whole fetch: resolving, connecting, every redirect and the body.
    public var timeout: Duration
    public var maxRedirects: Int
    public var userAgent: String

    public init(
        allowed: [AddressRange] = [], maxBytes: Int = 5_000_000, timeout: Duration = .seconds(10), maxRedirects: Int = 5,
        userAgent: String = "Sous (self-hosted meal planner)"
    ) {
        self.allowed = allowed
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
    }
}

/// Why a fetch failed, each with a message a person can act on.
public enum FetchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not an http(s) address with a host, or one carrying a user name or password.
    case badAddress(String)
    /// The host is, or resolves to, an address the server must not reach.
    case blockedAddress(host: String, address: String, range: String)
    case unresolvable(host: String)
    case tooLarge(limit: Int)
    case timedOut(seconds: Int)
    case tooManyRedirects(Int)
    /// The server answered with an HTTP error status.
    case status(Int)
    /// No connection, or it broke.
    case unreachable(String)

    public var description: String {
        switch self {
        case .badAddress(let why): why
        case .blockedAddress(let host, let address, let range):
            "\(host) is \(address), a \(range) address: only public addresses are fetched"
        case .unresolvable(let host): "\(host) could not be found (DNS)"
        case .tooLarge(let limit): "the answer is larger than \(limit / 1_000_000) MB"
        case .timedOut(let seconds): "no complete answer within \(seconds) s"
        case .tooManyRedirects(let count): "more than \(count) redirects"
        case .status(let code): "the server answered HTTP \(code)"
        case .unreachable(let why): "could not connect: \(why)"
        }
    }
}

/// A response fetched whole.
public struct FetchedResource: Sendable {
    /// Where the body came from, after redirects.
    public var url: URL
    public var contentType: String?
    public var body: Data
}

/// Fetches http(s) resources for the server under ``FetchPolicy``: only public addresses
/// (unless allowed), every redirect checked the same way, at most `maxBytes`, within `timeout`.
///
/// The host is resolved here and every address it has is checked; the connection then goes to
/// the address checked (the client's DNS override), so a name cannot resolve to a public
/// address for the check and a private one for the connection.
public struct WebFetcher: Sendable {
    public let policy: FetchPolicy

    public init(policy: FetchPolicy) { self.policy = policy }

    /// GETs `address`, following redirects. `accept` is sent as the Accept header.
    public func fetch(_ address: String, accept: String) async throws(FetchError) -> FetchedResource {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: policy.timeout)
        let seconds = Int(policy.timeout.components.seconds)
        var url = try Self.checkedURL(address)
        for _ in 0...policy.maxRedirects {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timedOut(seconds: seconds) }
            let current = url
            let step = try await withTimeout(remaining, seconds: seconds) { () async throws(FetchError) -> Step in
                try await self.get(current, accept: accept, within: remaining)
            }
            switch step {
            case .done(let resource): return resource
            case .redirect(let next): url = next
            }
        }
        throw .tooManyRedirects(policy.maxRedirects)
    }

    private enum Step: Sendable {
        case done(FetchedResource)
        case redirect(URL)
    }

    private func get(_ url: URL, accept: String, within remaining: Duration) async throws(FetchError) -> Step {
        let host = url.host(percentEncoded: false) ?? ""
        let address = try await resolveChecked(host)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(Int64(policy.timeout.components.seconds))))
        if NetworkAddress(host) == nil { configuration.dnsOverride = [host: address.description] }
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
        let outcome: Result<Step, FetchError>
        do throws(FetchError) {
            outcome = .success(try await get(url, accept: accept, within: remaining, using: client))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        return try outcome.get()
    }

    private func get(_ url: URL, accept: String, within remaining: Duration, using client: HTTPClient) async throws(FetchError) -> Step {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: policy.userAgent)
        request.headers.add(name: "Accept", value: accept)
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(remaining.clampedNanoseconds))
            if [301, 302, 303, 307, 308].contains(response.status.code) {
                guard let location = response.headers.first(name: "Location"), let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw FetchError.status(Int(response.status.code))
                }
                return .redirect(try Self.checkedURL(next.absoluteString))
            }
            guard (200..<300).contains(response.status.code) else { throw FetchError.status(Int(response.status.code)) }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > policy.maxBytes {
                throw FetchError.tooLarge(limit: policy.maxBytes)
            }
            var body = Data()
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= policy.maxBytes else { throw FetchError.tooLarge(limit: policy.maxBytes) }
                body.append(contentsOf: chunk.readableBytesView)
            }
            return .done(FetchedResource(url: url, contentType: response.headers.first(name: "Content-Type"), body: body))
        } catch let error as FetchError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .timedOut(seconds: Int(policy.timeout.components.seconds))
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// `text` as an http(s) URL with a host and no credentials.
    public static func checkedURL(_ text: String) throws(FetchError) -> URL {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { throw .badAddress("only http and https addresses are fetched") }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else { throw .badAddress("the address has no host") }
        guard url.user == nil, url.password == nil else { throw .badAddress("an address with a user name or password is not fetched") }
        return url
    }

    /// The first address `host` resolves to, after checking all of them.
    func resolveChecked(_ host: String) async throws(FetchError) -> NetworkAddress {
        let addresses: [NetworkAddress]
        if let literal = NetworkAddress(host) {
            addresses = [literal]
        } else {
            let resolved = await Self.resolve(host)
            guard !resolved.isEmpty else { throw .unresolvable(host: host) }
            addresses = resolved
        }
        for address in addresses {
            if let range = address.reservedRange, !policy.allowed.contains(where: { $0.contains(address) }) {
                throw .blockedAddress(host: host, address: address.description, range: range.name)
            }
        }
        return addresses[0]
    }

    /// Every address of `host` (getaddrinfo, on NIO's blocking-work pool).
    static func resolve(_ host: String) async -> [NetworkAddress] {
        (try? await NIOThreadPool.singleton.runIfActive { () -> [NetworkAddress] in
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
            defer { freeaddrinfo(first) }
            var addresses: [NetworkAddress] = []
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                if let socketAddress = current.pointee.ai_addr {
                    switch Int32(current.pointee.ai_family) {
                    case AF_INET:
                        var v4 = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                        addresses.append(NetworkAddress(bytes: withUnsafeBytes(of: &v4) { Array($0) }))
                    case AF_INET6:
                        var v6 = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                        addresses.append(NetworkAddress(bytes: withUnsafeBytes(of: &v6) { Array($0) }))
                    default: break
                    }
                }
                entry = current.pointee.ai_next
            }
            var seen: Set<NetworkAddress> = []
            return addresses.filter { seen.insert($0).inserted }
        }) ?? []
    }
}

/// `body`, or ``FetchError/timedOut(seconds:)`` once `limit` has passed (the body is cancelled).
func withTimeout<T: Sendable>(
    _ limit: Duration, seconds: Int, _ body: @escaping @Sendable () async throws(FetchError) -> T
) async throws(FetchError) -> T {
    let result: Result<T, FetchError> = await withTaskGroup(of: Result<T, FetchError>?.self) { group in
        group.addTask {
            do throws(FetchError) { return .success(try await body()) } catch { return .failure(error) }
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return Task.isCancelled ? nil : .failure(.timedOut(seconds: seconds))
        }
        var outcome: Result<T, FetchError> = .failure(.timedOut(seconds: seconds))
        for await finished in group {
            if let finished {
                outcome = finished
                break
            }
        }
        group.cancelAll()
        return outcome
    }
    return try result.get()
}

extension FetchPolicy {
    /// The policy `SOUS_FETCH_ALLOW` sets: reserved ranges (CIDR, comma-separated, e.g.
    /// "10.0.0.0/8,127.0.0.1") the operator lets the services fetch from anyway. Empty or unset:
    /// public addresses only.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> FetchPolicy {
        var policy = FetchPolicy()
        for text in (environment["SOUS_FETCH_ALLOW"] ?? "").split(separator: ",") {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let range = AddressRange(trimmed) else {
                throw ConfigurationError(variable: "SOUS_FETCH_ALLOW", message: "\"\(trimmed)\" is not an address or a CIDR range")
            }
            policy.allowed.append(range)
        }
        return policy
    }
}

extension FetchPolicy {
    /// Whether `address` is one of the reserved ranges the operator allows.
    public func allows(_ address: NetworkAddress) -> Bool {
        allowed.contains { $0.contains(address) }
    }
}
