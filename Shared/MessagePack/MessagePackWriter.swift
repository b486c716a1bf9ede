/// Appends MessagePack values to a byte buffer, always in the smallest format that holds them
/// (as the specification asks of serializers).
public struct MessagePackWriter: Sendable {
    public var bytes: [UInt8]

    @inlinable public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable public mutating func writeNil() { bytes.append(Format.nil) }

    @inlinable public mutating func write(_ value: Bool) { bytes.append(value ? Format.true : Format.false) }

    @inlinable public mutating func write(_ value: Int64) {
        if value >= 0 {
            write(UInt64(value))
        } else if value >= -32 {
            bytes.append(UInt8(bitPattern: Int8(value)))
        } else if value >= Int64(Int8.min) {
            bytes.append(Format.int8)
            bytes.append(UInt8(bitPattern: Int8(value)))
        } else if value >= Int64(Int16.min) {
            bytes.append(Format.int16)
            appendBigEndian(UInt16(bitPattern: Int16(value)))
        } else if value >= Int64(Int32.min) {
            bytes.append(Format.int32)
            appendBigEndian(UInt32(bitPattern: Int32(value)))
        } else {
            bytes.append(Format.int64)
            appendBigEndian(UInt64(bitPattern: value))
        }
    }

    @inlinable public mutating func write(_ value: UInt64) {
        if value <= 0x7f {
            bytes.append(UInt8(value))
        } else if value <= UInt64(UInt8.max) {
            bytes.append(Format.uint8)
            bytes.append(UInt8(value))
        } else if value <= UInt64(UInt16.max) {
            bytes.append(Format.uint16)
            appendBigEndian(UInt16(value))
        } else if value <= UInt64(UInt32.max) {
            bytes.append(Format.uint32)
            appendBigEndian(UInt32(value))
        } else {
            bytes.append(Format.uint64)
            appendBigEndian(value)
        }
    }

    @inlinable public mutating func write(_ value: Float) {
        bytes.append(Format.float32)
        appendBigEndian(value.bitPattern)
    }

    @inlinable public mutating func write(_ value: Double) {
        bytes.append(Format.float64)
        appendBigEndian(value.bitPattern)
    }

    @inlinable public mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            writeStringHeader(count: utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    @inlinable public mutating func writeStringHeader(count: Int) {
        if count <= 31 {
            bytes.append(0xa0 | UInt8(count))
        } else if count <= Int(UInt8.max) {
            bytes.append(Format.str8)
            bytes.append(UInt8(count))
        } else if count <= Int(UInt16.max) {
            bytes.append(Format.str16)
            appendBigEndian(UInt16(count))
        } else {
            bytes.append(Format.str32)
            appendBigEndian(UInt32(count))
        }
    }

    @inlinable public mutating func writeBinary(_ value: some Collection<UInt8>) {
        let count = value.count
        if count <= Int(UInt8.max) {
            bytes.append(Format.bin8)
            bytes.append(UInt8(count))
        } else if count <= Int(UInt16.max) {
            bytes.append(Format.bin16)
            appendBigEndian(UInt16(count))
        } else {
            bytes.append(Format.bin32)
            appendBigEndian(UInt32(count))
        }
        bytes.append(contentsOf: value)
    }

    @inlinable public mutating func writeArrayHeader(count: Int) {
        if count <= 15 {
            bytes.append(0x90 | UInt8(count))
        } else if count <= Int(UInt16.max) {
            bytes.append(Format.array16)
            appendBigEndian(UInt16(count))
        } else {
            bytes.append(Format.array32)
            appendBigEndian(UInt32(count))
        }
    }

    @inlinable public mutating func writeMapHeader(count: Int) {
        if count <= 15 {
            bytes.append(0x80 | UInt8(count))
        } else if count <= Int(UInt16.max) {
            bytes.append(Format.map16)
            appendBigEndian(UInt16(count))
        } else {
            bytes.append(Format.map32)
            appendBigEndian(UInt32(count))
        }
    }

    /// The timestamp extension (type -1) in its smallest form: 32-bit seconds, 64-bit
    /// (30-bit nanoseconds + 34-bit seconds) or 96-bit (32-bit nanoseconds + signed 64-bit seconds).
    @inlinable public mutating func writeTimestamp(seconds: Int64, nanoseconds: UInt32) {
        if seconds >= 0 && seconds >> 34 == 0 {
            if nanoseconds == 0 && seconds <= Int64(UInt32.max) {
                bytes.append(Format.fixext4)
                bytes.append(UInt8(bitPattern: Format.timestampType))
                appendBigEndian(UInt32(seconds))
            } else {
                bytes.append(Format.fixext8)
                bytes.append(UInt8(bitPattern: Format.timestampType))
                appendBigEndian(UInt64(nanoseconds) << 34 | UInt64(seconds))
            }
        } else {
            bytes.append(Format.ext8)
            bytes.append(12)
            bytes.append(UInt8(bitPattern: Format.timestampType))
            appendBigEndian(nanoseconds)
            appendBigEndian(UInt64(bitPattern: seconds))
        }
    }

    @inlinable @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
