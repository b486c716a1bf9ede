import Foundation
public import SousCrypto
import Synchronization
public import ZeroMQ

/// The keys one process authenticates with and trusts (docs/PROTOCOL.md, "Keys"):
/// - its own long-term CURVE key pair, created on first start as `<data>/<service>.curve`
///   (mode 0600) and reused afterwards;
/// - the other services' public keys, read from the keys folder (`<keys>/<service>.pub`, which
///   each service writes for itself on start): whom it connects to, and the allow-list its ZAP
///   handler recognises as services;
/// - the planner's session-signing public key (`<keys>/sessions.pub`), which checks tokens;
/// - the web app's public key (`<keys>/web.pub`): the one client trusted to name the address
///   of the person it serves.
public final class Keyring: Sendable {
    public let own: CurveKeyPair
    /// Where public keys are shared; nil when every key is given up front (tests).
    public let directory: String?
    private let fixed: [SousService: String]
    private let fixedSessionKey: [UInt8]?
    private let fixedWebAppKey: String?
    private let cache = Mutex<Cache>(Cache())

    private struct Cache {
        var keys: [SousService: String] = [:]
        var sessionKey: [UInt8]?
        var webAppKey: String?
    }

    /// - Parameters:
    ///   - serviceKeys: public keys known up front; others are read from `directory`.
    ///   - sessionKey: the planner's session-signing public key, if known up front.
    ///   - webAppKey: the web app's public key, if known up front.
    public init(
        own: CurveKeyPair, directory: String?, serviceKeys: [SousService: String] = [:], sessionKey: [UInt8]? = nil, webAppKey: String? = nil
    ) {
        self.own = own
        self.directory = directory
        fixed = serviceKeys
        fixedSessionKey = sessionKey
        fixedWebAppKey = webAppKey
    }

    /// Whether `key` is the web app's. A miss reads `<keys>/web.pub` again (one small file, on a
    /// stranger's handshake only), so a web app that starts later, or with a new key, is known
    /// from its next connection.
    public func isWebApp(_ key: String) -> Bool {
        if key == fixedWebAppKey || key == cache.withLock({ $0.webAppKey }) { return true }
        guard let directory, let published = PublishedKeys.readLine(Self.webAppKeyPath(in: directory)), CurveKeyPair.isValidKey(published)
        else { return false }
        cache.withLock { $0.webAppKey = published }
        return key == published
    }

    /// The public key of `service`, or nil if it has not published one yet.
    public func publicKey(of service: SousService) -> String? {
        if let key = fixed[service] { return key }
        if let key = cache.withLock({ $0.keys[service] }) { return key }
        refresh()
        return cache.withLock { $0.keys[service] }
    }

    /// The service whose long-term public key is `key`: the ZAP handler's allow-list.
    public func service(withKey key: String) -> SousService? {
        if let match = fixed.first(where: { $0.value == key }) { return match.key }
        if let match = cache.withLock({ $0.keys.first { $0.value == key } }) { return match.key }
        refresh()
        return cache.withLock { $0.keys.first { $0.value == key }?.key }
    }

    /// The planner's session-signing public key, or nil until the planner has published it.
    public var sessionKey: [UInt8]? {
        if let fixedSessionKey { return fixedSessionKey }
        if let key = cache.withLock({ $0.sessionKey }) { return key }
        refresh()
        return cache.withLock { $0.sessionKey }
    }

    /// Reads the keys not known yet (at most the five services' and the session key): once
    /// every service has published, a miss (a stranger's key) reads nothing. A key a service
    /// publishes while others run is found at the next miss, never later.
    private func refresh() {
        guard let directory else { return }
        let missing = cache.withLock { cache in SousService.allCases.filter { cache.keys[$0] == nil } }
        var found: [SousService: String] = [:]
        for service in missing {
            if let text = PublishedKeys.readLine(PublishedKeys.publicKeyPath(of: service, in: directory)), CurveKeyPair.isValidKey(text) {
                found[service] = text
            }
        }
        let needsSessionKey = cache.withLock { $0.sessionKey == nil }
        let sessionKey =
            needsSessionKey
            ? PublishedKeys.readLine(Self.sessionKeyPath(in: directory)).flatMap(Hex.decode).flatMap { $0.count == 32 ? $0 : nil } : nil
        cache.withLock { cache in
            cache.keys.merge(found) { _, new in new }
            if let sessionKey { cache.sessionKey = sessionKey }
        }
    }

    // MARK: Files

    public static func sessionKeyPath(in directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent("sessions.pub").path
    }

    public static func webAppKeyPath(in directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent("web.pub").path
    }

    /// The service's own CURVE key pair from `<data>/<service>.curve`, created (mode 0600) on
    /// first start; a fresh one for a service without a data folder.
    public static func ownKeyPair(of service: SousService, dataDirectory: String?) throws -> CurveKeyPair {
        try ownKeyPair(named: service.rawValue, dataDirectory: dataDirectory)
    }

    /// The long-term CURVE key pair in `<data>/<name>.curve` (the web app's is `web`).
    public static func ownKeyPair(named name: String, dataDirectory: String?) throws -> CurveKeyPair {
        guard let dataDirectory else { return try CurveKeyPair.generate() }
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("\(name).curve").path
        let text = try SecretFile.readOrCreate(path) { try CurveKeyPair.generate().secretKey }
        guard let pair = CurveKeyPair(secretKey: text) else {
            throw KeyError("\(path) does not hold a CURVE secret key (40 Z85 characters); move it away to create a new one")
        }
        return pair
    }

    /// 32 secret random bytes kept in `<data>/<name>.key` (64 hex digits, mode 0600), created on
    /// first start: a key that replicas sharing the folder share (the web app's cookie key).
    public static func secretKey(named name: String, dataDirectory: String?) throws -> [UInt8] {
        guard let dataDirectory else { return Sodium.randomBytes(32) }
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("\(name).key").path
        let text = try SecretFile.readOrCreate(path) { Hex.encode(Sodium.randomBytes(32)) }
        guard let key = Hex.decode(text), key.count == 32 else {
            throw KeyError("\(path) does not hold a 32-byte key (64 hex digits); move it away to create a new one")
        }
        return key
    }

    /// Writes `<keys>/<service>.pub` for the other services and clients (world-readable: it is
    /// public), unless it already holds this key.
    public static func publish(_ key: String, of service: SousService, in directory: String) throws {
        try publish(key, at: PublishedKeys.publicKeyPath(of: service, in: directory))
    }

    /// Writes `<keys>/web.pub`, the web app's public key, for the services to recognise it.
    public static func publishWebAppKey(_ key: String, in directory: String) throws {
        try publish(key, at: webAppKeyPath(in: directory))
    }

    static func publish(_ text: String, at path: String) throws {
        if PublishedKeys.readLine(path) == text { return }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Written whole under another name and renamed, so a reader never sees half a key.
        // Replicas in containers are all pid 1: the random part keeps their files apart.
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: temporary))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: temporary)
        guard rename(temporary, path) == 0 else { throw KeyError("could not write \(path): \(String(cString: strerror(errno)))") }
    }

}

/// The planner's session-signing key pair: `<data>/sessions.key` (mode 0600), created on first
/// start; its public half is published as `<keys>/sessions.pub`.
public enum SessionKeyFile {
    public static func loadOrCreate(dataDirectory: String?) throws -> Sodium.SigningKeyPair {
        guard let dataDirectory else { return .generate() }
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("sessions.key").path
        let text = try SecretFile.readOrCreate(path) { Hex.encode(Sodium.SigningKeyPair.generate().secretKey) }
        guard let secret = Hex.decode(text), secret.count == 64,
            let pair = Sodium.SigningKeyPair(publicKey: Array(secret.suffix(32)), secretKey: secret)
        else {
            throw KeyError("\(path) does not hold an Ed25519 secret key (128 hex digits); move it away to create a new one (every session ends)")
        }
        return pair
    }

    public static func publish(_ publicKey: [UInt8], in directory: String) throws {
        try Keyring.publish(Hex.encode(publicKey), at: Keyring.sessionKeyPath(in: directory))
    }
}

/// A file only its owner may read, created with that mode from the start.
enum SecretFile {
    static func readOrCreate(_ path: String, make: () throws -> String) throws -> String {
        if let text = PublishedKeys.readLine(path) {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & 0o077 != 0 {
                throw KeyError("\(path) may be read by others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
            }
            return text
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let text = try make()
        // Written whole under a name of its own, then linked into place: replicas starting at
        // once on a shared folder all end up with the one key that was linked first, and none
        // ever reads a half-written file.
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw KeyError("could not create \(temporary): \(String(cString: strerror(errno)))") }
        defer { unlink(temporary) }
        let bytes = Array((text + "\n").utf8)
        let written = write(descriptor, bytes, bytes.count) == bytes.count && fsync(descriptor) == 0
        let writeError = errno
        close(descriptor)
        guard written else { throw KeyError("could not write \(temporary): \(String(cString: strerror(writeError)))") }
        guard link(temporary, path) == 0 else {
            // Another replica linked its key first: use theirs.
            if errno == EEXIST, let text = PublishedKeys.readLine(path) { return text }
            throw KeyError("could not create \(path): \(String(cString: strerror(errno)))")
        }
        return text
    }
}

public struct KeyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Lowercase hexadecimal text of bytes, and back.
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
