public import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's generator (`getrandom`). Foundation's `UUID()`
    /// opens, reads and closes `/dev/urandom` for every one here (3.5 µs against 1.1 µs), and a
    /// client draws one for every write it sends (its idempotency key).
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: generator.next(), toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: generator.next(), toByteOffset: 8, as: UInt64.self)
            // Version 4, and the RFC 9562 variant.
            raw[6] = raw[6] & 0x0F | 0x40
            raw[8] = raw[8] & 0x3F | 0x80
        }
        return UUID(uuid: bytes)
    }
}
