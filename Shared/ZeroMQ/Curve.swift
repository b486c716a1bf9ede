internal import CZeroMQ

/// A CURVE long-term key pair, both keys in Z85 text (40 characters).
public struct CurveKeyPair: Sendable, Equatable {
    public let publicKey: String
    public let secretKey: String

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Generates a fresh key pair. Throws if libzmq was built without CURVE support.
    public static func generate() throws(ZMQError) -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        _ = try retryingEINTR("zmq_curve_keypair") { zmq_curve_keypair(&publicKey, &secretKey) }
        return CurveKeyPair(
            publicKey: String(decoding: publicKey.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self),
            secretKey: String(decoding: secretKey.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        )
    }
}

extension CurveKeyPair {
    /// The key pair whose secret key is `secretKey`, or nil if it is not a 40-character Z85 key.
    public init?(secretKey: String) {
        guard secretKey.utf8.count == 40 else { return nil }
        var publicKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else { return nil }
        self.init(publicKey: String(decoding: publicKey.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self), secretKey: secretKey)
    }

    /// Whether `key` is a well-formed 40-character Z85 CURVE key.
    public static func isValidKey(_ key: String) -> Bool {
        Z85.decode(key)?.count == 32
    }
}

/// ZeroMQ's Z85 text encoding of binary keys (RFC 32).
public enum Z85 {
    public static func encode(_ bytes: [UInt8]) -> String? {
        guard bytes.count % 4 == 0 else { return nil }
        var output = [CChar](repeating: 0, count: bytes.count * 5 / 4 + 1)
        guard zmq_z85_encode(&output, bytes, bytes.count) != nil else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count % 5 == 0, text.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
        var output = [UInt8](repeating: 0, count: text.utf8.count * 4 / 5)
        guard zmq_z85_decode(&output, text) != nil else { return nil }
        return output
    }
}
