public import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SousClient
import Synchronization

/// Sends one mail per connection through the configured relay (RFC 5321): EHLO, STARTTLS
/// when asked for (and required then), AUTH PLAIN or LOGIN when credentials are set, MAIL,
/// RCPT, DATA, QUIT. Every reply is awaited at most ``MailSettings/commandTimeout``; a relay
/// that stalls ends the attempt, never the caller.
public struct SMTPClient: Sendable {
    public let settings: MailSettings

    public init(settings: MailSettings) {
        self.settings = settings
    }

    public func send(_ message: MailMessage, date: Date = Date()) async throws(MailError) {
        let to: String
        do { to = try MailAddress.checked(message.to) } catch { throw .refused(code: 0, reply: "\(error)") }
        let tls: NIOSSLContext?
        do { tls = settings.security == .none ? nil : try Self.context(settings) } catch {
            throw .tls("cannot set TLS up: \(error)")
        }
        let channel: NIOAsyncChannel<SMTPReply, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(settings.commandTimeout.components.seconds))
                .connect(host: settings.host, port: settings.port) { [settings] channel in
                    channel.eventLoop.makeCompletedFuture {
                        if settings.security == .tls, let tls {
                            try channel.pipeline.syncOperations.addHandler(try Self.tlsHandler(tls, host: settings.host))
                        }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                        return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw .unreachable("cannot connect to \(settings.host):\(settings.port): \(error)")
        }
        try await Conversation(channel: channel, timeout: settings.commandTimeout).run { session throws(MailError) in
            try await send(message, to: to, date: date, tls: tls, in: session)
        }
    }

    private func send(_ message: MailMessage, to: String, date: Date, tls: NIOSSLContext?, in session: Conversation.Session) async throws(MailError) {
        try await session.expect(220, after: nil, stage: "greeting")
        var capabilities = try await session.expect(250, after: "EHLO \(settings.helloName)", stage: "EHLO").capabilities
        if settings.security == .startTLS {
            guard capabilities.contains("STARTTLS") else {
                throw .tls("\(settings.host) does not offer STARTTLS, and smtp:// sends nothing unencrypted (smtp+plain:// would)")
            }
            try await session.expect(220, after: "STARTTLS", stage: "STARTTLS")
            guard let tls else { throw .tls("no TLS context") }
            do { try await session.startTLS(tls, host: settings.host) } catch {
                throw .tls("TLS with \(settings.host) failed: \(error)")
            }
            capabilities = try await session.expect(250, after: "EHLO \(settings.helloName)", stage: "EHLO after STARTTLS").capabilities
        }
        if let username = settings.username {
            let password = settings.password ?? ""
            if capabilities.contains(where: { $0.hasPrefix("AUTH") && $0.contains("PLAIN") }) {
                let token = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
                try await session.expect(235, after: "AUTH PLAIN \(token)", stage: "AUTH")
            } else {
                try await session.expect(334, after: "AUTH LOGIN", stage: "AUTH")
                try await session.expect(334, after: Data(username.utf8).base64EncodedString(), stage: "AUTH")
                try await session.expect(235, after: Data(password.utf8).base64EncodedString(), stage: "AUTH")
            }
        }
        let international = !(settings.sender.address + to).utf8.allSatisfy { $0 < 0x80 }
        if international && !capabilities.contains("SMTPUTF8") {
            throw .refused(code: 0, reply: "\(settings.host) cannot take an address that is not ASCII (no SMTPUTF8)")
        }
        try await session.expect(250, after: "MAIL FROM:<\(settings.sender.address)>\(international ? " SMTPUTF8" : "")", stage: "MAIL FROM")
        try await session.expect(250, 251, after: "RCPT TO:<\(to)>", stage: "RCPT TO")
        try await session.expect(354, after: "DATA", stage: "DATA")
        try await session.expect(250, raw: message.rendered(from: settings.sender, date: date), stage: "the message")
        // The mail is the relay's now: a QUIT that goes unanswered changes nothing.
        _ = try? await session.expect(221, after: "QUIT", stage: "QUIT")
    }

    static func context(_ settings: MailSettings) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let file = settings.extraTrustRoots { configuration.additionalTrustRoots = [.file(file)] }
        return try NIOSSLContext(configuration: configuration)
    }

    static func tlsHandler(_ context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        // An address is no name for SNI; the certificate is then checked against no name.
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }
}

/// Why a mail was not sent. A refusal (5xx, a bad address) is for good; the others may pass on
/// a later attempt.
public enum MailError: Error, Sendable, Equatable, CustomStringConvertible {
    case refused(code: Int, reply: String)
    case deferred(code: Int, reply: String)
    case unreachable(String)
    case timedOut(stage: String)
    case tls(String)
    case protocolError(String)

    public var isPermanent: Bool {
        if case .refused = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .refused(let code, let reply): code == 0 ? reply : "the relay refused it (\(code) \(reply))"
        case .deferred(let code, let reply): "the relay asked to try later (\(code) \(reply))"
        case .unreachable(let reason): reason
        case .timedOut(let stage): "the relay did not answer \(stage) in time"
        case .tls(let reason): reason
        case .protocolError(let reason): reason
        }
    }
}

/// One SMTP conversation over an async channel, each reply awaited within the timeout.
struct Conversation: Sendable {
    let channel: NIOAsyncChannel<SMTPReply, ByteBuffer>
    let timeout: Duration

    final class Session: @unchecked Sendable {
        // Used by one task at a time: the conversation's own.
        var replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        let channel: any Channel
        let timeout: Duration

        init(
            replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
            channel: any Channel, timeout: Duration
        ) {
            self.replies = replies
            self.outbound = outbound
            self.channel = channel
            self.timeout = timeout
        }

        @discardableResult
        func expect(_ codes: Int..., after command: String?, stage: String) async throws(MailError) -> SMTPReply {
            try await expect(codes, raw: command.map { Array("\($0)\r\n".utf8) }, stage: stage)
        }

        @discardableResult
        func expect(_ code: Int, raw: [UInt8], stage: String) async throws(MailError) -> SMTPReply {
            try await expect([code], raw: raw, stage: stage)
        }

        private func expect(_ codes: [Int], raw: [UInt8]?, stage: String) async throws(MailError) -> SMTPReply {
            let reply: SMTPReply?
            do {
                if let raw { try await outbound.write(ByteBuffer(bytes: raw)) }
                reply = try await next(stage: stage)
            } catch let error as MailError {
                throw error
            } catch {
                throw .unreachable("the connection broke at \(stage): \(error)")
            }
            guard let reply else { throw .unreachable("the relay closed the connection at \(stage)") }
            guard codes.contains(reply.code) else {
                let text = reply.lines.joined(separator: " ").prefix(300)
                switch reply.code {
                case 400..<500: throw .deferred(code: reply.code, reply: "at \(stage): \(text)")
                case 500..<600: throw .refused(code: reply.code, reply: "at \(stage): \(text)")
                default: throw .protocolError("\(stage) was answered \(reply.code) \(text)")
                }
            }
            return reply
        }

        /// The next reply, or a timeout that closes the connection (which ends the wait).
        private func next(stage: String) async throws -> SMTPReply? {
            // The channel's own event loop closes it at the bound, which ends the wait below.
            let fired = TimerFlag()
            let timer = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.clampedNanoseconds)) { [channel] in
                fired.state.withLock { $0 = true }
                channel.close(promise: nil)
            }
            defer { timer.cancel() }
            do {
                let reply = try await replies.next()
                if reply == nil, fired.state.withLock({ $0 }) { throw MailError.timedOut(stage: stage) }
                return reply
            } catch let error as MailError {
                throw error
            } catch {
                if fired.state.withLock({ $0 }) { throw MailError.timedOut(stage: stage) }
                throw error
            }
        }

        /// Puts TLS in front of the reply decoder: what the relay sends from here on is decrypted
        /// before it is framed, and what is written is encrypted.
        func startTLS(_ context: NIOSSLContext, host: String) async throws {
            let channel = self.channel
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(try SMTPClient.tlsHandler(context, host: host), position: .first)
            }.get()
        }
    }

    func run(_ body: (Session) async throws(MailError) -> Void) async throws(MailError) {
        do {
            try await channel.executeThenClose { inbound, outbound in
                let session = Session(replies: inbound.makeAsyncIterator(), outbound: outbound, channel: channel.channel, timeout: timeout)
                try await body(session)
            }
        } catch let error as MailError {
            throw error
        } catch {
            throw .unreachable("the connection failed: \(error)")
        }
    }
}

private final class TimerFlag: Sendable {
    let state = Mutex(false)
}
