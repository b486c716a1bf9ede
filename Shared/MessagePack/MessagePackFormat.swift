/// Format bytes of the MessagePack specification.
@usableFromInline
enum Format {
    @usableFromInline static let `nil`: UInt8 = 0xc0
    @usableFromInline static let `false`: UInt8 = 0xc2
    @usableFromInline static let `true`: UInt8 = 0xc3
    @usableFromInline static let bin8: UInt8 = 0xc4
    @usableFromInline static let bin16: UInt8 = 0xc5
    @usableFromInline static let bin32: UInt8 = 0xc6
    @usableFromInline static let ext8: UInt8 = 0xc7
    @usableFromInline static let ext16: UInt8 = 0xc8
    @usableFromInline static let ext32: UInt8 = 0xc9
    @usableFromInline static let float32: UInt8 = 0xca
    @usableFromInline static let float64: UInt8 = 0xcb
    @usableFromInline static let uint8: UInt8 = 0xcc
    @usableFromInline static let uint16: UInt8 = 0xcd
    @usableFromInline static let uint32: UInt8 = 0xce
    @usableFromInline static let uint64: UInt8 = 0xcf
    @usableFromInline static let int8: UInt8 = 0xd0
    @usableFromInline static let int16: UInt8 = 0xd1
    @usableFromInline static let int32: UInt8 = 0xd2
    @usableFromInline static let int64: UInt8 = 0xd3
    @usableFromInline static let fixext1: UInt8 = 0xd4
    @usableFromInline static let fixext2: UInt8 = 0xd5
    @usableFromInline static let fixext4: UInt8 = 0xd6
    @usableFromInline static let fixext8: UInt8 = 0xd7
    @usableFromInline static let fixext16: UInt8 = 0xd8
    @usableFromInline static let str8: UInt8 = 0xd9
    @usableFromInline static let str16: UInt8 = 0xda
    @usableFromInline static let str32: UInt8 = 0xdb
    @usableFromInline static let array16: UInt8 = 0xdc
    @usableFromInline static let array32: UInt8 = 0xdd
    @usableFromInline static let map16: UInt8 = 0xde
    @usableFromInline static let map32: UInt8 = 0xdf
    /// The extension type the specification reserves for timestamps.
    @usableFromInline static let timestampType: Int8 = -1
    /// The instants a `Date` may hold on the wire: 0001-01-01T00:00:00Z through
    /// 9999-12-31T23:59:59.999999999Z, in seconds since 1970. Within them a `Date` (a `Double`)
    /// converts to whole seconds without trapping and back to the same value; a timestamp outside
    /// them is refused when it is read, so no service ever holds one.
    @usableFromInline static let timestampSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799
}
