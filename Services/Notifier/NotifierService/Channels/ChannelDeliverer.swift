import Crypto
public import Foundation
import SousCrypto
public import SousFetch
public import SousMail
import SousRuntime
import SousSchema

/// What delivering to channels needs from the operator: the mail relay (email channels are
/// refused without one), which private ranges may be reached (`SOUS_FETCH_ALLOW`), the web
/// app's address for links, and the VAPID subject push services may write to.
public struct ChannelSettings: Sendable {
    public var mail: MailSettings?
    public var fetch: FetchPolicy
    public var webURL: String?
    /// `mailto:` or `https:` (RFC 8292 §2.1): whom a push service contacts about this server.
    public var vapidSubject: String
    /// Deliveries started at once; one still running after 2 s gives its place back and goes
    /// on among at most ``capacity`` (each holds a connection until ``timeout``).
    public var concurrency: Int
    public var capacity: Int
    /// How long an attempt holds its place among the ``concurrency`` started.
    public var patience: Duration
    /// One attempt's bound: connecting, sending and the answer.
    public var timeout: Duration

    public init(
        mail: MailSettings? = nil, fetch: FetchPolicy = FetchPolicy(), webURL: String? = nil, vapidSubject: String? = nil, concurrency: Int = 256,
        capacity: Int = 4096, patience: Duration = .seconds(2), timeout: Duration = .seconds(15)
    ) {
        self.mail = mail
        self.fetch = fetch
        self.webURL = webURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.vapidSubject = vapidSubject ?? mail.map { "mailto:\($0.sender.address)" } ?? "mailto:postmaster@localhost"
        self.concurrency = max(1, concurrency)
        self.capacity = max(self.concurrency, capacity)
        self.patience = patience
        self.timeout = timeout
    }

    /// `SOUS_SMTP_URL`/`SOUS_MAIL_FROM`, `SOUS_FETCH_ALLOW`, `SOUS_WEB_URL` and `SOUS_VAPID_SUBJECT`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ChannelSettings {
        var fetch = try FetchPolicy.fromEnvironment(environment)
        fetch.timeout = .seconds(15)
        let subject = environment["SOUS_VAPID_SUBJECT"].flatMap { $0.isEmpty ? nil : $0 }
        if let subject, !(subject.hasPrefix("mailto:") || subject.hasPrefix("https:")) {
            throw ConfigurationError(variable: "SOUS_VAPID_SUBJECT", message: "must be a mailto: or https: address, not \"\(subject)\"")
        }
        return ChannelSettings(
            mail: try MailSettings.fromEnvironment(environment), fetch: fetch, webURL: environment["SOUS_WEB_URL"].flatMap { $0.isEmpty ? nil : $0 },
            vapidSubject: subject)
    }
}

/// Delivers the notifier's outbox: a message for one of a user's channels, sent the channel's
/// way. The channel is read at delivery, so one removed meanwhile gets nothing.
///
/// A failure is permanent (the channel is then switched off) when the far end says the
/// address is gone: the relay refused the mailbox, or an HTTP endpoint answered 404 or 410
/// (for push also 400 and 403: the subscription's keys or VAPID key are not the ones it
/// has). Anything else (a timeout, a 5xx, a redirect) is tried again.
final class ChannelDeliverer: OutboxTransport {
    let database: SousDatabase
    let settings: ChannelSettings
    let poster: GuardedPoster
    let mail: SMTPClient?
    let vapid: P256.Signing.PrivateKey

    init(database: SousDatabase, settings: ChannelSettings, vapid: P256.Signing.PrivateKey) {
        self.database = database
        self.settings = settings
        poster = GuardedPoster(policy: settings.fetch)
        mail = settings.mail.map(SMTPClient.init(settings:))
        self.vapid = vapid
    }

    func deliver(_ item: Outbox.Item) async throws(DeliveryFailure) {
        let found: StoredChannel?
        do { found = try database.read { try ChannelStore.channel(item.recipient, $0) } } catch {
            throw DeliveryFailure(permanent: false, reason: "the channel could not be read: \(error)")
        }
        guard let channel = found else { throw DeliveryFailure(permanent: true, reason: "the channel was removed") }
        let message: ChannelMessage
        do { message = try item.decoded(ChannelMessage.self) } catch {
            throw DeliveryFailure(permanent: true, reason: "the queued message cannot be read: \(error)")
        }
        guard channel.channel.enabled || message.event == ChannelEvents.test else {
            throw DeliveryFailure(permanent: true, reason: "the channel is switched off")
        }
        switch channel.channel.kind {
        case .email: try await sendMail(message, to: channel, item: item)
        case .ntfy: try await post(to: channel.channel.address, headers: ntfyHeaders(message), body: Array(message.body.utf8), kind: .ntfy)
        case .webhook: try await sendWebhook(message, to: channel, item: item)
        case .push: try await push(message, to: channel)
        }
    }

    private func sendMail(_ message: ChannelMessage, to channel: StoredChannel, item: Outbox.Item) async throws(DeliveryFailure) {
        guard let mail else { throw DeliveryFailure(permanent: false, reason: "this server has no mail relay configured (SOUS_SMTP_URL)") }
        var text = message.body
        if let url = message.url { text += "\n\n\(url)" }
        text += "\n\nYou get this because you added this address as a reminder channel in Sous (sous reminders channels)."
        let mailed = MailMessage(to: channel.channel.address, subject: message.title, text: text, messageID: "\(item.id)@sous")
        do throws(MailError) {
            try await mail.send(mailed, date: item.createdAt)
        } catch {
            throw DeliveryFailure(permanent: error.isPermanent, reason: error.description)
        }
    }

    private func ntfyHeaders(_ message: ChannelMessage) -> [(String, String)] {
        var headers = [("Title", Self.headerSafe(message.title)), ("Tags", "fork_and_knife"), ("Content-Type", "text/plain; charset=utf-8")]
        if let url = message.url { headers.append(("Click", url)) }
        return headers
    }

    private func sendWebhook(_ message: ChannelMessage, to channel: StoredChannel, item: Outbox.Item) async throws(DeliveryFailure) {
        let body = Array(ChannelMessage.json(message).utf8)
        let timestamp = Int(Date().timeIntervalSince1970)
        let signature = WebhookSignature.sign(body: body, timestamp: timestamp, secret: channel.secret ?? "")
        try await post(
            to: channel.channel.address,
            headers: [
                ("Content-Type", "application/json"), ("Sous-Event", message.event), ("Sous-Delivery", item.id),
                ("Sous-Signature", "t=\(timestamp),v1=\(signature)"),
            ], body: body, kind: .webhook)
    }

    private func push(_ message: ChannelMessage, to channel: StoredChannel) async throws(DeliveryFailure) {
        guard let endpoint = URL(string: channel.channel.address), let p256dh = channel.p256dh.flatMap(Base64URL.decode),
            let auth = channel.auth.flatMap(Base64URL.decode)
        else { throw DeliveryFailure(permanent: true, reason: "the push subscription is incomplete") }
        let body: [UInt8]
        let authorization: String
        do {
            body = try WebPush.encrypt(Array(ChannelMessage.json(message).utf8), p256dh: p256dh, auth: auth)
            authorization = try WebPush.authorization(
                endpoint: endpoint, key: vapid, subject: settings.vapidSubject, expiry: Date().addingTimeInterval(12 * 3600))
        } catch {
            throw DeliveryFailure(permanent: true, reason: "the push could not be encrypted for this subscription: \(error)")
        }
        try await post(
            to: channel.channel.address,
            headers: [
                ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"), ("TTL", "21600"), ("Urgency", "normal"),
                ("Authorization", authorization),
            ], body: body, kind: .push)
    }

    private func post(to address: String, headers: [(String, String)], body: [UInt8], kind: ReminderChannelKind) async throws(DeliveryFailure) {
        let response: PostedResponse
        do throws(FetchError) {
            response = try await poster.post(address, headers: headers, body: body, timeout: settings.timeout)
        } catch {
            switch error {
            case .badAddress, .blockedAddress: throw DeliveryFailure(permanent: true, reason: error.description)
            default: throw DeliveryFailure(permanent: false, reason: error.description)
            }
        }
        switch response.status {
        case 200..<300: return
        case 300..<400:
            throw DeliveryFailure(
                permanent: false,
                reason: "the endpoint redirected (HTTP \(response.status) to \(response.location ?? "nowhere")); redirects are not followed")
        default:
            let gone = [404, 410].contains(response.status) || (kind == .push && [400, 403].contains(response.status))
            let said = String(decoding: response.body.prefix(200), as: UTF8.self).filter { !$0.isNewline }
            throw DeliveryFailure(permanent: gone, reason: "the endpoint answered HTTP \(response.status)" + (said.isEmpty ? "" : ": \(said)"))
        }
    }

    func shutdown() async { await poster.shutdown() }

    /// HTTP header values carry ASCII: anything else becomes "?".
    private static func headerSafe(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F ? Character($0) : "?" })
    }
}

/// The `Sous-Signature` of a webhook delivery: `t=<Unix seconds>,v1=<hex HMAC-SHA256>` over
/// `"<t>.<body>"` with the channel's secret (docs/PROTOCOL.md, "Reminder channels").
public enum WebhookSignature {
    public static func sign(body: [UInt8], timestamp: Int, secret: String) -> String {
        let key = SymmetricKey(data: Array(secret.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(timestamp).".utf8) + body, using: key)
        return mac.map { String(format: "%02x", $0) }.joined()
    }
}

/// The `event` of a ``ChannelMessage``.
public enum ChannelEvents {
    public static let reminder = "reminder"
    public static let test = "test"
    public static let channelDisabled = "channelDisabled"
}

extension ChannelMessage {
    /// The JSON a webhook receives and a push carries (keys sorted, no nulls).
    static func json(_ message: ChannelMessage) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
