import Foundation
import SousRuntime
import SousSchema

/// The outbox messages a batch of decisions calls for: one per sent reminder and enabled
/// channel of its user, keyed by (user, day, channel) so no day's reminder reaches a channel
/// twice, held to the end of the user's quiet hours. Written in the transaction that records
/// the decisions (``NotifierStore/record(_:at:)``).
struct ReminderDeliveries: Sendable {
    let webURL: String?

    func messages(for sent: [ReminderDecision], now: Date, _ session: any SQLSession) throws -> [Outbox.Message] {
        guard !sent.isEmpty else { return [] }
        let users = sent.map(\.reminder.user)
        let channels = try ChannelStore.enabledChannels(of: users, session)
        guard !channels.isEmpty else { return [] }
        let quiet = try ChannelStore.quietHours(of: users.filter { channels[$0] != nil }, session)
        var messages: [Outbox.Message] = []
        for decision in sent {
            guard let userChannels = channels[decision.reminder.user] else { continue }
            let user = decision.reminder.user
            let delay = try quiet[user].map { try Self.quietDelay($0, user: user, now: now, session) } ?? 0
            let message = ChannelMessage(
                event: ChannelEvents.reminder, user: user, date: decision.reminder.date.description, title: "Sous: log today's food",
                body: ReminderRules.message(kcal: decision.kcal, goal: decision.kcalGoal), url: webURL.map { "\($0)/diary" }, kcal: decision.kcal,
                kcalGoal: decision.kcalGoal)
            for channel in userChannels {
                messages.append(
                    Outbox.Message(
                        channel: channel.channel.kind.rawValue, recipient: channel.channel.id, user: user, payload: message,
                        dedupe: Self.dedupe(user: user, date: decision.reminder.date.description, channel: channel.channel.id), delay: delay))
            }
        }
        return messages
    }

    /// The key that makes a day's reminder one delivery per channel.
    static func dedupe(user: String, date: String, channel: String) -> String { "reminder\u{1F}\(user)\u{1F}\(date)\u{1F}\(channel)" }

    /// The (date, channel) of a reminder delivery's key, or nil for other messages.
    static func reminderKey(_ dedupe: String?) -> (date: String, channel: String)? {
        guard let parts = dedupe?.split(separator: "\u{1F}", omittingEmptySubsequences: false), parts.count == 4, parts[0] == "reminder" else {
            return nil
        }
        return (String(parts[2]), String(parts[3]))
    }

    /// Seconds from `now` to the end of the quiet hours on the user's clock; 0 outside them.
    static func quietDelay(_ hours: QuietHours, user: String, now: Date, _ session: any SQLSession) throws -> TimeInterval {
        let zoneName = try session.value(String.self, #"SELECT time_zone FROM profile WHERE "user" = ?"#, [user]) ?? "UTC"
        return quietDelay(hours, timeZone: ReminderRules.timeZone(named: zoneName), now: now)
    }

    static func quietDelay(_ hours: QuietHours, timeZone: TimeZone, now: Date) -> TimeInterval {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard hours.contains(hour: calendar.component(.hour, from: now)) else { return 0 }
        let today = LocalDate(now, in: timeZone)
        var end = today.instant(hour: hours.to, in: timeZone)
        if end <= now { end = today.adding(days: 1).instant(hour: hours.to, in: timeZone) }
        return max(0, end.timeIntervalSince(now))
    }
}
