public import MessagePack

/// Builds and parses the frames of requests, replies and events. Client and server code go
/// through these functions and never touch raw frames.
public enum Envelope {
    public typealias Frame = [UInt8]

    // MARK: Requests

    /// The frames a DEALER sends for a request: the empty delimiter and the message.
    public static func requestFrames(_ header: RequestHeader, body: [UInt8]) throws -> [Frame] {
        [[], try message(.request, header: header, body: body)]
    }

    /// One message frame: the protocol bytes of `kind`, the header, then the body. One frame,
    /// not three: over CURVE every frame is boxed and sent on its own.
    static func message(_ kind: SousProtocol.Kind, header: some Encodable, body: [UInt8]) throws -> Frame {
        try message(kind, header: header, bodyBytes: body.count) { writer in writer.append(contentsOf: body) }
    }

    /// The same, the body written by `writeBody` straight after the header (`bodyBytes` is the
    /// guess of its size).
    static func message(
        _ kind: SousProtocol.Kind, header: some Encodable, bodyBytes: Int, _ writeBody: (inout MessagePackWriter) throws -> Void
    ) throws -> Frame {
        try MessagePackWriter.bytes(capacity: SousProtocol.prefixBytes + 128 + bodyBytes) { writer in
            writer.append(contentsOf: SousProtocol.prefix(kind))
            try MessagePackEncoder().encode(header, into: &writer)
            try writeBody(&writer)
        }
    }

    /// A message frame's header bytes and body bytes, once its protocol bytes are checked;
    /// or what is wrong with it.
    static func split(_ frame: Frame, expecting kind: SousProtocol.Kind) -> Result<(header: [UInt8], body: [UInt8]), Problem> {
        if let problem = checkPrefix(frame, expecting: kind) { return .failure(problem) }
        let headerEnd: Int
        do {
            headerEnd = try MessagePackDecoder().endOfValue(in: frame, at: SousProtocol.prefixBytes)
        } catch {
            return .failure(Problem(message: "unreadable \(kind) header: \(describe(error))", field: "header"))
        }
        return .success((Array(frame[SousProtocol.prefixBytes..<headerEnd]), Array(frame[headerEnd...])))
    }

    /// What is wrong with a message, and the field to name.
    struct Problem: Error {
        let message: String
        let field: String
    }

    /// What a ROUTER made of one incoming message.
    public enum Incoming: Sendable {
        /// A well-formed request. `routing` is the peer's routing envelope to reply to.
        case request(routing: [Frame], header: RequestHeader, body: [UInt8])
        /// A damaged request that can still be answered, with the error to answer.
        case rejected(routing: [Frame], requestID: String, error: ServiceError)
        /// A message that cannot be answered at all (no routing envelope); log and drop it.
        case dropped(reason: String)
    }

    /// The most of one incoming message worth keeping: routing frames, the delimiter and the one
    /// request frame. A ROUTER reads past this without copying and passes `overflowed` to
    /// ``parseRequest(_:overflowed:)``, so a message of many large frames is refused as it is read.
    public static let requestFramesKept = SousProtocol.maxRoutingFrames + 2
    public static let requestBytesKept = SousProtocol.maxMessageBytes + SousProtocol.maxRoutingFrames * SousProtocol.maxRoutingFrameBytes

    /// Parses a message as a ROUTER received it: routing id frame(s), empty delimiter, then the
    /// request frames. `overflowed`: frames past ``requestFramesKept`` or ``requestBytesKept``
    /// were dropped unread.
    public static func parseRequest(_ frames: [Frame], overflowed: Bool = false) -> Incoming {
        // A closure, not the key path `\.isEmpty`: that one was instantiated at run time on every request.
        guard let delimiter = frames.firstIndex(where: { $0.isEmpty }), delimiter > 0 else {
            return .dropped(reason: "no routing envelope (missing empty delimiter frame)")
        }
        guard delimiter <= SousProtocol.maxRoutingFrames, frames[..<delimiter].allSatisfy({ $0.count <= SousProtocol.maxRoutingFrameBytes }) else {
            return .dropped(reason: "routing envelope over \(SousProtocol.maxRoutingFrames) frames of \(SousProtocol.maxRoutingFrameBytes) bytes")
        }
        let routing = Array(frames[..<delimiter])
        let parts = frames[(delimiter + 1)...]
        func reject(_ message: String, field: String, id: String = "") -> Incoming {
            .rejected(routing: routing, requestID: id, error: .badRequest(message, field: field))
        }
        if overflowed {
            return reject(
                "the request is over \(SousProtocol.maxMessageBytes) bytes or \(requestFramesKept) frames, routing included; "
                    + "a request is one frame after the delimiter, at most \(SousProtocol.maxMessageBytes) bytes", field: "frames")
        }
        let size = parts.reduce(0) { $0 + $1.count }
        guard size <= SousProtocol.maxMessageBytes else {
            return reject("the request is \(size) bytes; at most \(SousProtocol.maxMessageBytes) bytes, all frames together", field: "frames")
        }
        guard let message = parts.first else {
            return reject("the request has no message after the delimiter", field: "protocol")
        }
        if let problem = checkPrefix(message, expecting: .request) {
            return reject(problem.message, field: problem.field)
        }
        guard parts.count == 1 else {
            return reject(
                "a request is one frame after the delimiter (protocol, header and body together), this one has \(parts.count)", field: "frames")
        }
        let headerBytes: [UInt8]
        let body: [UInt8]
        switch split(message, expecting: .request) {
        case .success(let split): (headerBytes, body) = split
        case .failure(let problem): return reject(problem.message, field: problem.field)
        }
        let header: RequestHeader
        do {
            header = try MessagePackDecoder.requests.decode(RequestHeader.self, from: headerBytes)
        } catch {
            let salvaged = (try? MessagePackDecoder().decode(PartialHeader.self, from: headerBytes))?.id ?? ""
            return reject("unreadable request header: \(describe(error))", field: "header", id: validToken(salvaged) ? salvaged : "")
        }
        guard validToken(header.id) else {
            return reject("request id must be 1 to \(SousProtocol.maxTokenBytes) bytes", field: "header.id")
        }
        guard !header.method.isEmpty else {
            return reject("method name is empty", field: "header.method", id: header.id)
        }
        if let session = header.session, session.isEmpty || session.utf8.count > SousProtocol.maxSessionBytes {
            return reject("session token must be 1 to \(SousProtocol.maxSessionBytes) bytes", field: "header.session", id: header.id)
        }
        if let user = header.onBehalfOf, !validToken(user) || user.allSatisfy(\.isWhitespace) {
            return reject(
                "onBehalfOf must be a user id of 1 to \(SousProtocol.maxTokenBytes) bytes, not only spaces", field: "header.onBehalfOf", id: header.id
            )
        }
        if let key = header.idempotencyKey, !validToken(key) {
            return reject("idempotency key must be 1 to \(SousProtocol.maxTokenBytes) bytes", field: "header.idempotencyKey", id: header.id)
        }
        if let address = header.forwardedFor, !ForwardedAddress.isValid(address) {
            return reject("forwardedFor must be an address of 1 to 64 printable ASCII characters", field: "header.forwardedFor", id: header.id)
        }
        return .request(routing: routing, header: header, body: body)
    }

    // MARK: Replies

    /// The frames a ROUTER sends back: the routing envelope, the delimiter, the message.
    public static func replyFrames(routing: [Frame], header: ReplyHeader, body: [UInt8]) throws -> [Frame] {
        routing + [[], try message(.reply, header: header, body: body)]
    }

    /// The frames of an error reply; never fails, so a server can always answer.
    public static func errorReplyFrames(routing: [Frame], requestID: String, error: ServiceError) -> [Frame] {
        let encoder = MessagePackEncoder()
        let header = (try? encoder.encode(ReplyHeader(id: requestID, status: .error))) ?? []
        let body = (try? encoder.encode(error)) ?? []
        return routing + [[], SousProtocol.prefix(.reply) + header + body]
    }

    /// A reply as a DEALER receives it.
    public struct Reply: Sendable {
        public let header: ReplyHeader
        public let body: [UInt8]

        /// The decoded body, or the ServiceError the server sent.
        public func decode<T: Decodable>(_ type: T.Type) throws(ServiceError) -> T {
            let decoder = MessagePackDecoder()
            switch header.status {
            case .ok:
                do {
                    return try decoder.decode(T.self, from: body)
                } catch {
                    throw ServiceError(.internal, "the reply body could not be read: \(describe(error))")
                }
            case .error:
                guard let error = try? decoder.decode(ServiceError.self, from: body) else {
                    throw ServiceError(.internal, "the error reply could not be read")
                }
                throw error
            }
        }
    }

    /// Parses the frames a DEALER received: the delimiter and the message.
    public static func parseReply(_ frames: [Frame]) throws(ServiceError) -> Reply {
        guard frames.count == 2, frames[0].isEmpty else {
            throw ServiceError(
                .internal, "a reply is 2 frames (the empty delimiter, then protocol, header and body in one), this one has \(frames.count)")
        }
        let parts: (header: [UInt8], body: [UInt8])
        switch split(frames[1], expecting: .reply) {
        case .success(let split): parts = split
        case .failure(let problem): throw ServiceError(.internal, problem.message)
        }
        do {
            return Reply(header: try MessagePackDecoder().decode(ReplyHeader.self, from: parts.header), body: parts.body)
        } catch {
            throw ServiceError(.internal, "unreadable reply header: \(describe(error))")
        }
    }

    // MARK: Events

    /// The frames a PUB socket sends: the topic (for subscription prefix matching), the message.
    /// The body is encoded straight after the header, into the one frame (an event is small).
    public static func eventFrames(_ header: EventHeader, body: some Encodable) throws -> [Frame] {
        let message = try message(.event, header: header, bodyBytes: 128) { writer in try MessagePackEncoder().encode(body, into: &writer) }
        return [Array(header.topic.utf8), message]
    }

    public struct Event: Sendable {
        public let header: EventHeader
        public let body: [UInt8]

        public func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try MessagePackDecoder().decode(T.self, from: body)
        }
    }

    /// Parses the frames a SUB socket received.
    public static func parseEvent(_ frames: [Frame]) throws(ServiceError) -> Event {
        guard frames.count == 2 else {
            throw .badRequest(
                "an event is 2 frames (the topic, then protocol, header and body in one), this one has \(frames.count)", field: "frames")
        }
        let parts: (header: [UInt8], body: [UInt8])
        switch split(frames[1], expecting: .event) {
        case .success(let split): parts = split
        case .failure(let problem): throw .badRequest(problem.message, field: problem.field)
        }
        do {
            let header = try MessagePackDecoder().decode(EventHeader.self, from: parts.header)
            guard Array(header.topic.utf8) == frames[0] else {
                throw ServiceError.badRequest("event header topic differs from the topic frame", field: "header.topic")
            }
            return Event(header: header, body: parts.body)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .badRequest("unreadable event header: \(describe(error))", field: "header")
        }
    }

    // MARK: Helpers

    /// What is wrong with a message's first six bytes ("SOUS", version, kind), if anything.
    static func checkPrefix(_ frame: Frame, expecting kind: SousProtocol.Kind) -> Problem? {
        guard frame.count >= SousProtocol.prefixBytes, frame[0..<4].elementsEqual(SousProtocol.signature) else {
            return Problem(message: "not a Sous message: a message starts with \"SOUS\", a version and a kind (6 bytes)", field: "protocol")
        }
        guard frame[4] == SousProtocol.version else {
            return Problem(message: "unsupported protocol version \(frame[4]); this peer speaks version \(SousProtocol.version)", field: "version")
        }
        guard frame[5] == kind.rawValue else {
            return Problem(message: "expected message kind \(kind.rawValue) (\(kind)), got \(frame[5])", field: "kind")
        }
        return nil
    }

    static func validToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= SousProtocol.maxTokenBytes
    }

    private struct PartialHeader: Decodable {
        var id: String?
    }
}

/// One line describing a decoding failure, with the field it happened at.
public func describe(_ error: any Error) -> String {
    guard let decodingError = error as? DecodingError else { return "\(error)" }
    switch decodingError {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
        return context.debugDescription
    case .keyNotFound(let key, _):
        return "missing field \"\(key.stringValue)\""
    @unknown default:
        return "\(decodingError)"
    }
}

extension ServiceError {
    /// The badRequest a server answers when a request body does not decode, naming the field.
    public init(decoding error: any Error) {
        guard let decodingError = error as? DecodingError else {
            self = .badRequest("unreadable body: \(error)", field: "body")
            return
        }
        var path: [any CodingKey]
        switch decodingError {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            path = []
        }
        let field = path.isEmpty ? "body" : path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        self = .badRequest("invalid \(field): \(describe(decodingError))", field: field)
    }
}

extension MessagePackDecoder {
    /// How a service reads requests: no text may hold the NUL character (PROTOCOL.md, "Types").
    public static let requests: MessagePackDecoder = {
        var decoder = MessagePackDecoder()
        decoder.rejectsNUL = true
        return decoder
    }()
}
