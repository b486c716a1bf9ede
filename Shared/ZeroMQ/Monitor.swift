internal import CZeroMQ

/// A refused handshake, as a socket monitor reports it (``ZMQSocket/monitorHandshakeFailures(on:)``).
public struct HandshakeFailure: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The peer does not speak this socket's mechanism (a plaintext client to a CURVE server)
        /// or broke the protocol.
        case protocolError
        /// The ZAP handler refused the peer.
        case refused
        case other
    }

    public let kind: Kind
    /// The local endpoint it happened on (libzmq does not name the peer here).
    public let endpoint: String

    /// Reads a monitor message: frame 0 holds the event (uint16) and a value (uint32), frame 1
    /// the endpoint. Nil for anything else.
    public static func parse(_ frames: [ZMQFrame]) -> HandshakeFailure? {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let event = Int32(UInt16(frames[0][0]) | UInt16(frames[0][1]) << 8)
        let kind: Kind =
            switch event {
            case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: .protocolError
            case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: .refused
            case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: .other
            default: .other
            }
        return HandshakeFailure(kind: kind, endpoint: String(decoding: frames[1], as: UTF8.self))
    }
}
