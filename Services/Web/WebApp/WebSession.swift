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

    /// The form token for a browser known by `subject` (its session token, or its visitor value).
    func formToken(for subject: String) -> String {
        Base64URL.encode(Sodium.mac(Array(subject.utf8), key: forms))
    }

    func isValid(formToken: String, for subject: String) -> Bool {
        Sodium.constantTimeEqual(Array(formToken.utf8), Array(self.formToken(for: subject).utf8))
    }
}
