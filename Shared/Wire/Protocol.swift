public import MessagePack

/// Everything that fixes the Sous wire protocol, in one place. `docs/PROTOCOL.md` mirrors it.
///
/// A request, as a DEALER or REQ client sends it (a ROUTER server sees the peer's routing id
/// frames in front of it):
///
///     frame 0  empty delimiter
///     frame 1  the message: "SOUS", version byte, kind byte (1 request), then the header
///              (a MessagePack map, RequestHeader), then the body (one MessagePack value, the
///              method's request type), back to back
///
/// A reply has the same layout with kind 2, a ReplyHeader, and either the method's reply type
/// (status "ok") or a ServiceError (status "error") as body. An event on a PUB socket is
/// `topic, message (kind 3, EventHeader, body)`. Version 2 sent the three parts of a message as
/// three frames; over CURVE each frame is boxed and sent on its own, which cost a call more
/// than anything else the three frames did.
/// The version every Sous executable reports (`health`, `--version`).
public enum SousVersion {
    public static let current = "0.1.0"
}

public enum SousProtocol {
    /// The four ASCII bytes every message starts with.
    public static let signature: [UInt8] = Array("SOUS".utf8)
    /// The protocol version this build speaks.
    public static let version: UInt8 = 3
    /// Bytes before a message's header: the signature, the version, the kind.
    public static let prefixBytes = 6
    /// Largest message a service accepts, all frames together. A single larger frame makes
    /// libzmq disconnect the peer (MAXMSGSIZE); a larger message of smaller frames is refused.
    public static let maxMessageBytes = 8 * 1024 * 1024
    /// At most this many routing frames (the ROUTER's identity plus any proxies' envelopes)
    /// before the delimiter, each at most ``maxRoutingFrameBytes``: a reply echoes them, so
    /// they are bounded apart from the message.
    public static let maxRoutingFrames = 4
    public static let maxRoutingFrameBytes = 255
    /// Longest request id and idempotency key accepted.
    public static let maxTokenBytes = 128
    /// Longest session token accepted (a token is about 150 bytes).
    public static let maxSessionBytes = 512

    public enum Kind: UInt8, Sendable {
        case request = 1
        case reply = 2
        case event = 3
    }

    /// The first six bytes of a message of `kind`.
    public static func prefix(_ kind: Kind) -> [UInt8] {
        switch kind {
        case .request: requestPrefix
        case .reply: replyPrefix
        case .event: eventPrefix
        }
    }

    private static let requestPrefix = signature + [version, Kind.request.rawValue]
    private static let replyPrefix = signature + [version, Kind.reply.rawValue]
    private static let eventPrefix = signature + [version, Kind.event.rawValue]

    /// The method every service answers with its ``HealthReport``.
    public static let healthMethod = "health"
}

/// Reply status values carried in ``ReplyHeader/status``.
@MessagePackCodable
public enum ReplyStatus: String, Codable, Sendable, CaseIterable {
    case ok
    case error
}
