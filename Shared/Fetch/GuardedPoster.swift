import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SousRuntime
import Synchronization

/// What an endpoint answered to a POST.
public struct PostedResponse: Sendable {
    public var status: Int
    public var location: String?
    /// At most the first 4 KiB of the body (for an error's reason).
    public var body: [UInt8]
}

/// POSTs to addresses people give the server (webhooks, ntfy topics, push services) under the
/// same guard as ``WebFetcher``: only public addresses unless the operator allows a range, the
/// connection going to the address that was checked, no redirect followed, every request
/// bounded by its timeout.
///
/// Unlike a fetch, deliveries come by the thousand to a few hosts, so each host keeps one
/// client with its connections (its address checked again every 10 minutes).
public final class GuardedPoster: Sendable {
    public let policy: FetchPolicy
    private let clients = Mutex<[String: HostClient]>([:])
    private static let recheckAfter: TimeInterval = 600
    /// Hosts kept with their connections; beyond, a request gets a client of its own.
    private static let keptHosts = 4096

    private struct HostClient: Sendable {
        let client: HTTPClient
        let address: NetworkAddress
        let checkedAt: Date
    }

    public init(policy: FetchPolicy) { self.policy = policy }

    /// POSTs `body` to `address` and returns the answer, whatever its status (3xx included).
    public func post(
        _ address: String, headers: [(String, String)], body: [UInt8], timeout: Duration
    ) async throws(FetchError) -> PostedResponse {
        let url = try WebFetcher.checkedURL(address)
        let host = url.host(percentEncoded: false) ?? ""
        let (client, shared) = try await client(for: host)
        defer { if !shared { Task { try? await client.shutdown() } } }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "User-Agent", value: policy.userAgent)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let seconds = Int(timeout.components.seconds)
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(timeout.clampedNanoseconds))
            var kept: [UInt8] = []
            for try await chunk in response.body where kept.count < 4096 {
                kept += chunk.readableBytesView.prefix(4096 - kept.count)
            }
            return PostedResponse(status: Int(response.status.code), location: response.headers.first(name: "Location"), body: kept)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw .timedOut(seconds: seconds)
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// Ends every kept client's connections.
    public func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients = [:] }
            return clients.values.map(\.client)
        }
        for client in all { try? await client.shutdown() }
    }

    /// The client for `host`, its address checked (again, when the last check is old): shared
    /// (kept) or for this request only.
    private func client(for host: String) async throws(FetchError) -> (HTTPClient, shared: Bool) {
        let now = Date()
        if let kept = clients.withLock({ $0[host] }), now.timeIntervalSince(kept.checkedAt) < Self.recheckAfter {
            return (kept.client, true)
        }
        let address = try await WebFetcher(policy: policy).resolveChecked(host)
        var retired: HTTPClient?
        let chosen: (HTTPClient, Bool) = clients.withLock { clients in
            if let kept = clients[host], kept.address == address {
                clients[host] = HostClient(client: kept.client, address: address, checkedAt: now)
                return (kept.client, true)
            }
            let client = makeClient(host: host, address: address)
            guard clients[host] != nil || clients.count < Self.keptHosts else { return (client, false) }
            retired = clients[host]?.client
            clients[host] = HostClient(client: client, address: address, checkedAt: now)
            return (client, true)
        }
        // A host that moved: its old client's requests (each bounded) end well within a minute.
        if let retired {
            Task {
                try? await Task.sleep(for: .seconds(60))
                try? await retired.shutdown()
            }
        }
        return chosen
    }

    private func makeClient(host: String, address: NetworkAddress) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(Int64(max(1, policy.timeout.components.seconds)))))
        if NetworkAddress(host) == nil { configuration.dnsOverride = [host: address.description] }
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        return HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
    }
}
