public import Foundation
import GRDB
import SousCrypto
import SousRuntime
public import SousSchema
import SousWire

extension NotifierStore {
    func channelList(of user: String) throws -> (channels: [ReminderChannel], quietHours: QuietHours?) {
        try database.read { session in
            (try ChannelStore.channels(of: user, session).map(\.channel), try ChannelStore.quietHours(of: user, session))
        }
    }

    func addChannel(_ channel: StoredChannel, now: Date) throws -> StoredChannel {
        try database.write { session in try ChannelStore.add(channel, now: now, session) }
    }

    func removeChannel(_ id: String, of user: String) throws -> Bool {
        try database.write { session in try ChannelStore.remove(id, of: user, session) }
    }

    func setQuietHours(_ hours: QuietHours?, of user: String) throws {
        try database.write { session in try ChannelStore.setQuietHours(hours, of: user, session) }
    }

    func enableChannel(_ id: String) throws {
        try database.write { session in try ChannelStore.enable(id, session) }
    }

    /// Queues a test message for one of `user`'s channels; returns its outbox id, or nil when
    /// the user has no such channel.
    func queueTest(channel id: String, of user: String, webURL: String?, now: Date) throws -> String? {
        try database.write { session in
            guard let channel = try ChannelStore.channel(id, session), channel.user == user else { return nil }
            let message = ChannelMessage(
                event: ChannelEvents.test, user: user, date: nil, title: "Sous: test message",
                body: "This channel works: your reminders to log food will arrive here.", url: webURL)
            let test = Outbox.Message(channel: channel.channel.kind.rawValue, recipient: id, user: user, payload: message, dedupe: nil)
            try Outbox.enqueue([test], now: now, session)
            return test.id
        }
    }

    /// Whether an attempt at outbox message `id` has written its outcome.
    func attempted(_ id: String) throws -> Bool {
        try database.read { session in
            guard let item = try Outbox.item(id, session) else { return true }
            return item.state != .pending || item.lastError != nil
        }
    }

    func delivery(_ id: String) throws -> ChannelDelivery? {
        try database.read { session in try Outbox.item(id, session).map(Self.delivery) }
    }

    /// Each reminder's deliveries to channels, by local date (as the outbox still holds them:
    /// 30 days).
    func deliveries(of user: String) throws -> [String: [ChannelDelivery]] {
        try database.read { session in
            var byDate: [String: [ChannelDelivery]] = [:]
            // One reminder's deliveries share their creation time: listed by kind, then channel.
            let items = try Outbox.items(user: user, session).sorted {
                ($0.createdAt, $0.channel, $0.recipient) < ($1.createdAt, $1.channel, $1.recipient)
            }
            for item in items {
                guard let key = ReminderDeliveries.reminderKey(item.dedupe) else { continue }
                byDate[key.date, default: []].append(Self.delivery(item))
            }
            return byDate
        }
    }

    static func delivery(_ item: Outbox.Item) -> ChannelDelivery {
        let state: DeliveryState =
            switch item.state {
            case .pending: .pending
            case .sent: .sent
            case .failed, .decoy: .failed
            }
        return ChannelDelivery(
            channel: item.recipient, kind: ReminderChannelKind(rawValue: item.channel) ?? .webhook, state: state, at: item.doneAt,
            attempts: item.attempts, reason: item.lastError)
    }

    /// What a delivery that failed for good does, in the transaction that records it: a
    /// permanent failure switches the channel off and tells the user on their other channels.
    static func channelFailed(webURL: String?) -> OutboxCourier.FinalFailure {
        { item, failure, now, session in
            guard failure.permanent, let channel = try ChannelStore.channel(item.recipient, session),
                try ChannelStore.disable(channel.channel.id, reason: failure.reason, now: now, session)
            else { return }
            let others = try ChannelStore.channels(of: channel.user, session).filter { $0.channel.enabled && $0.channel.id != channel.channel.id }
            let name = channel.channel.label.map { "\"\($0)\" (\(channel.channel.address))" } ?? channel.channel.address
            let message = ChannelMessage(
                event: ChannelEvents.channelDisabled, user: channel.user, date: nil, title: "Sous: a reminder channel was switched off",
                body:
                    "Your \(channel.channel.kind.rawValue) channel \(name) was switched off: \(failure.reason). Add it again (sous reminders channels) once it works.",
                url: webURL.map { "\($0)/settings/reminders" })
            try Outbox.enqueue(
                others.map {
                    Outbox.Message(channel: $0.channel.kind.rawValue, recipient: $0.channel.id, user: channel.user, payload: message, dedupe: nil)
                }, now: now, session)
        }
    }
}

extension NotifierStore {
    /// A channel for a benchmark's bulk insert.
    public struct BulkChannel: Sendable {
        public var user: String
        public var kind: ReminderChannelKind
        public var address: String
        public var p256dh: String?
        public var auth: String?

        public init(user: String, kind: ReminderChannelKind, address: String, p256dh: String? = nil, auth: String? = nil) {
            self.user = user
            self.kind = kind
            self.address = address
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    /// Adds channels in one transaction, bypassing the checks of `reminders.addChannel`: for
    /// the benchmark and maintenance tools.
    public func bulkAddChannels(_ channels: [BulkChannel], now: Date) throws {
        try database.write { session in
            var start = 0
            while start < channels.count {
                let chunk = channels[start..<min(start + 100, channels.count)]
                start += chunk.count
                var arguments: SQLArguments = []
                for channel in chunk {
                    arguments += [
                        UUID.random().uuidString.lowercased(), channel.user, channel.kind.rawValue, channel.address, channel.p256dh, channel.auth,
                        channel.kind == .webhook ? "benchmark-secret" : nil, now.timeIntervalSince1970,
                    ]
                }
                try session.execute(
                    #"INSERT INTO channel (id, "user", kind, address, push_p256dh, push_auth, secret, created_at) VALUES "#
                        + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "), arguments)
            }
        }
    }

    /// Deliveries by state and last error ("sent", "pending: the endpoint answered HTTP 500"):
    /// what a benchmark reports when not everything arrived.
    public func deliveryCounts() throws -> [String: Int] {
        try database.read { session in
            var counts: [String: Int] = [:]
            for row in try session.rows("SELECT state, last_error, COUNT(*) AS n FROM sous_outbox GROUP BY state, last_error") {
                let state: String = row["state"]
                let error: String? = row["last_error"]
                counts[state + (error.map { ": \($0)" } ?? ""), default: 0] += Int(row["n"] as Int64)
            }
            return counts
        }
    }
}
