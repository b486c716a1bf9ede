/// Format bytes of the MessagePack specification.
enum Format {
    static let `nil`: UInt8 = 0xc0
    static let `false`: UInt8 = 0xc2
    static let `true`: UInt8 = 0xc3
    static let bin8: UInt8 = 0xc4
    static let bin16: UInt8 = 0xc5
    static let bin32: UInt8 = 0xc6
    static let ext8: UInt8 = 0xc7
    static let ext16: UInt8 = 0xc8
    static let ext32: UInt8 = 0xc9
    static let float32: UInt8 = 0xca
    static let float64: UInt8 = 0xcb
    static let uint8: UInt8 = 0xcc
    static let uint16: UInt8 = 0xcd
    static let uint32: UInt8 = 0xce
    static let uint64: UInt8 = 0xcf
    static let int8: UInt8 = 0xd0
    static let int16: UInt8 = 0xd1
    static let int32: UInt8 = 0xd2
    static let int64: UInt8 = 0xd3
    static let fixext1: UInt8 = 0xd4
    static let fixext2: UInt8 = 0xd5
    static let fixext4: UInt8 = 0xd6
    static let fixext8: UInt8 = 0xd7
    static let fixext16: UInt8 = 0xd8
    static let str8: UInt8 = 0xd9
    static let str16: UInt8 = 0xda
    static let str32: UInt8 = 0xdb
    static let array16: UInt8 = 0xdc
    static let array32: UInt8 = 0xdd
    static let map16: UInt8 = 0xde
    static let map32: UInt8 = 0xdf
    /// The extension type the specification reserves for timestamps.
    static let timestampType: Int8 = -1
}
