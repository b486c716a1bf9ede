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

    init(secret: [UInt8]) {
        sealing = Sodium.digest([Array("sous-web session cookie".utf8), secret])
        forms = Sodium.digest([Array("sous-web form token".utf8), secret])
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

/// Base64 with the URL- and cookie-safe alphabet, without padding.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> [UInt8]? {
        guard
            text.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
