import MessagePack

/// A method's reply encoded once, to be kept and sent as it is: a read that keeps its answers
/// (a grocery list, a week) keeps them encoded, and the server sends the bytes without
/// encoding the value again on every read (``RPCServer/register(_:useEncoded:)``).
///
/// Made only from a value of the reply's type, so the bytes are always what the server would
/// have encoded.
public struct EncodedReply<Response: Codable & Sendable>: Sendable {
    public let bytes: [UInt8]

    public init(_ response: Response) throws {
        bytes = try MessagePackEncoder().encode(response)
    }

    /// The reply as a value again (tests, and reads that need the value).
    public func decoded() throws -> Response {
        try MessagePackDecoder().decode(Response.self, from: bytes)
    }
}
