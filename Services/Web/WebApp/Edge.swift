import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SousCrypto
import SousWire

/// Everything every request passes through, in one place: the rate limit, the session cookie,
/// the form (read within its size limit, its token checked) for every POST, the security
/// headers on every response, and the one way a refusal becomes a page — never a trace, never
/// a service's internal message.
struct Edge: RouterMiddleware {
    typealias Context = WebContext

    let keys: CookieKeys
    let views: Views
    let limits: WebLimits
    let limiter: RateLimiter
    let trustForwardedFor: Bool

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws -> Response {
        var context = context
        let wantsJSON = request.headers[.init("X-Sous-Fetch")!] != nil
        var response: Response
        var newVisitor: String?
        do {
            context.clientAddress = clientAddress(request, context)
            guard limiter.allow(context.clientAddress) else { throw WebError.rateLimited }
            let sessionCookie = request.cookies[CookieKeys.sessionCookie]?.value
            context.session = sessionCookie.flatMap(keys.open)
            let subject: String
            if let session = context.session {
                subject = session.token
            } else if let visitor = request.cookies[CookieKeys.visitorCookie]?.value, (20...64).contains(visitor.utf8.count) {
                subject = visitor
            } else {
                let visitor = Base64URL.encode(Sodium.randomBytes(24))
                newVisitor = visitor
                subject = visitor
            }
            context.formToken = keys.formToken(for: subject)
            if request.method == .post {
                // Only a signed-in browser may send an archive, the one upload larger than a photo.
                let archive = context.session != nil && request.uri.path == "/account/import"
                context.form = try await readForm(request, upTo: archive ? limits.archiveBytes : limits.uploadBytes)
                let sent = context.form.raw("csrf") ?? request.headers[.init("X-CSRF-Token")!] ?? ""
                guard keys.isValid(formToken: sent, for: subject) else { throw WebError.formExpired }
            } else if request.method != .get && request.method != .head {
                throw WebError(status: .methodNotAllowed, message: "This address takes only GET and POST requests.")
            }
            response = try await next(request, context)
        } catch {
            let refusal = refusal(for: error, request: request, context: context)
            response = self.response(for: refusal, request: request, context: context, wantsJSON: wantsJSON)
            if refusal.sessionEnded, context.session != nil {
                response.headers.append(HTTPField(name: .setCookie, value: keys.cleared(CookieKeys.sessionCookie)))
            }
        }
        if let newVisitor {
            response.headers.append(HTTPField(name: .setCookie, value: keys.cookie(CookieKeys.visitorCookie, newVisitor, maxAge: 60 * 60 * 24 * 30)))
        }
        Self.addSecurityHeaders(&response.headers)
        return response
    }

    /// Who the rate limit counts: the connection's address, or the one a trusted proxy names.
    private func clientAddress(_ request: Request, _ context: WebContext) -> String {
        guard trustForwardedFor, let forwarded = request.headers[.init("X-Forwarded-For")!] else { return context.peerAddress }
        let last = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return ForwardedAddress.isValid(last) ? last : context.peerAddress
    }

    /// The form of a POST: URL-encoded within `formBytes`, multipart within `uploadLimit`.
    private func readForm(_ request: Request, upTo uploadLimit: Int) async throws -> Form {
        let type = request.headers[.contentType] ?? ""
        let lowered = type.lowercased()
        if lowered.hasPrefix("multipart/form-data") {
            guard let boundary = FormReader.boundary(of: type) else { throw WebError.badForm("the upload has no multipart boundary") }
            let bytes = try await collect(request, upTo: uploadLimit, what: "An upload")
            return try FormReader.multipart(bytes, boundary: boundary, limits: limits)
        }
        if lowered.hasPrefix("application/x-www-form-urlencoded") || type.isEmpty {
            let bytes = try await collect(request, upTo: limits.formBytes, what: "A form")
            return try FormReader.urlEncoded(bytes, limits: limits)
        }
        throw WebError(status: .unsupportedMediaType, message: "Forms are sent URL-encoded or as multipart/form-data.")
    }

    private func collect(_ request: Request, upTo limit: Int, what: String) async throws -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw WebError.tooLarge("\(what) may be at most \(limit / 1024) KiB.")
        }
        do {
            var buffer = try await request.body.collect(upTo: limit)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw WebError.tooLarge("\(what) may be at most \(limit / 1024) KiB.")
        }
    }

    private func refusal(for error: any Error, request: Request, context: WebContext) -> WebError {
        switch error {
        case let error as WebError: return error
        case let error as ServiceError:
            if error.code == .internal { context.logger.error("a service failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"]) }
            return WebError(error)
        case let error as HTTPError where error.status == .notFound: return .notFound
        case let error as HTTPError where error.status.code < 500:
            return WebError(status: error.status, message: "This request could not be handled (\(error.status.code)).")
        default:
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: error))"])
            return WebError(status: .internalServerError, message: "Something went wrong on our side. Try again in a moment.")
        }
    }

    private func response(for refusal: WebError, request: Request, context: WebContext, wantsJSON: Bool) -> Response {
        if wantsJSON {
            var fields: [String: String] = ["error": refusal.message]
            if let field = refusal.field { fields["field"] = field }
            if refusal.sessionEnded { fields["signIn"] = "/signin" }
            let body = (try? JSONEncoder().encode(fields)) ?? Data()
            return Response(
                status: refusal.status, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        if refusal.sessionEnded, request.method == .get {
            let next = request.uri.path.hasPrefix("/") && !request.uri.path.hasPrefix("//") ? request.uri.path : "/"
            var response = Response.redirect(to: "/signin?next=\(Views.urlQueryValue(next))", type: .normal)
            response.status = .seeOther
            return response
        }
        return views.errorPage(refusal, context: context)
    }

    /// No script, style or frame from anywhere but this origin; nothing inline.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "worker-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    static func addSecurityHeaders(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers[.init("Referrer-Policy")!] = "same-origin"
        headers[.init("X-Frame-Options")!] = "DENY"
        headers[.init("Cross-Origin-Opener-Policy")!] = "same-origin"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }
}
