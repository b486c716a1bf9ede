import Foundation

/// An IPv4 or IPv6 address as 4 or 16 bytes, and the ranges a server must not be made to reach.
public struct NetworkAddress: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(_ text: String) {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An IPv4 address written in IPv6 (::ffff:a.b.c.d, and the deprecated ::a.b.c.d) as IPv4.
    var unmapped: NetworkAddress {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }) else { return self }
        if bytes[10] == 0xff, bytes[11] == 0xff { return NetworkAddress(bytes: Array(bytes[12...])) }
        if bytes[10] == 0, bytes[11] == 0, bytes[12...].contains(where: { $0 != 0 }), !(bytes[12..<15].allSatisfy { $0 == 0 } && bytes[15] <= 1) {
            return NetworkAddress(bytes: Array(bytes[12...]))
        }
        return self
    }

    /// The reserved range this address is in (loopback, private, link-local and cloud
    /// metadata, carrier-grade NAT, multicast, unspecified, documentation, …), or nil for a
    /// public address.
    public var reservedRange: AddressRange? {
        let address = unmapped
        return AddressRange.reserved.first { $0.contains(address) }
    }
}

/// A network as an address and a prefix length ("10.0.0.0/8").
public struct AddressRange: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let network: NetworkAddress
    public let prefix: Int
    /// What the range is, for errors ("loopback").
    public let name: String

    public init?(_ text: String, name: String? = nil) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let network = NetworkAddress(String(parts[0])) else { return nil }
        let bits = network.bytes.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        self.network = network
        self.prefix = prefix
        self.name = name ?? text
    }

    public var description: String { "\(network)/\(prefix)" }

    public func contains(_ address: NetworkAddress) -> Bool {
        let address = address.unmapped
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefix
        for (a, b) in zip(address.bytes, network.bytes) where remaining > 0 {
            let bits = min(remaining, 8)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// Every range that is not the public internet (IANA special-purpose registries).
    public static let reserved: [AddressRange] = [
        ("0.0.0.0/8", "unspecified"), ("10.0.0.0/8", "private"), ("100.64.0.0/10", "carrier-grade NAT"), ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local and cloud metadata"), ("172.16.0.0/12", "private"), ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation"), ("192.88.99.0/24", "6to4 relay"), ("192.168.0.0/16", "private"), ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"), ("203.0.113.0/24", "documentation"), ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"), ("::1/128", "loopback"), ("64:ff9b::/96", "NAT64"), ("64:ff9b:1::/48", "NAT64"), ("100::/64", "discard"),
        ("2001::/23", "IETF protocol assignments"), ("2001:db8::/32", "documentation"), ("2002::/16", "6to4"), ("fc00::/7", "private"),
        ("fe80::/10", "link-local"), ("fec0::/10", "site-local"), ("ff00::/8", "multicast"),
    ].compactMap { AddressRange($0.0, name: $0.1) }
}
