import Crypto
import Foundation
import SousCrypto
import SousFetch
import SousMail
import SousRuntime
import SousSchema
import SousWire

/// Checks a new channel as it comes in, each refusal naming the field: an address of the
/// kind's form, a URL that is https (or http to a range the operator allows) and not a
/// literal private address, push keys that are a P-256 point and a 16-byte secret.
struct ChannelValidation {
    let settings: ChannelSettings

    func channel(_ request: ChannelAdd, user: String, id: String) throws -> StoredChannel {
        let label = try Self.label(request.label)
        func stored(_ address: String, p256dh: String? = nil, auth: String? = nil, secret: String? = nil) -> StoredChannel {
            StoredChannel(
                channel: ReminderChannel(
                    id: id, kind: request.kind, address: address, label: label, createdAt: Date(), enabled: true, disabledReason: nil),
                user: user, p256dh: p256dh, auth: auth, secret: secret)
        }
        switch request.kind {
        case .email:
            guard settings.mail != nil else {
                throw ServiceError.badRequest("this server has no mail relay configured (the operator sets SOUS_SMTP_URL)", field: "kind")
            }
            let address = try Self.required(request.address, "an email channel needs an address")
            do throws(MailAddressError) {
                return stored(try MailAddress.checked(address))
            } catch {
                throw ServiceError.badRequest("address: \(error)", field: "address")
            }
        case .ntfy:
            var address = try Self.required(request.address, "an ntfy channel needs a topic or a topic URL")
            if !address.contains("/") { address = "https://ntfy.sh/" + address }
            let url = try checkedURL(address, field: "address")
            let topic = url.path(percentEncoded: true).split(separator: "/").last.map(String.init) ?? ""
            guard (1...64).contains(topic.count), topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw ServiceError.badRequest(
                    "an ntfy topic is 1 to 64 letters, digits, - or _ (the last part of the URL), not \"\(topic.prefix(80))\"", field: "address")
            }
            return stored(url.absoluteString)
        case .webhook:
            let address = try Self.required(request.address, "a webhook channel needs an https URL")
            let url = try checkedURL(address, field: "address")
            return stored(url.absoluteString, secret: Base64URL.encode(Sodium.randomBytes(32)))
        case .push:
            guard let subscription = request.subscription else {
                throw ServiceError.badRequest("a push channel needs the browser's subscription", field: "subscription")
            }
            let url = try checkedURL(subscription.endpoint, field: "subscription.endpoint")
            guard let key = Base64URL.decode(subscription.p256dh),
                (try? WebPush.encrypt([], p256dh: key, auth: [UInt8](repeating: 0, count: 16))) != nil
            else {
                throw ServiceError.badRequest("p256dh must be the browser's P-256 public key (65 bytes, base64url)", field: "subscription.p256dh")
            }
            guard let auth = Base64URL.decode(subscription.auth), auth.count == 16 else {
                throw ServiceError.badRequest("auth must be the browser's 16-byte secret, base64url", field: "subscription.auth")
            }
            return stored(url.absoluteString, p256dh: subscription.p256dh, auth: subscription.auth)
        }
    }

    /// An http(s) URL of at most 2 000 characters: https, or http to a range the operator
    /// allows; a literal address in a reserved range only when allowed. Names that resolve to
    /// one are refused at delivery (the address is checked on every connection).
    func checkedURL(_ text: String, field: String) throws -> URL {
        guard text.utf8.count <= 2000 else { throw ServiceError.badRequest("the URL is longer than 2000 characters", field: field) }
        let url: URL
        do throws(FetchError) { url = try WebFetcher.checkedURL(text) } catch {
            throw ServiceError.badRequest("\(error)", field: field)
        }
        let host = url.host(percentEncoded: false) ?? ""
        let literal = NetworkAddress(host)
        let allowed = literal.map(settings.fetch.allows) ?? false
        if let literal, let range = literal.reservedRange, !allowed {
            throw ServiceError.badRequest("\(host) is a \(range.name) address: channels go to public addresses only", field: field)
        }
        guard url.scheme?.lowercased() == "https" || allowed else {
            throw ServiceError.badRequest("the URL must be https (deliveries carry your data)", field: field)
        }
        return url
    }

    static func required(_ text: String?, _ message: String) throws -> String {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { throw ServiceError.badRequest(message, field: "address") }
        return text
    }

    static func label(_ text: String?) throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard text.count <= 60 else { throw ServiceError.badRequest("a label is at most 60 characters", field: "label") }
        guard !text.containsControlCharacter else {
            throw ServiceError.badRequest("a label has no control characters", field: "label")
        }
        return text
    }
}
