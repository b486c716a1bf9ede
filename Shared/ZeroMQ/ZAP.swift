import Foundation
import Synchronization

/// A connection attempt as the ZAP handler sees it (RFC 27, ZMTP authentication protocol).
public struct ZAPRequest: Sendable {
    /// The server socket's ZAP domain (``ZMQSocket/setZAPDomain(_:)``).
    public let domain: String
    /// The peer's IP address.
    public let address: String
    /// `NULL`, `PLAIN` or `CURVE`.
    public let mechanism: String
    /// For CURVE, the client's long-term public key in Z85.
    public let curveKey: String?
}

/// What the ZAP handler answers for a connection.
public enum ZAPDecision: Sendable, Equatable {
    /// Accept; every message from the connection carries `userID` as its `User-Id` property.
    case allow(userID: String)
    /// Refuse the handshake: the peer gets no connection.
    case deny(reason: String)
}

/// The ZAP handler of a context: the one place that decides which peers may complete a secure
/// handshake with any server socket of the context. Each server socket names a ZAP domain; the
/// rules of that domain decide. A connection to a domain without rules is refused.
///
/// libzmq asks it over `inproc://zeromq.zap.01` during every CURVE handshake (not over
/// `inproc`, which has no handshake). Its thread lives as long as the context.
public final class ZAPHandler: Sendable {
    public typealias Rules = @Sendable (ZAPRequest) -> ZAPDecision

    private let domains = Mutex<[String: Rules]>([:])
    private static let handlers = Mutex<[ObjectIdentifier: ZAPHandler]>([:])

    /// The handler of `context`, started on first use.
    public static func handler(for context: ZMQContext) throws(ZMQError) -> ZAPHandler {
        try handlers.withLock { handlers throws(ZMQError) -> ZAPHandler in
            if let existing = handlers[ObjectIdentifier(context)] { return existing }
            let handler = ZAPHandler()
            // It lives as long as the context, so no test's socket check counts it.
            let socket = try context.socket(.rep, ledger: nil)
            try socket.setLinger(milliseconds: 0)
            try socket.bind("inproc://zeromq.zap.01")
            let box = SocketBox(socket: socket)
            let thread = Thread { handler.serve(box.socket) }
            thread.name = "sous-zap"
            thread.start()
            handlers[ObjectIdentifier(context)] = handler
            return handler
        }
    }

    /// Sets the rules of `domain`, replacing any before.
    public func setRules(for domain: String, _ rules: @escaping Rules) {
        domains.withLock { $0[domain] = rules }
    }

    public func removeRules(for domain: String) {
        domains.withLock { $0[domain] = nil }
    }

    private func serve(_ socket: ZMQSocket) {
        defer { socket.close() }
        while true {
            let frames: [ZMQFrame]
            do {
                frames = try socket.receiveMultipart()
            } catch {
                if error.isTerminated { return }
                continue
            }
            let reply = answer(frames)
            do {
                _ = try socket.send(multipart: reply)
            } catch {
                if error.isTerminated { return }
            }
        }
    }

    /// The reply frames for one ZAP request (RFC 27): version, request id, status code, status
    /// text, user id, metadata.
    func answer(_ frames: [ZMQFrame]) -> [ZMQFrame] {
        guard frames.count >= 6, frames[0] == Array("1.0".utf8) else {
            let id = frames.count > 1 ? frames[1] : []
            return [Array("1.0".utf8), id, Array("500".utf8), Array("malformed ZAP request".utf8), [], []]
        }
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        let curveKey = mechanism == "CURVE" && frames.count > 6 && frames[6].count == 32 ? Z85.encode(frames[6]) : nil
        let request = ZAPRequest(
            domain: String(decoding: frames[2], as: UTF8.self),
            address: String(decoding: frames[3], as: UTF8.self),
            mechanism: mechanism,
            curveKey: curveKey
        )
        let rules = domains.withLock { $0[request.domain] }
        let decision = rules?(request) ?? .deny(reason: "no rules for ZAP domain \"\(request.domain)\"")
        switch decision {
        case .allow(let userID):
            return [Array("1.0".utf8), frames[1], Array("200".utf8), Array("OK".utf8), Array(userID.utf8), []]
        case .deny(let reason):
            return [Array("1.0".utf8), frames[1], Array("400".utf8), Array(reason.utf8), [], []]
        }
    }
}

/// Moves a socket to the thread that will own it.
private struct SocketBox: @unchecked Sendable {
    let socket: ZMQSocket
}
