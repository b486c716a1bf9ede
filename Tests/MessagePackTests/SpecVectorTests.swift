import Foundation
import MessagePack
import Testing

/// Byte-exact encodings from the MessagePack specification (formats section) and the
/// reference test suite's boundary values.
struct SpecVectorTests {
    let encoder = MessagePackEncoder()
    let decoder = MessagePackDecoder()

    func roundTrip<T: Codable & Equatable>(_ value: T, _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = try encoder.encode(value)
        #expect(bytes == expected, "encoding \(value)", sourceLocation: sourceLocation)
        #expect(try decoder.decode(T.self, from: expected) == value, sourceLocation: sourceLocation)
    }

    @Test func nilAndBooleans() throws {
        try roundTrip(Int?.none, [0xc0])
        try roundTrip(false, [0xc2])
        try roundTrip(true, [0xc3])
    }

    @Test func unsignedIntegersUseTheSmallestFormat() throws {
        try roundTrip(0, [0x00])
        try roundTrip(127, [0x7f])
        try roundTrip(128, [0xcc, 0x80])
        try roundTrip(255, [0xcc, 0xff])
        try roundTrip(256, [0xcd, 0x01, 0x00])
        try roundTrip(65535, [0xcd, 0xff, 0xff])
        try roundTrip(65536, [0xce, 0x00, 0x01, 0x00, 0x00])
        try roundTrip(4_294_967_295, [0xce, 0xff, 0xff, 0xff, 0xff])
        try roundTrip(4_294_967_296, [0xcf, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00])
        try roundTrip(UInt64.max, [0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        try roundTrip(UInt8(200), [0xcc, 0xc8])
        try roundTrip(UInt16(3), [0x03])
        try roundTrip(UInt32(70000), [0xce, 0x00, 0x01, 0x11, 0x70])
    }

    @Test func signedIntegersUseTheSmallestFormat() throws {
        try roundTrip(-1, [0xff])
        try roundTrip(-32, [0xe0])
        try roundTrip(-33, [0xd0, 0xdf])
        try roundTrip(-128, [0xd0, 0x80])
        try roundTrip(-129, [0xd1, 0xff, 0x7f])
        try roundTrip(-32768, [0xd1, 0x80, 0x00])
        try roundTrip(-32769, [0xd2, 0xff, 0xff, 0x7f, 0xff])
        try roundTrip(Int64(Int32.min), [0xd2, 0x80, 0x00, 0x00, 0x00])
        try roundTrip(Int64(Int32.min) - 1, [0xd3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff])
        try roundTrip(Int64.min, [0xd3, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        try roundTrip(Int8(-5), [0xfb])
        try roundTrip(Int16(300), [0xcd, 0x01, 0x2c])
        try roundTrip(Int32(-70000), [0xd2, 0xff, 0xfe, 0xee, 0x90])
    }

    @Test func floats() throws {
        try roundTrip(Float(1.5), [0xca, 0x3f, 0xc0, 0x00, 0x00])
        try roundTrip(1.5, [0xcb, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        try roundTrip(-0.0, [0xcb, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        let nan = try decoder.decode(Double.self, from: [0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0])
        #expect(nan.isNaN)
        #expect(try decoder.decode(Double.self, from: [0xca, 0x3f, 0xc0, 0x00, 0x00]) == 1.5)
        #expect(try decoder.decode(Double.self, from: [0x05]) == 5, "clients may send whole numbers as integers")
    }

    @Test func stringsUseTheSmallestFormat() throws {
        try roundTrip("", [0xa0])
        try roundTrip("a", [0xa1, 0x61])
        let thirtyOne = String(repeating: "x", count: 31)
        try roundTrip(thirtyOne, [0xbf] + Array(thirtyOne.utf8))
        let thirtyTwo = String(repeating: "x", count: 32)
        try roundTrip(thirtyTwo, [0xd9, 0x20] + Array(thirtyTwo.utf8))
        let long = String(repeating: "y", count: 256)
        try roundTrip(long, [0xda, 0x01, 0x00] + Array(long.utf8))
        let huge = String(repeating: "z", count: 65536)
        try roundTrip(huge, [0xdb, 0x00, 0x01, 0x00, 0x00] + Array(huge.utf8))
        try roundTrip("Crème brûlée", [0xaf] + Array("Crème brûlée".utf8))
    }

    @Test func binaryForData() throws {
        try roundTrip(Data(), [0xc4, 0x00])
        try roundTrip(Data([1, 2, 3]), [0xc4, 0x03, 0x01, 0x02, 0x03])
        let medium = Data(repeating: 7, count: 256)
        try roundTrip(medium, [0xc5, 0x01, 0x00] + [UInt8](medium))
        let large = Data(repeating: 9, count: 65536)
        try roundTrip(large, [0xc6, 0x00, 0x01, 0x00, 0x00] + [UInt8](large))
    }

    @Test func arraysUseTheSmallestHeader() throws {
        try roundTrip([Int](), [0x90])
        try roundTrip([1, 2, 3], [0x93, 0x01, 0x02, 0x03])
        let fifteen = Array(repeating: 1, count: 15)
        try roundTrip(fifteen, [0x9f] + Array(repeating: 0x01, count: 15))
        let sixteen = Array(repeating: 1, count: 16)
        try roundTrip(sixteen, [0xdc, 0x00, 0x10] + Array(repeating: 0x01, count: 16))
        let big = Array(repeating: 0, count: 65536)
        try roundTrip(big, [0xdd, 0x00, 0x01, 0x00, 0x00] + Array(repeating: 0x00, count: 65536))
    }

    @Test func mapsUseTheSmallestHeader() throws {
        try roundTrip(["a": 1], [0x81, 0xa1, 0x61, 0x01])
        var sixteen: [String: Int] = [:]
        for index in 0..<16 { sixteen["k\(index)"] = index }
        let bytes = try encoder.encode(sixteen)
        #expect(Array(bytes.prefix(3)) == [0xde, 0x00, 0x10])
        #expect(try decoder.decode([String: Int].self, from: bytes) == sixteen)
    }

    @Test func structsAreMapsInKeyOrder() throws {
        struct Point: Codable, Equatable {
            var x: Int
            var y: Int
        }
        try roundTrip(Point(x: 1, y: -1), [0x82, 0xa1, 0x78, 0x01, 0xa1, 0x79, 0xff])
    }

    @Test func optionalsAreWrittenAsNil() throws {
        struct Maybe: Codable, Equatable {
            var a: Int?
            var b: String?
        }
        try roundTrip(Maybe(a: nil, b: "x"), [0x82, 0xa1, 0x61, 0xc0, 0xa1, 0x62, 0xa1, 0x78])
        // A missing key reads as nil too, so older clients may leave optional fields out.
        #expect(try decoder.decode(Maybe.self, from: [0x80]) == Maybe(a: nil, b: nil))
    }

    @Test func timestampsInAllThreeLayouts() throws {
        // timestamp 32: whole seconds that fit in 32 bits
        try roundTrip(Date(timeIntervalSince1970: 1), [0xd6, 0xff, 0x00, 0x00, 0x00, 0x01])
        // timestamp 64: nanoseconds in the top 30 bits, seconds in the low 34
        let withNanos = Date(timeIntervalSince1970: 1.5)
        let expected64: UInt64 = (500_000_000 << 34) | 1
        try roundTrip(withNanos, [0xd7, 0xff] + withUnsafeBytes(of: expected64.bigEndian) { Array($0) })
        // timestamp 96: before 1970
        try roundTrip(Date(timeIntervalSince1970: -1), [0xc7, 0x0c, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        // 2^34 seconds needs 96 bits as well
        let far = Date(timeIntervalSince1970: 17_179_869_184)
        #expect(try encoder.encode(far).prefix(3) == [0xc7, 0x0c, 0xff])
        #expect(try decoder.decode(Date.self, from: encoder.encode(far)) == far)
    }

    @Test func timestampKeepsMicrosecondPrecision() throws {
        let now = Date()
        let decoded = try decoder.decode(Date.self, from: encoder.encode(now))
        #expect(abs(decoded.timeIntervalSince(now)) < 0.000_001)
    }
}
