/// Appends MessagePack values to a byte buffer, always in the smallest format that holds them
/// (as the specification asks of serializers).
///
/// The buffer is the writer's own memory, not an `Array`: appending to an array checks that it
/// is uniquely referenced and goes through a generic `append(contentsOf:)` for every key and
/// string, a third of encoding a recipe. The writer cannot be copied (so nothing else holds
/// its memory); ``bytes`` hands out a copy of what was written.
public struct MessagePackWriter: ~Copyable, @unchecked Sendable {
    @usableFromInline var start: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// Bytes written so far.
    public var count: Int { written }
    @usableFromInline var written: Int
    /// False while the writer writes into memory it was lent (``init(lending:)``), until it
    /// outgrows it.
    @usableFromInline var ownsMemory: Bool

    @inlinable public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
        written = 0
        ownsMemory = true
    }

    /// The bytes `body` writes, written straight into the storage of the array returned while
    /// they fit `capacity` (then nothing is copied); past it the writer continues in memory of
    /// its own, copied out once. Bytes that fill less than half of `capacity` are copied into an
    /// array of their size: an array keeps all the capacity it was made with, and encoded bytes
    /// are kept (search keys, replies), a 100-byte key would hold the encoder's 4 KB.
    public static func bytes(capacity: Int, _ body: (inout MessagePackWriter) throws -> Void) rethrows -> [UInt8] {
        var larger: [UInt8]?
        let bytes = try [UInt8](unsafeUninitializedCapacity: capacity) { memory, count in
            var writer = MessagePackWriter(lending: memory)
            try body(&writer)
            if writer.isInLentMemory {
                count = writer.count
            } else {
                larger = writer.bytes
            }
        }
        if let larger { return larger }
        guard bytes.count * 2 < capacity else { return bytes }
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { memory, count in count = memory.initialize(fromContentsOf: bytes) }
    }

    /// Writes into `memory` (which must outlive the writer) until it is full, then into memory
    /// of its own holding a copy: ``isInLentMemory`` says which.
    init(lending memory: UnsafeMutableBufferPointer<UInt8>) {
        if let base = memory.baseAddress, memory.count >= 16 {
            start = base
            capacity = memory.count
            ownsMemory = false
        } else {
            capacity = 256
            start = .allocate(capacity: capacity)
            ownsMemory = true
        }
        written = 0
    }

    /// Whether every byte so far went into the memory the writer was lent.
    var isInLentMemory: Bool { !ownsMemory }

    deinit { if ownsMemory { start.deallocate() } }

    /// A copy of the bytes written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: start, count: written)) }

    /// A copy of the bytes written from `offset` on.
    public func bytes(from offset: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: start + offset, count: written - offset))
    }

    /// The bytes written so far, valid only inside `body`.
    @inlinable public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: start, count: written))
    }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always) public mutating func reserve(_ extra: Int) {
        if capacity - written < extra { grow(to: written + extra) }
    }

    @usableFromInline mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStart.initialize(from: start, count: written)
        if ownsMemory { start.deallocate() }
        start = newStart
        capacity = newCapacity
        ownsMemory = true
    }

    @inlinable @inline(__always) public mutating func append(_ byte: UInt8) {
        reserve(1)
        start[written] = byte
        written += 1
    }

    @inlinable @inline(__always) public mutating func append(contentsOf buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress else { return }
        reserve(buffer.count)
        (start + written).update(from: source, count: buffer.count)
        written += buffer.count
    }

    @inlinable public mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    @inlinable public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) { return done }
        reserve(bytes.count)
        for byte in bytes { append(byte) }
    }

    @inlinable public mutating func writeNil() { append(Format.nil) }

    @inlinable public mutating func write(_ value: Bool) { append(value ? Format.true : Format.false) }

    @inlinable public mutating func write(_ value: Int64) {
        if value >= 0 {
            write(UInt64(value))
        } else if value >= -32 {
            append(UInt8(bitPattern: Int8(value)))
        } else if value >= Int64(Int8.min) {
            append(Format.int8)
            append(UInt8(bitPattern: Int8(value)))
        } else if value >= Int64(Int16.min) {
            append(Format.int16)
            appendBigEndian(UInt16(bitPattern: Int16(value)))
        } else if value >= Int64(Int32.min) {
            append(Format.int32)
            appendBigEndian(UInt32(bitPattern: Int32(value)))
        } else {
            append(Format.int64)
            appendBigEndian(UInt64(bitPattern: value))
        }
    }

    @inlinable public mutating func write(_ value: UInt64) {
        if value <= 0x7f {
            append(UInt8(value))
        } else if value <= UInt64(UInt8.max) {
            append(Format.uint8)
            append(UInt8(value))
        } else if value <= UInt64(UInt16.max) {
            append(Format.uint16)
            appendBigEndian(UInt16(value))
        } else if value <= UInt64(UInt32.max) {
            append(Format.uint32)
            appendBigEndian(UInt32(value))
        } else {
            append(Format.uint64)
            appendBigEndian(value)
        }
    }

    @inlinable public mutating func write(_ value: Float) {
        append(Format.float32)
        appendBigEndian(value.bitPattern)
    }

    @inlinable public mutating func write(_ value: Double) {
        append(Format.float64)
        appendBigEndian(value.bitPattern)
    }

    @inlinable public mutating func write(_ value: String) {
        // A native string lends its bytes as it is; only a bridged one is copied first.
        if let written: Void = value.utf8.withContiguousStorageIfAvailable({ writeString($0) }) { return written }
        var value = value
        value.withUTF8 { utf8 in writeString(utf8) }
    }

    /// A string's header and bytes; most strings here are short, one reservation then.
    @inlinable @inline(__always) public mutating func writeString(_ utf8: UnsafeBufferPointer<UInt8>) {
        let count = utf8.count
        guard count <= 31, let source = utf8.baseAddress else {
            writeStringHeader(count: count)
            append(contentsOf: utf8)
            return
        }
        reserve(count + 1)
        start[written] = 0xa0 | UInt8(truncatingIfNeeded: count)
        (start + written + 1).update(from: source, count: count)
        written += count + 1
    }

    @inlinable public mutating func writeStringHeader(count: Int) {
        if count <= 31 {
            append(0xa0 | UInt8(count))
        } else if count <= Int(UInt8.max) {
            append(Format.str8)
            append(UInt8(count))
        } else if count <= Int(UInt16.max) {
            append(Format.str16)
            appendBigEndian(UInt16(count))
        } else {
            append(Format.str32)
            appendBigEndian(UInt32(count))
        }
    }

    @inlinable public mutating func writeBinary(_ value: some Collection<UInt8>) {
        let count = value.count
        if count <= Int(UInt8.max) {
            append(Format.bin8)
            append(UInt8(count))
        } else if count <= Int(UInt16.max) {
            append(Format.bin16)
            appendBigEndian(UInt16(count))
        } else {
            append(Format.bin32)
            appendBigEndian(UInt32(count))
        }
        append(contentsOf: value)
    }

    @inlinable public mutating func writeArrayHeader(count: Int) {
        if count <= 15 {
            append(0x90 | UInt8(count))
        } else if count <= Int(UInt16.max) {
            append(Format.array16)
            appendBigEndian(UInt16(count))
        } else {
            append(Format.array32)
            appendBigEndian(UInt32(count))
        }
    }

    @inlinable public mutating func writeMapHeader(count: Int) {
        if count <= 15 {
            append(0x80 | UInt8(count))
        } else if count <= Int(UInt16.max) {
            append(Format.map16)
            appendBigEndian(UInt16(count))
        } else {
            append(Format.map32)
            appendBigEndian(UInt32(count))
        }
    }

    /// The timestamp extension (type -1) in its smallest form: 32-bit seconds, 64-bit
    /// (30-bit nanoseconds + 34-bit seconds) or 96-bit (32-bit nanoseconds + signed 64-bit seconds).
    @inlinable public mutating func writeTimestamp(seconds: Int64, nanoseconds: UInt32) {
        if seconds >= 0 && seconds >> 34 == 0 {
            if nanoseconds == 0 && seconds <= Int64(UInt32.max) {
                append(Format.fixext4)
                append(UInt8(bitPattern: Format.timestampType))
                appendBigEndian(UInt32(seconds))
            } else {
                append(Format.fixext8)
                append(UInt8(bitPattern: Format.timestampType))
                appendBigEndian(UInt64(nanoseconds) << 34 | UInt64(seconds))
            }
        } else {
            append(Format.ext8)
            append(12)
            append(UInt8(bitPattern: Format.timestampType))
            appendBigEndian(nanoseconds)
            appendBigEndian(UInt64(bitPattern: seconds))
        }
    }

    @inlinable @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        reserve(size)
        UnsafeMutableRawPointer(start + written).storeBytes(of: value.bigEndian, as: T.self)
        written += size
    }
}
