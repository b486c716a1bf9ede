public import SousRuntime

/// The outbox's `mail` channel: each message's payload is a ``MailMessage``, sent through the
/// relay. A refusal (a 5xx, an address the relay will not take) is final; anything else is
/// tried again.
public struct MailTransport: OutboxTransport {
    public static let channel = "mail"
    public let client: SMTPClient

    public init(settings: MailSettings) {
        client = SMTPClient(settings: settings)
    }

    public func deliver(_ item: Outbox.Item) async throws(DeliveryFailure) {
        let message: MailMessage
        do { message = try item.decoded(MailMessage.self) } catch {
            throw DeliveryFailure(permanent: true, reason: "the queued mail cannot be read: \(error)")
        }
        do throws(MailError) {
            try await client.send(message, date: item.createdAt)
        } catch {
            throw DeliveryFailure(permanent: error.isPermanent, reason: error.description)
        }
    }
}
