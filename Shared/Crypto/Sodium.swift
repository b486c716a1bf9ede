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

// MARK: Passwords

extension Sodium {
    /// The Argon2id cost Sous hashes passwords with (docs/PROTOCOL.md, "Accounts"): 3 passes over
    /// 64 MiB, one lane. libsodium writes both, with a random salt, into the stored string, so
    /// hashes made with other parameters keep verifying after these change.
    public struct PasswordCost: Sendable, Equatable {
        public var passes: Int
        public var memoryBytes: Int

        public init(passes: Int, memoryBytes: Int) {
            self.passes = passes
            self.memoryBytes = memoryBytes
        }

        public static let standard = PasswordCost(passes: 3, memoryBytes: 64 * 1024 * 1024)
        /// libsodium's smallest Argon2id cost: for tests, which hash many passwords.
        public static let minimal = PasswordCost(passes: Int(crypto_pwhash_opslimit_min()), memoryBytes: 8 * 1024)
    }

    /// An Argon2id hash of `password` in libsodium's self-describing text form (`$argon2id$…`).
    public static func hashPassword(_ password: String, cost: PasswordCost = .standard) -> String? {
        precondition(isReady, "libsodium could not be initialised")
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let chars = password.utf8.map { CChar(bitPattern: $0) }
        let status = crypto_pwhash_str_alg(&output, chars, UInt64(chars.count), UInt64(cost.passes), cost.memoryBytes, crypto_pwhash_alg_argon2id13())
        guard status == 0 else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches a hash made by ``hashPassword(_:cost:)``; constant time in the
    /// password.
    public static func verifyPassword(_ password: String, hash: String) -> Bool {
        precondition(isReady, "libsodium could not be initialised")
        var stored = Array(hash.utf8CString)
        guard stored.count <= Int(crypto_pwhash_strbytes()) else { return false }
        let chars = password.utf8.map { CChar(bitPattern: $0) }
        return crypto_pwhash_str_verify(&stored, chars, UInt64(chars.count)) == 0
    }
}

// MARK: Signatures

extension Sodium {
    /// An Ed25519 key pair: 32-byte public key, 64-byte secret key (seed and public key).
    public struct SigningKeyPair: Sendable, Equatable {
        public let publicKey: [UInt8]
        public let secretKey: [UInt8]

        public init?(publicKey: [UInt8], secretKey: [UInt8]) {
            guard publicKey.count == 32, secretKey.count == 64, Array(secretKey.suffix(32)) == publicKey else { return nil }
            self.publicKey = publicKey
            self.secretKey = secretKey
        }

        public static func generate() -> SigningKeyPair {
            precondition(isReady, "libsodium could not be initialised")
            var publicKey = [UInt8](repeating: 0, count: 32)
            var secretKey = [UInt8](repeating: 0, count: 64)
            _ = crypto_sign_keypair(&publicKey, &secretKey)
            return SigningKeyPair(publicKey: publicKey, secretKey: secretKey)!
        }

        /// The 64-byte detached signature of `message`.
        public func sign(_ message: [UInt8]) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: 64)
            _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
            return signature
        }
    }

    /// Whether `signature` is `publicKey`'s Ed25519 signature of `message`.
    public static func verifySignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        precondition(isReady, "libsodium could not be initialised")
        guard signature.count == 64, publicKey.count == 32 else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// Compares two byte strings in time independent of where they differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return sodium_memcmp(a, b, a.count) == 0
    }
}

// MARK: Sealed values and MACs (the web app's cookies and form tokens)

extension Sodium {
    /// `plaintext` encrypted and authenticated under a 32-byte `key` (XSalsa20-Poly1305 with a
    /// random 24-byte nonce in front): what only a holder of the key can read or forge.
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(isReady, "libsodium could not be initialised")
        precondition(key.count == Int(crypto_secretbox_KEYBYTES), "a sealing key is 32 bytes")
        let nonce = randomBytes(Int(crypto_secretbox_NONCEBYTES))
        var box = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_secretbox_MACBYTES))
        _ = crypto_secretbox_easy(&box, plaintext, UInt64(plaintext.count), nonce, key)
        return nonce + box
    }

    /// The plaintext of a ``seal(_:key:)`` result, or nil when `sealed` was not sealed under
    /// `key` or was changed since.
    public static func open(_ sealed: [UInt8], key: [UInt8]) -> [UInt8]? {
        precondition(isReady, "libsodium could not be initialised")
        let nonceBytes = Int(crypto_secretbox_NONCEBYTES)
        let macBytes = Int(crypto_secretbox_MACBYTES)
        guard key.count == Int(crypto_secretbox_KEYBYTES), sealed.count >= nonceBytes + macBytes else { return nil }
        let nonce = Array(sealed.prefix(nonceBytes))
        let box = Array(sealed.dropFirst(nonceBytes))
        var plaintext = [UInt8](repeating: 0, count: box.count - macBytes)
        guard crypto_secretbox_open_easy(&plaintext, box, UInt64(box.count), nonce, key) == 0 else { return nil }
        return plaintext
    }

    /// A 32-byte keyed BLAKE2b MAC of `message` under `key` (16 to 64 bytes).
    public static func mac(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(isReady, "libsodium could not be initialised")
        precondition((16...64).contains(key.count), "a MAC key is 16 to 64 bytes")
        var output = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&output, 32, message, UInt64(message.count), key, key.count)
        return output
    }
}
