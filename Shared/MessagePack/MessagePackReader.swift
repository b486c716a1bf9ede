/// Reads MessagePack values from bytes without trusting them: every length a value claims is
/// compared with the bytes that remain before anything is read or allocated.
struct MessagePackReader {
    enum Header {
        case unsigned(UInt64)
        case signed(Int64)
        case `nil`
        case bool(Bool)
        case float32(Float)
        case float64(Double)
        case string(Range<Int>)
        case binary(Range<Int>)
        case array(count: Int)
        case map(count: Int)
        case ext(type: Int8, payload: Range<Int>)

        var kindDescription: String {
            switch self {
            case .unsigned, .signed: "an integer"
            case .nil: "nil"
            case .bool: "a boolean"
            case .float32, .float64: "a float"
            case .string: "a string"
            case .binary: "binary data"
            case .array: "an array"
            case .map: "a map"
            case .ext(let type, _): type == Format.timestampType ? "a timestamp" : "an extension value"
            }
        }
    }

    let bytes: [UInt8]
    let maxDepth: Int
    /// Whether a string holding NUL is an error (``MessagePackDecoder/rejectsNUL``).
    var rejectsNUL = false

    @inline(__always)
    func require(_ count: Int, at offset: Int) throws(MessagePackError) {
        let remaining = bytes.count - offset
        if count > remaining || count < 0 {
            throw .truncated(offset: offset, needed: count, remaining: max(remaining, 0))
        }
    }

    @inline(__always)
    func integer<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type, at offset: Int) throws(MessagePackError) -> T {
        let size = MemoryLayout<T>.size
        try require(size, at: offset)
        var value: T = 0
        for index in offset..<(offset + size) {
            value = value << 8 | T(bytes[index])
        }
        return value
    }

    /// A length field claims `count` bytes of payload starting at `offset`.
    @inline(__always)
    func payload(_ count: Int, at offset: Int) throws(MessagePackError) -> Range<Int> {
        try require(count, at: offset)
        return offset..<(offset + count)
    }

    /// Reads the header of the value at `offset`. For arrays and maps, `next` is where their
    /// first element starts; for everything else it is the end of the value.
    func header(at offset: Int) throws(MessagePackError) -> (header: Header, next: Int) {
        try require(1, at: offset)
        let byte = bytes[offset]
        let body = offset + 1
        switch byte {
        case 0x00...0x7f: return (.unsigned(UInt64(byte)), body)
        case 0x80...0x8f: return try collection(.map(count: Int(byte & 0x0f)), at: body)
        case 0x90...0x9f: return try collection(.array(count: Int(byte & 0x0f)), at: body)
        case 0xa0...0xbf:
            let range = try payload(Int(byte & 0x1f), at: body)
            return (.string(range), range.upperBound)
        case 0xe0...0xff: return (.signed(Int64(Int8(bitPattern: byte))), body)
        case Format.nil: return (.nil, body)
        case Format.false: return (.bool(false), body)
        case Format.true: return (.bool(true), body)
        case Format.bin8, Format.bin16, Format.bin32:
            let (count, start) = try length(format: byte, sizes: (Format.bin8, Format.bin16), at: body)
            let range = try payload(count, at: start)
            return (.binary(range), range.upperBound)
        case Format.str8, Format.str16, Format.str32:
            let (count, start) = try length(format: byte, sizes: (Format.str8, Format.str16), at: body)
            let range = try payload(count, at: start)
            return (.string(range), range.upperBound)
        case Format.ext8, Format.ext16, Format.ext32:
            let (count, start) = try length(format: byte, sizes: (Format.ext8, Format.ext16), at: body)
            try require(1, at: start)
            let type = Int8(bitPattern: bytes[start])
            let range = try payload(count, at: start + 1)
            return (.ext(type: type, payload: range), range.upperBound)
        case Format.fixext1, Format.fixext2, Format.fixext4, Format.fixext8, Format.fixext16:
            let count = 1 << Int(byte - Format.fixext1)
            try require(1, at: body)
            let type = Int8(bitPattern: bytes[body])
            let range = try payload(count, at: body + 1)
            return (.ext(type: type, payload: range), range.upperBound)
        case Format.float32:
            return (.float32(Float(bitPattern: try integer(UInt32.self, at: body))), body + 4)
        case Format.float64:
            return (.float64(Double(bitPattern: try integer(UInt64.self, at: body))), body + 8)
        case Format.uint8: return (.unsigned(UInt64(try integer(UInt8.self, at: body))), body + 1)
        case Format.uint16: return (.unsigned(UInt64(try integer(UInt16.self, at: body))), body + 2)
        case Format.uint32: return (.unsigned(UInt64(try integer(UInt32.self, at: body))), body + 4)
        case Format.uint64: return (.unsigned(try integer(UInt64.self, at: body)), body + 8)
        case Format.int8: return (.signed(Int64(Int8(bitPattern: try integer(UInt8.self, at: body)))), body + 1)
        case Format.int16: return (.signed(Int64(Int16(bitPattern: try integer(UInt16.self, at: body)))), body + 2)
        case Format.int32: return (.signed(Int64(Int32(bitPattern: try integer(UInt32.self, at: body)))), body + 4)
        case Format.int64: return (.signed(Int64(bitPattern: try integer(UInt64.self, at: body))), body + 8)
        case Format.array16: return try collection(.array(count: Int(try integer(UInt16.self, at: body))), at: body + 2)
        case Format.array32: return try collection(.array(count: Int(try integer(UInt32.self, at: body))), at: body + 4)
        case Format.map16: return try collection(.map(count: Int(try integer(UInt16.self, at: body))), at: body + 2)
        case Format.map32: return try collection(.map(count: Int(try integer(UInt32.self, at: body))), at: body + 4)
        default: throw .invalidFormat(offset: offset, byte: byte)
        }
    }

    /// Every element takes at least one byte, so a count larger than what remains is a lie
    /// caught before anyone reserves memory for it.
    private func collection(_ header: Header, at start: Int) throws(MessagePackError) -> (header: Header, next: Int) {
        let minimumBytes: Int
        switch header {
        case .array(let count): minimumBytes = count
        case .map(let count): minimumBytes = count * 2
        default: minimumBytes = 0
        }
        try require(minimumBytes, at: start)
        return (header, start)
    }

    private func length(format: UInt8, sizes: (UInt8, UInt8), at offset: Int) throws(MessagePackError) -> (count: Int, start: Int) {
        switch format {
        case sizes.0: (Int(try integer(UInt8.self, at: offset)), offset + 1)
        case sizes.1: (Int(try integer(UInt16.self, at: offset)), offset + 2)
        default: (Int(try integer(UInt32.self, at: offset)), offset + 4)
        }
    }

    /// Returns the offset just past the value at `offset`, checking its whole structure.
    func skip(at offset: Int, depth: Int) throws(MessagePackError) -> Int {
        let (header, next) = try self.header(at: offset)
        switch header {
        case .array(let count):
            if depth >= maxDepth { throw .nestingTooDeep(limit: maxDepth) }
            var position = next
            for _ in 0..<count { position = try skip(at: position, depth: depth + 1) }
            return position
        case .map(let count):
            if depth >= maxDepth { throw .nestingTooDeep(limit: maxDepth) }
            var position = next
            for _ in 0..<(count * 2) { position = try skip(at: position, depth: depth + 1) }
            return position
        default:
            return next
        }
    }

    func string(_ range: Range<Int>) throws(MessagePackError) -> String {
        guard let string = String(validating: bytes[range], as: UTF8.self) else {
            throw .invalidUTF8(offset: range.lowerBound)
        }
        if rejectsNUL, bytes[range].contains(0) { throw .nulInString(offset: range.lowerBound) }
        return string
    }

    /// Decodes the timestamp extension's three layouts into seconds and nanoseconds, refusing
    /// an instant outside `Format.timestampSeconds`.
    func timestamp(_ payload: Range<Int>) throws(MessagePackError) -> (seconds: Int64, nanoseconds: UInt32) {
        let start = payload.lowerBound
        let seconds: Int64
        let nanoseconds: UInt32
        switch payload.count {
        case 4:
            (seconds, nanoseconds) = (Int64(try integer(UInt32.self, at: start)), 0)
        case 8:
            let packed = try integer(UInt64.self, at: start)
            (seconds, nanoseconds) = (Int64(packed & 0x3_ffff_ffff), UInt32(packed >> 34))
        case 12:
            nanoseconds = try integer(UInt32.self, at: start)
            seconds = Int64(bitPattern: try integer(UInt64.self, at: start + 4))
        default:
            throw .invalidTimestamp(offset: start)
        }
        guard nanoseconds < 1_000_000_000 else { throw .invalidTimestamp(offset: start) }
        guard Format.timestampSeconds.contains(seconds) else { throw .timestampOutOfRange(offset: start) }
        return (seconds, nanoseconds)
    }
}
