public import Crypto
public import Foundation
public import SousCrypto

/// Web Push as browsers' push services take it: the payload encrypted for the subscription
/// (RFC 8291, the `aes128gcm` content coding of RFC 8188) and the request signed by the
/// application server's VAPID key (RFC 8292).
public enum WebPush {
    /// A subscription's keys that cannot be used (not a P-256 point, a secret not 16 bytes).
    public struct KeyError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `plaintext` encrypted for the browser whose public key is `p256dh` (65 bytes,
    /// uncompressed) and authentication secret `auth` (16 bytes), as one record. `salt` and
    /// `senderKey` are fresh for each message; tests pass them to reproduce RFC 8291's example.
    public static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], salt: [UInt8] = Sodium.randomBytes(16),
        senderKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()
    ) throws -> [UInt8] {
        guard auth.count == 16 else { throw KeyError(description: "the subscription's auth secret is \(auth.count) bytes, not 16") }
        let browserKey: P256.KeyAgreement.PublicKey
        do { browserKey = try P256.KeyAgreement.PublicKey(x963Representation: p256dh) } catch {
            throw KeyError(description: "the subscription's p256dh is not a P-256 public key")
        }
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: browserKey)
        let senderPublic = [UInt8](senderKey.publicKey.x963Representation)
        // RFC 8291 §3.4: the input keying material binds both public keys and the auth secret.
        let keyInfo = Array("WebPush: info".utf8) + [0] + p256dh + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        // One record, the last: the content, then the delimiter 0x02 (no padding).
        let sealed = try AES.GCM.seal(
            plaintext + [2], using: contentKey, nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
        let recordSize = UInt32(recordSizeLimit)
        let header =
            salt + withUnsafeBytes(of: recordSize.bigEndian) { Array($0) } + [UInt8(senderPublic.count)] + senderPublic
        return header + [UInt8](sealed.ciphertext) + [UInt8](sealed.tag)
    }

    /// The record size declared in the header; a payload must fit one record with its
    /// delimiter and tag. Push services take 4 096-byte bodies (RFC 8030 §7.2).
    public static let recordSizeLimit = 4096
    /// The longest plaintext that fits one record with the header (86 bytes), the delimiter and the tag.
    public static let maximumPlaintext = 4096 - 86 - 1 - 16

    /// The `Authorization` header for a push to `endpoint`: a JWT for the endpoint's origin,
    /// valid until `expiry` (at most 24 h ahead), signed with the server's VAPID key.
    public static func authorization(endpoint: URL, key: P256.Signing.PrivateKey, subject: String, expiry: Date) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host(percentEncoded: false) else {
            throw KeyError(description: "the push endpoint has no origin")
        }
        let origin = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        func encode(_ object: [String: Any]) throws -> String {
            Base64URL.encode([UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])))
        }
        let signingInput =
            try encode(["typ": "JWT", "alg": "ES256"]) + "." + encode(["aud": origin, "exp": Int(expiry.timeIntervalSince1970), "sub": subject])
        let signature = try key.signature(for: Array(signingInput.utf8))
        let token = signingInput + "." + Base64URL.encode([UInt8](signature.rawRepresentation))
        return "vapid t=\(token), k=\(publicKey(of: key))"
    }

    /// A VAPID key's public half as browsers take it (`applicationServerKey`): uncompressed, base64url.
    public static func publicKey(of key: P256.Signing.PrivateKey) -> String {
        Base64URL.encode([UInt8](key.publicKey.x963Representation))
    }
}
