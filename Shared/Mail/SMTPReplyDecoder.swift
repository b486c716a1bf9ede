import NIOCore

/// One SMTP reply: its code and its lines' text (`250-…` lines continue it, `250 …` ends it).
struct SMTPReply: Sendable, Equatable {
    let code: Int
    let lines: [String]

    /// The extensions an EHLO reply names, upper-cased (its first line is the greeting).
    var capabilities: [String] { lines.dropFirst().map { $0.uppercased() } }
}

/// Frames the relay's bytes into replies. A line longer than 4 KB or a reply of more than
/// 100 lines is a relay Sous does not talk to.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply
    static let maxLine = 4096
    static let maxLines = 100

    private var pending: [String] = []
    private var pendingCode: Int?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maxLine { throw SMTPFramingError("a reply line longer than \(Self.maxLine) bytes") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard var line = buffer.readBytes(length: length + 1) else { return .needMoreData }
        line.removeLast()
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard line.count >= 3, let code = Int(String(decoding: line.prefix(3), as: UTF8.self)), (200...599).contains(code) else {
            throw SMTPFramingError("a reply line that does not start with a code: \(String(decoding: line.prefix(60), as: UTF8.self))")
        }
        if let pendingCode, pendingCode != code { throw SMTPFramingError("a reply whose lines have different codes") }
        let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
        pending.append(String(decoding: line.dropFirst(4), as: UTF8.self))
        guard pending.count <= Self.maxLines else { throw SMTPFramingError("a reply of more than \(Self.maxLines) lines") }
        if separator == UInt8(ascii: "-") {
            pendingCode = code
        } else {
            context.fireChannelRead(wrapInboundOut(SMTPReply(code: code, lines: pending)))
            pending = []
            pendingCode = nil
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

struct SMTPFramingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
