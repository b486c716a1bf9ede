import Foundation
import MessagePack
import SousWire
import Testing

/// Bytes from the network are hostile: every failure must be a typed error, never a crash, and
/// no length claim may be trusted before it is checked against what remains.
struct HostileInputTests {
    let decoder = MessagePackDecoder()

    struct Anything: Codable {
        var name: String
        var values: [Int]
    }

    func underlying(_ bytes: [UInt8], as type: (some Decodable).Type = Anything.self) -> MessagePackError? {
        do {
            _ = try decoder.decode(type, from: bytes)
            return nil
        } catch let DecodingError.dataCorrupted(context) {
            return context.underlyingError as? MessagePackError
        } catch {
            return nil
        }
    }

    @Test func emptyInput() {
        #expect(underlying([]) == .truncated(offset: 0, needed: 1, remaining: 0))
    }

    @Test func lengthClaimsBeyondTheInputAreRejectedBeforeAllocating() {
        // str32 claiming 4 GiB
        #expect(underlying([0xdb, 0xff, 0xff, 0xff, 0xff, 0x61]) == .truncated(offset: 5, needed: 4_294_967_295, remaining: 1))
        // bin32 claiming 4 GiB
        #expect(underlying([0xc6, 0xff, 0xff, 0xff, 0xff], as: Data.self) == .truncated(offset: 5, needed: 4_294_967_295, remaining: 0))
        // array32 claiming 4 billion elements with 1 byte left
        #expect(underlying([0xdd, 0xff, 0xff, 0xff, 0xff, 0x00], as: [Int].self) == .truncated(offset: 5, needed: 4_294_967_295, remaining: 1))
        // map32 claiming 4 billion entries
        #expect(underlying([0xdf, 0xff, 0xff, 0xff, 0xff], as: [String: Int].self) == .truncated(offset: 5, needed: 8_589_934_590, remaining: 0))
        // ext32 claiming 4 GiB
        #expect(underlying([0xc9, 0xff, 0xff, 0xff, 0xff, 0xff], as: Date.self) == .truncated(offset: 6, needed: 4_294_967_295, remaining: 0))
    }

    @Test func truncatedScalars() {
        #expect(underlying([0xcd, 0x01], as: Int.self) == .truncated(offset: 1, needed: 2, remaining: 1))
        #expect(underlying([0xcb, 0x00, 0x00], as: Double.self) == .truncated(offset: 1, needed: 8, remaining: 2))
        #expect(underlying([0xa5, 0x61], as: String.self) == .truncated(offset: 1, needed: 5, remaining: 1))
        #expect(underlying([0xd9], as: String.self) == .truncated(offset: 1, needed: 1, remaining: 0))
    }

    @Test func everyPrefixOfAValidMessageFailsCleanly() throws {
        let bytes = try MessagePackEncoder().encode(CodableTests.sample)
        for length in 0..<bytes.count {
            #expect(throws: DecodingError.self) { try decoder.decode(CodableTests.Recipe.self, from: Array(bytes.prefix(length))) }
        }
    }

    @Test func randomGarbageNeverCrashes() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 64)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? decoder.decode(CodableTests.Recipe.self, from: bytes)
            _ = try? decoder.decode([String: [Int?]].self, from: bytes)
        }
    }

    @Test func bitFlipsOfAValidMessageNeverCrash() throws {
        let bytes = try MessagePackEncoder().encode(CodableTests.sample)
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                _ = try? decoder.decode(CodableTests.Recipe.self, from: damaged)
            }
        }
    }

    @Test func nestingIsBounded() {
        let deep = [UInt8](repeating: 0x91, count: 100_000) + [0x00]
        #expect(underlying(deep, as: [Int].self) == .nestingTooDeep(limit: 64))
        let deepMaps = [UInt8](repeating: 0, count: 0) + Array(repeating: [0x81, 0xa1, 0x61], count: 1000).flatMap { $0 } + [0xc0]
        #expect(underlying(deepMaps, as: [String: Int?].self) == .nestingTooDeep(limit: 64))
    }

    @Test func neverUsedFormatByte() {
        #expect(underlying([0xc1], as: Int.self) == .invalidFormat(offset: 0, byte: 0xc1))
    }

    @Test func trailingBytesAreRejected() {
        #expect(underlying([0x01, 0x02], as: Int.self) == .trailingBytes(offset: 1, count: 1))
    }

    @Test func invalidUTF8IsRejected() {
        #expect(underlying([0xa2, 0xc3, 0x28], as: String.self) == .invalidUTF8(offset: 1))
    }

    @Test func nulInTextIsRefusedWhereAsked() throws {
        // Valid UTF-8: read as it is by default (event topics end with NUL), refused in requests
        // (no stored text may hold one; PostgreSQL cannot).
        let text: [UInt8] = [0xa3, 0x61, 0x00, 0x62]
        #expect(try MessagePackDecoder().decode(String.self, from: text) == "a\u{0}b")
        var strict = MessagePackDecoder()
        strict.rejectsNUL = true
        let refused = #expect(throws: DecodingError.self) { try strict.decode(String.self, from: text) }
        guard case .dataCorrupted(let context)? = refused else { return }
        #expect(context.underlyingError as? MessagePackError == .nulInString(offset: 1))
    }

    @Test func nonStringMapKeysAreRejected() {
        #expect(underlying([0x81, 0x01, 0x02]) == .nonStringKey(offset: 1))
    }

    @Test func timestampWithOutOfRangeNanoseconds() {
        // timestamp 64 with nanoseconds = 2^30 - 1 (> 999,999,999)
        let packed: UInt64 = (0x3fff_ffff << 34) | 1
        let bytes: [UInt8] = [0xd7, 0xff] + withUnsafeBytes(of: packed.bigEndian) { Array($0) }
        #expect(underlying(bytes, as: Date.self) == .invalidTimestamp(offset: 2))
        // an extension of another type where a date was expected
        #expect(throws: DecodingError.self) { try decoder.decode(Date.self, from: [0xd6, 0x01, 0, 0, 0, 1]) }
    }
}
