import CSodium

/// libsodium, initialised once before first use (Debian's `libsodium-dev`; libzmq links the
/// same library for CURVE).
public enum Sodium {
    /// True once `sodium_init` succeeded; every entry point checks it.
    static let isReady: Bool = sodium_init() >= 0

    /// A 32-byte BLAKE2b digest of `parts`, each prefixed with its length so that no two
    /// different lists of parts share a digest.
    public static func digest(_ parts: [[UInt8]]) -> [UInt8] {
        precondition(isReady, "libsodium could not be initialised")
        var input: [UInt8] = []
        input.reserveCapacity(parts.reduce(0) { $0 + $1.count + 8 })
        for part in parts {
            withUnsafeBytes(of: UInt64(part.count).littleEndian) { input.append(contentsOf: $0) }
            input.append(contentsOf: part)
        }
        var output = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&output, 32, input, UInt64(input.count), nil, 0)
        return output
    }

    /// `count` bytes from the operating system's secure random source.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(isReady, "libsodium could not be initialised")
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}
