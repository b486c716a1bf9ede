import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PlannerService
import SousClient
import SousCrypto
import SousRuntime
import SousServiceTesting
import SousTestSupport
import Synchronization
import Testing
import WebApp

/// The web app over real HTTP (Hummingbird's live test server on a free port) in front of the
/// five services running in-process: what a browser sees, without the browser.
enum WebHarness {
    static func run(
        mail: AccountMail = AccountMail(settings: nil, webURL: nil), configure: (inout WebConfiguration) -> Void = { _ in },
        _ body: @Sendable (StackFixture, any TestClientProtocol) async throws -> Void
    ) async throws {
        let stack = try StackFixture.make(mail: mail)
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [SousService: String] = [:]
            for service in SousService.allCases { endpoints[service] = stack.host(of: service).boundEndpoints.requests }
            var limits = WebLimits()
            limits.uploadBytes = 512 * 1024
            limits.archiveBytes = 2 * 1024 * 1024
            // A test's open stream ends within a wait of the end of its test.
            limits.streamWait = .seconds(1)
            var configuration = WebConfiguration(
                port: 0, endpoints: endpoints, keysDirectory: nil, secret: Sodium.randomBytes(32), callLimit: .seconds(30), limits: limits)
            configure(&configuration)
            var logger = Logger(label: "web-test")
            logger.logLevel = .critical
            let web = try WebApp(configuration: configuration)
            try await web.application(logger: logger).test(.live) { client in try await body(stack, client) }
        }
    }
}

/// One browser: a cookie jar and the form token of the last page it read.
final class Browser: Sendable {
    let client: any TestClientProtocol
    private let state = Mutex<(cookies: [String: String], token: String)>(([:], ""))

    init(_ client: any TestClientProtocol) { self.client = client }

    var formToken: String { state.withLock { $0.token } }
    func cookie(_ name: String) -> String? { state.withLock { $0.cookies[name] } }
    func setCookie(_ name: String, _ value: String?) { state.withLock { $0.cookies[name] = value } }

    @discardableResult
    func get(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await send(path, method: .get, headers: headers, body: nil)
    }

    /// POSTs `fields` URL-encoded, with this browser's form token unless `csrf` says otherwise.
    @discardableResult
    func post(_ path: String, _ fields: [(String, String)] = [], csrf: String? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        let all = [("csrf", csrf ?? formToken)] + fields
        let text = all.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await send(path, method: .post, headers: headers, body: ByteBuffer(string: text))
    }

    /// POSTs a multipart form with one file.
    @discardableResult
    func upload(
        _ path: String, fields: [(String, String)], file: (field: String, name: String, type: String, bytes: [UInt8])
    ) async throws
        -> TestResponse
    {
        let boundary = "sous-test-boundary-7MA4YWxkTrZu0gW"
        var body: [UInt8] = []
        for (name, value) in [("csrf", formToken)] + fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\nContent-Type: \(file.type)\r\n\r\n"
                .utf8)
        body += file.bytes
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return try await send(
            path, method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"], body: ByteBuffer(bytes: body))
    }

    func send(_ path: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        let cookies = state.withLock { $0.cookies }
        if !cookies.isEmpty { headers[.cookie] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body)
        state.withLock { state in
            for field in response.headers[values: .setCookie] {
                let pair = field.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2 else { continue }
                let value = String(pair[1])
                state.cookies[String(pair[0])] = field.contains("Max-Age=0") || value.isEmpty ? nil : value
            }
            if let token = Self.formToken(in: String(buffer: response.body)) { state.token = token }
        }
        return response
    }

    static func formToken(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Registers and signs in (the browser is then on the profile page).
    /// Joins `owner`'s household with an invitation code `owner` makes on the household page.
    func joinHousehold(of owner: Browser) async throws {
        try await owner.get("/household")
        let invited = try await owner.post("/household/invite")
        let code = try #require(
            invited.text.components(separatedBy: "<strong class=\"code\">").dropFirst().first?.split(separator: "<").first.map(String.init))
        try await get("/household")
        let joined = try await post("/household/join", [("code", code)])
        #expect(joined.status == .seeOther, "\(joined.text.prefix(300))")
    }

    func register(_ name: String, email: String, password: String = "correct horse battery") async throws {
        try await get("/register")
        let response = try await post("/register", [("name", name), ("email", email), ("password", password)])
        guard response.status == .seeOther, cookie("sous_session") != nil else {
            throw HarnessError("registering \(email) answered \(response.status): \(String(buffer: response.body).prefix(400))")
        }
        try await get("/settings")
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var location: String? { headers[.location] }
}
