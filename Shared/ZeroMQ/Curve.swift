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
