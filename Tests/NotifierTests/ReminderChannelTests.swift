import Crypto
import Foundation
import NotifierService
import NotifierTesting
import SousCrypto
import SousFetch
import SousMail
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Reminders delivered to people's channels against real servers on loopback: an SMTP relay
/// (aiosmtpd, STARTTLS), and an HTTP server standing in for ntfy, webhooks and a Web Push
/// service that decrypts each push with the subscription's keys and checks its VAPID header.
@Suite(.closesItsSockets)
struct ReminderChannelTests {
    static let morning = instant("2026-01-15T08:00:00Z")
    /// 19:00 in Rome.
    static let rome19 = instant("2026-01-15T18:00:00Z")

    static func mail(_ catcher: MailCatcher) throws -> MailSettings {
        var settings = MailSettings(
            host: "localhost", port: catcher.port, security: .startTLS, sender: try MailSender("Sous <sous@example.org>"),
            extraTrustRoots: catcher.certificateFile)
        // The clock is moved by hand, so an attempt that ran out of time on a loaded machine
        // would wait for a retry that never comes: far longer than any reply takes.
        settings.commandTimeout = .seconds(30)
        return settings
    }

    func addChannel(_ world: NotifierWorld, _ user: String, _ add: ChannelAdd) async throws -> ChannelAdded {
        try await world.notifierClient.call(NotifierAPI.addChannel, add, user: user)
    }

    func channels(_ world: NotifierWorld, _ user: String) async throws -> ChannelList {
        try await world.notifierClient.call(NotifierAPI.channels, Empty(), user: user)
    }

    /// Waits until every delivery of `user`'s reminder for `date` is no longer pending (or one
    /// attempt's outcome, when `attempted`), rereading the log after each outcome the courier writes.
    func deliveries(
        _ world: NotifierWorld, _ user: String, on date: String, count: Int,
        settled: @escaping @Sendable ([ChannelDelivery]) -> Bool = {
            $0.allSatisfy { $0.state != .pending }
        }
    ) async throws -> [ChannelDelivery] {
        try await withTimeout(.seconds(60), waitingFor: "\(count) deliveries of \(user)'s reminder") {
            while true {
                let entry = try await world.log(user).first { $0.date.description == date }
                if let found = entry?.deliveries, found.count == count, settled(found) { return found }
                await world.notifier.courier.outcomeWritten()
            }
        }
    }

    @Test func aReminderReachesEachChannelOnceEncryptedAndSigned() async throws {
        try await withMailCatcher { mail in
            try await withHTTPCatcher { http in
                let world = try NotifierWorld.make(at: Self.morning, channels: NotifierFixture.loopbackChannels(mail: try Self.mail(mail)))
                try await world.run { _ in
                    try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                    let subscription = try await http.subscribe()
                    _ = try await addChannel(world, "ada", ChannelAdd(kind: .email, address: "ada@example.org"))
                    _ = try await addChannel(world, "ada", ChannelAdd(kind: .ntfy, address: http.url("/ntfy/ada-dinner"), label: "phone"))
                    let hook = try await addChannel(world, "ada", ChannelAdd(kind: .webhook, address: http.url("/hook/ada")))
                    _ = try await addChannel(
                        world, "ada",
                        ChannelAdd(
                            kind: .push,
                            subscription: PushSubscriptionKeys(endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth))
                    )
                    try await world.beActive("ada")
                    try await world.advance(to: Self.rome19)

                    let mails = try await mail.mails(count: 1)
                    #expect(mails[0].to == ["ada@example.org"])
                    #expect(mails[0].header("Subject") == "Sous: log today's food")
                    #expect(mails[0].text.contains("Time to log today's meals"))

                    let ntfy = try await http.requests(to: "/ntfy/")
                    #expect(ntfy[0].body?.hasPrefix("Time to log today's meals") == true)
                    #expect(ntfy[0].headers["title"] == "Sous: log today's food")
                    #expect(ntfy[0].headers["click"] == "https://sous.example/diary")

                    let webhook = try await http.requests(to: "/hook/")
                    let body = try #require(webhook[0].body)
                    let signature = try #require(webhook[0].headers["sous-signature"])
                    let parts = Dictionary(
                        uniqueKeysWithValues: signature.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }.map {
                            ($0[0], $0[1])
                        })
                    let secret = try #require(hook.secret)
                    let expected = HMAC<SHA256>.authenticationCode(
                        for: Array("\(parts["t"] ?? "").\(body)".utf8), using: SymmetricKey(data: Array(secret.utf8)))
                    #expect(parts["v1"] == expected.map { String(format: "%02x", $0) }.joined(), "the HMAC a receiver computes matches")
                    let message = try JSONDecoder().decode(ChannelMessage.self, from: Data(body.utf8))
                    #expect(message.event == "reminder")
                    #expect(message.date == "2026-01-15")
                    #expect(message.user == "ada")

                    let push = try await http.requests(to: "/push/")
                    #expect(push[0].status == 201, "\(push[0].error ?? "")")
                    let pushed = try JSONDecoder().decode(ChannelMessage.self, from: Data(try #require(push[0].plaintext).utf8))
                    #expect(pushed.event == "reminder")
                    #expect(push[0].vapid?.sub == "mailto:ops@sous.example")
                    #expect(push[0].vapid?.aud == "http://127.0.0.1:\(http.port)")
                    #expect(push[0].headers["ttl"] != nil)

                    let delivered = try await deliveries(world, "ada", on: "2026-01-15", count: 4)
                    #expect(delivered.map(\.state) == [.sent, .sent, .sent, .sent])
                    #expect(Set(delivered.map(\.kind)) == Set(ReminderChannelKind.allCases))

                    // More activity and a later pass send nothing again for that day.
                    try await world.beActive("ada")
                    try await world.advance(to: Self.rome19.addingTimeInterval(3 * 3600))
                    #expect(mail.mails.count == 1)
                    #expect(http.requests.filter { !$0.path.hasPrefix("/_") }.count == 3)
                }
            }
        }
    }

    @Test func aChannelThatIsGoneIsSwitchedOffAndTheUserIsToldOnTheOthers() async throws {
        try await withHTTPCatcher { http in
            let world = try NotifierWorld.make(at: Self.morning)
            try await world.run { _ in
                try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                let subscription = try await http.subscribe()
                let push = try await addChannel(
                    world, "ada",
                    ChannelAdd(
                        kind: .push,
                        subscription: PushSubscriptionKeys(endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth)))
                _ = try await addChannel(world, "ada", ChannelAdd(kind: .ntfy, address: http.url("/ntfy/ada")))
                try await http.forget(subscription)
                try await world.beActive("ada")
                try await world.advance(to: Self.rome19)

                let delivered = try await deliveries(world, "ada", on: "2026-01-15", count: 2)
                let pushDelivery = try #require(delivered.first { $0.kind == .push })
                #expect(pushDelivery.state == .failed)
                #expect(pushDelivery.reason?.contains("410") == true)
                let list = try await channels(world, "ada")
                let switchedOff = try #require(list.channels.first { $0.id == push.channel.id })
                #expect(!switchedOff.enabled)
                #expect(switchedOff.disabledReason?.contains("410") == true)

                // The ntfy topic got the reminder and then the notice.
                let notices = try await http.requests(count: 2, to: "/ntfy/")
                #expect(notices.contains { $0.headers["title"] == "Sous: a reminder channel was switched off" })
            }
        }
    }

    @Test func aSubscriptionWithWrongKeysFailsForGoodAtThePushService() async throws {
        try await withHTTPCatcher { http in
            let world = try NotifierWorld.make(at: Self.morning)
            try await world.run { _ in
                let real = try await http.subscribe()
                let other = try await http.subscribe()
                let added = try await addChannel(
                    world, "ada",
                    ChannelAdd(kind: .push, subscription: PushSubscriptionKeys(endpoint: real.endpoint, p256dh: other.p256dh, auth: real.auth)))
                let test = try await world.notifierClient.call(NotifierAPI.testChannel, ChannelRef(id: added.channel.id), user: "ada")
                #expect(test.delivery.state == .failed)
                let refused = try await http.requests(to: "/push/")
                #expect(refused[0].status == 400)
                #expect(refused[0].plaintext == nil)
                #expect(try await channels(world, "ada").channels.first?.enabled == false)
            }
        }
    }

    @Test func aHangingEndpointDelaysNoOneElse() async throws {
        try await withHTTPCatcher { http in
            let world = try NotifierWorld.make(at: Self.morning, channels: NotifierFixture.loopbackChannels(timeout: .seconds(120)))
            try await world.run { _ in
                for user in ["ada", "bob"] { try await world.setProfile(user, ProfileUpdate(timeZone: "Europe/Rome")) }
                _ = try await addChannel(world, "ada", ChannelAdd(kind: .webhook, address: http.url("/hang/ada")))
                _ = try await addChannel(world, "bob", ChannelAdd(kind: .ntfy, address: http.url("/ntfy/bob")))
                for user in ["ada", "bob"] { try await world.beActive(user) }
                try await world.advance(to: Self.rome19)

                _ = try await http.requests(to: "/hang/ada")
                let bob = try await deliveries(world, "bob", on: "2026-01-15", count: 1)
                #expect(bob.map(\.state) == [.sent])
                let ada = try #require(try await world.log("ada").first?.deliveries)
                #expect(ada.map(\.state) == [.pending], "ada's endpoint still holds its attempt; bob's went past it")
                #expect(ada.first?.reason == nil)
            }
        }
    }

    /// An endpoint that keeps failing is retried with backoff, and a day after the reminder was
    /// queued the delivery is given up with its last reason: `reminders list` says why. A
    /// temporary failure never switches the channel off.
    @Test func aDeliveryFailingForADayIsMarkedFailedWithItsReason() async throws {
        try await withHTTPCatcher { http in
            let world = try NotifierWorld.make(at: Self.morning)
            try await world.run { _ in
                try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                _ = try await addChannel(world, "ada", ChannelAdd(kind: .webhook, address: http.url("/status/500/ada")))
                try await world.beActive("ada")
                try await world.advance(to: Self.rome19)
                let retrying = try await deliveries(world, "ada", on: "2026-01-15", count: 1) { $0.first?.reason != nil }
                #expect(retrying.map(\.state) == [.pending])
                #expect(retrying.first?.attempts == 1 && retrying.first?.reason?.contains("500") == true, "\(retrying)")

                // 30 s before a day has passed: the next pause would end past the day.
                try await world.advance(to: Self.rome19.addingTimeInterval(24 * 3600 - 30))
                let given = try await deliveries(world, "ada", on: "2026-01-15", count: 1)
                #expect(given.map(\.state) == [.failed])
                #expect(given.first?.attempts == 2)
                let reason = given.first?.reason ?? ""
                #expect(reason.hasPrefix("undelivered for a day; last: ") && reason.contains("500"), "\(reason)")
                #expect(http.requests.filter { $0.path.hasPrefix("/status/500/ada") }.count == 2)
                #expect(try await channels(world, "ada").channels.map(\.enabled) == [true])
            }
        }
    }

    @Test func quietHoursHoldDeliveriesUntilTheyEnd() async throws {
        try await withHTTPCatcher { http in
            let world = try NotifierWorld.make(at: Self.morning)
            try await world.run { _ in
                try await world.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                _ = try await addChannel(world, "ada", ChannelAdd(kind: .ntfy, address: http.url("/ntfy/ada")))
                let quiet = try await world.notifierClient.call(
                    NotifierAPI.setQuietHours, QuietHoursChange(quietHours: QuietHours(from: 18, to: 21)), user: "ada")
                #expect(quiet.quietHours == QuietHours(from: 18, to: 21))
                try await world.beActive("ada")
                try await world.advance(to: Self.rome19)
                let held = try #require(try await world.log("ada").first?.deliveries)
                #expect(held.map(\.state) == [.pending])
                #expect(held.first?.attempts == 0)
                #expect(http.requests.isEmpty)

                // 21:00 in Rome.
                try await world.advance(to: instant("2026-01-15T20:00:00Z"))
                _ = try await http.requests(to: "/ntfy/ada")
                #expect(try await deliveries(world, "ada", on: "2026-01-15", count: 1).map(\.state) == [.sent])
            }
        }
    }

    @Test func deliveriesQueuedBeforeARestartAreSentOnceAfterIt() async throws {
        try await withTemporaryDirectory { directory in
            try await withMailCatcher { mail in
                // The first notifier's relay is not there: its attempt fails and is retried later.
                var absent = try Self.mail(mail)
                absent.port = 1  // nothing listens there: the connection is refused
                let first = try NotifierWorld.make(
                    at: Self.morning, dataDirectory: directory, channels: NotifierFixture.loopbackChannels(mail: absent))
                try await first.runPeers {
                    try await first.runNotifier { _ in
                        try await first.setProfile("ada", ProfileUpdate(timeZone: "Europe/Rome"))
                        _ = try await addChannel(first, "ada", ChannelAdd(kind: .email, address: "ada@example.org"))
                        try await first.beActive("ada")
                        try await first.advance(to: Self.rome19)
                        let failed = try await deliveries(first, "ada", on: "2026-01-15", count: 1) { $0.first?.reason != nil }
                        #expect(failed.first?.state == .pending)
                    }
                    let second = try first.restartingNotifier(
                        dataDirectory: directory, channels: NotifierFixture.loopbackChannels(mail: try Self.mail(mail)))
                    try await second.runNotifier { _ in
                        // Past the first retry's pause.
                        try await second.advance(to: Self.rome19.addingTimeInterval(60))
                        #expect(try await deliveries(second, "ada", on: "2026-01-15", count: 1).map(\.state) == [.sent])
                        #expect(try await mail.mails(count: 1).count == 1)
                        try await second.advance(to: Self.rome19.addingTimeInterval(7200))
                        #expect(mail.mails.count == 1)
                    }
                }
            }
        }
    }

    @Test func channelsAreCheckedOnTheWayInEachRefusalNamingItsField() async throws {
        try await withHTTPCatcher { http in
            let world = try NotifierWorld.make(at: Self.morning, channels: NotifierFixture.loopbackChannels(mail: nil))
            try await world.run { _ in
                let cases: [(ChannelAdd, String)] = [
                    (ChannelAdd(kind: .email, address: "ada@example.org"), "kind"),
                    (ChannelAdd(kind: .ntfy, address: "https://ntfy.sh/my topic!"), "address"),
                    (ChannelAdd(kind: .ntfy, address: http.url("/ntfy/a%00b")), "address"),
                    (ChannelAdd(kind: .webhook, address: "http://example.org/hook"), "address"),
                    (ChannelAdd(kind: .webhook, address: "https://10.0.0.1/hook"), "address"),
                    (ChannelAdd(kind: .webhook, address: "https://user:pw@example.org/hook"), "address"),
                    (ChannelAdd(kind: .webhook), "address"),
                    (ChannelAdd(kind: .webhook, address: http.url("/x"), label: "a\u{7}b"), "label"),
                    (ChannelAdd(kind: .push), "subscription"),
                    (
                        ChannelAdd(
                            kind: .push,
                            subscription: PushSubscriptionKeys(endpoint: http.url("/push/x"), p256dh: "AAAA", auth: "AAAAAAAAAAAAAAAAAAAAAA")),
                        "subscription.p256dh"
                    ),
                ]
                for (add, field) in cases {
                    let error = await #expect(throws: ServiceError.self) { try await addChannel(world, "ada", add) }
                    #expect(error?.code == .badRequest, "\(add)")
                    #expect(error?.field == field, "\(add): \(error?.message ?? "")")
                }
                for index in 0..<10 { _ = try await addChannel(world, "ada", ChannelAdd(kind: .ntfy, address: http.url("/ntfy/t\(index)"))) }
                let eleventh = await #expect(throws: ServiceError.self) {
                    try await addChannel(world, "ada", ChannelAdd(kind: .ntfy, address: http.url("/ntfy/t10")))
                }
                #expect(eleventh?.code == .conflict)
                #expect(try await channels(world, "ada").channels.count == 10)
                #expect(try await channels(world, "bob").channels.isEmpty, "nobody sees another user's channels")

                let missing = await #expect(throws: ServiceError.self) {
                    try await world.notifierClient.call(NotifierAPI.removeChannel, ChannelRef(id: "nope"), user: "ada")
                }
                #expect(missing?.code == .notFound)
                let someoneElses = try await channels(world, "ada").channels[0].id
                let stolen = await #expect(throws: ServiceError.self) {
                    try await world.notifierClient.call(NotifierAPI.testChannel, ChannelRef(id: someoneElses), user: "bob")
                }
                #expect(stolen?.code == .notFound)
                for (hours, field) in [(QuietHours(from: 24, to: 7), "quietHours.from"), (QuietHours(from: 7, to: 7), "quietHours.to")] {
                    let error = await #expect(throws: ServiceError.self) {
                        try await world.notifierClient.call(NotifierAPI.setQuietHours, QuietHoursChange(quietHours: hours), user: "ada")
                    }
                    #expect(error?.field == field)
                }
                #expect(http.requests.isEmpty, "nothing refused was ever contacted")
            }
        }
    }

    @Test func aTestMessageSaysWhatTheEndpointAnswered() async throws {
        try await withHTTPCatcher { http in
            let world = try NotifierWorld.make(at: Self.morning)
            try await world.run { _ in
                let ids = LockedList<String>()
                func test(_ address: String) async throws -> ChannelDelivery {
                    let added = try await addChannel(world, "ada", ChannelAdd(kind: .webhook, address: address))
                    ids.append(added.channel.id)
                    return try await world.notifierClient.call(NotifierAPI.testChannel, ChannelRef(id: added.channel.id), user: "ada").delivery
                }
                #expect(try await test(http.url("/hook/ok")).state == .sent)
                let failing = try await test(http.url("/status/500/hook"))
                #expect(failing.state == .pending)
                #expect(failing.reason?.contains("HTTP 500") == true)
                let redirected = try await test(http.url("/redirect/hook?to=http%3A%2F%2F10.0.0.1%2Fhook"))
                #expect(redirected.state == .pending)
                #expect(redirected.reason?.contains("redirects are not followed") == true)
                let gone = try await test(http.url("/status/410/hook"))
                #expect(gone.state == .failed)
                let enabled = Dictionary(uniqueKeysWithValues: try await channels(world, "ada").channels.map { ($0.id, $0.enabled) })
                #expect(ids.values.map { enabled[$0] } == [true, true, true, false], "only the endpoint that is gone is switched off")
                // The three still on were told, once each.
                let all = try await http.requests(count: 7, to: "/")
                let notices = all.filter { $0.body?.contains("\"event\":\"channelDisabled\"") == true }
                #expect(Set(notices.map(\.path)) == ["/hook/ok", "/status/500/hook", "/redirect/hook"])
            }
        }
    }

    @Test func aMailboxTheRelayRefusesSwitchesTheEmailChannelOff() async throws {
        try await withMailCatcher(refuse: ["gone"]) { mail in
            let world = try NotifierWorld.make(at: Self.morning, channels: NotifierFixture.loopbackChannels(mail: try Self.mail(mail)))
            try await world.run { _ in
                let gone = try await addChannel(world, "ada", ChannelAdd(kind: .email, address: "gone@example.org"))
                let kept = try await addChannel(world, "ada", ChannelAdd(kind: .email, address: "ada@example.org"))
                let test = try await world.notifierClient.call(NotifierAPI.testChannel, ChannelRef(id: gone.channel.id), user: "ada")
                #expect(test.delivery.state == .failed)
                #expect(test.delivery.reason?.contains("550") == true)
                let list = try await channels(world, "ada").channels
                #expect(list.first { $0.id == gone.channel.id }?.enabled == false)
                #expect(list.first { $0.id == kept.channel.id }?.enabled == true)
                // The other address is told, once.
                let told = try await mail.mails(count: 1)
                #expect(told[0].to == ["ada@example.org"])
                #expect(told[0].header("Subject") == "Sous: a reminder channel was switched off")
                #expect(told[0].text.contains("gone@example.org"))
            }
        }
    }
}
