import Foundation
import SousCrypto

/// Who a browser is signed in as: the Sous session it wraps, sealed into the `sous_session`
/// cookie. The web app keeps nothing: any replica with the same secret reads the cookie, and
/// the services decide on every call whether the session still holds (signing out elsewhere
/// ends it here at the next request).
struct WebSession: Codable, Sendable, Equatable {
    /// The Sous session token every call carries.
    var token: String
    var user: String
    var name: String
}

/// Seals and opens session cookies and derives the form tokens (CSRF) from one secret.
struct CookieKeys: Sendable {
    static let sessionCookie = "sous_session"
    /// A random value a browser without a session carries, so that the forms it sees before
    /// signing in (sign in, register) have a token bound to it too.
    static let visitorCookie = "sous_visitor"

    private let sealing: [UInt8]
    private let forms: [UInt8]
    /// Cookies go over HTTPS only (behind a TLS proxy).
    private let secure: Bool

    init(secret: [UInt8], secure: Bool) {
        sealing = Sodium.digest([Array("sous-web session cookie".utf8), secret])
        forms = Sodium.digest([Array("sous-web form token".utf8), secret])
        self.secure = secure
    }

    /// A `Set-Cookie` value: scripts cannot read it, other sites' forms do not send it.
    func cookie(_ name: String, _ value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    func cleared(_ name: String) -> String { cookie(name, "", maxAge: 0) }

    /// The cookie that signs `session` in on this browser (a month; the Sous session decides
    /// how long it really holds).
    func sessionCookie(_ session: WebSession) -> String {
        cookie(Self.sessionCookie, seal(session), maxAge: 60 * 60 * 24 * 30)
    }

    func seal(_ session: WebSession) -> String {
        let json = (try? JSONEncoder().encode(session)) ?? Data()
        return Base64URL.encode(Sodium.seal(Array(json), key: sealing))
    }

    /// The session in `cookie`, or nil for anything this app did not seal (forged, changed,
    /// sealed under another secret, or not base64url at all).
    func open(_ cookie: String) -> WebSession? {
        guard cookie.utf8.count <= 4096, let sealed = Base64URL.decode(cookie), let json = Sodium.open(sealed, key: sealing) else { return nil }
        return try? JSONDecoder().decode(WebSession.self, from: Data(json))
    }

    /// The form token for a browser known by `subject` (its session token, or its visitor
    /// value), masked afresh for each page: a random pad, then the token XOR the pad. A page
    /// that a proxy compresses next to text an attacker chose (a search) then never carries the
    /// same bytes twice, so its compressed size tells nothing of the token (BREACH).
    func formToken(for subject: String) -> String {
        let token = Sodium.mac(Array(subject.utf8), key: forms)
        let pad = Sodium.randomBytes(token.count)
        return Base64URL.encode(pad + zip(token, pad).map { $0 ^ $1 })
    }

    /// Whether `formToken` is this browser's: masked by any pad, or bare (a tick a service
    /// worker queued from a page served before tokens were masked).
    func isValid(formToken: String, for subject: String) -> Bool {
        let token = Sodium.mac(Array(subject.utf8), key: forms)
        guard formToken.utf8.count <= 128, let sent = Base64URL.decode(formToken) else { return false }
        switch sent.count {
        case token.count * 2:
            let pad = sent.prefix(token.count)
            return Sodium.constantTimeEqual(zip(sent.suffix(token.count), pad).map { $0 ^ $1 }, token)
        case token.count:
            return Sodium.constantTimeEqual(sent, token)
        default:
            return false
        }
    }
}
