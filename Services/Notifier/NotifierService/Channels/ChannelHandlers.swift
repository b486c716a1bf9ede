import Foundation
import SousRuntime
import SousSchema
import SousWire

/// The methods that manage where the caller's reminders go.
struct ChannelHandlers: Sendable {
    let host: HostParts
    let store: NotifierStore
    let settings: ChannelSettings
    let courier: OutboxCourier
    /// The VAPID public key browsers subscribe with.
    let pushKey: String

    func register(on server: RPCServer) {
        server.register(NotifierAPI.channels, use: channels)
        server.register(NotifierAPI.addChannel, use: addChannel)
        server.register(NotifierAPI.removeChannel, use: removeChannel)
        server.register(NotifierAPI.testChannel, use: testChannel)
        server.register(NotifierAPI.setQuietHours, use: setQuietHours)
    }

    func channels(_ request: Empty, user: String, context: RequestContext) throws -> ChannelList {
        try list(of: user)
    }

    func addChannel(_ request: ChannelAdd, user: String, context: RequestContext) throws -> ChannelAdded {
        let id = UUID.random().uuidString.lowercased()
        let channel = try ChannelValidation(settings: settings).channel(request, user: user, id: id)
        let added = try store.addChannel(channel, now: host.clock.now)
        return ChannelAdded(channel: added.channel, secret: added.secret)
    }

    func removeChannel(_ request: ChannelRef, user: String, context: RequestContext) throws -> ChannelList {
        guard try store.removeChannel(request.id, of: user) else { throw ServiceError.notFound("you have no channel \(request.id)", field: "id") }
        return try list(of: user)
    }

    /// Queues a test message and waits (at most 15 s) for the courier's first attempt at it.
    func testChannel(_ request: ChannelRef, user: String, context: RequestContext) async throws -> ChannelTestResult {
        guard let id = try store.queueTest(channel: request.id, of: user, webURL: settings.webURL, now: host.clock.now) else {
            throw ServiceError.notFound("you have no channel \(request.id)", field: "id")
        }
        courier.wake()
        await courier.waitForAttempt(on: id, within: .seconds(15)) { [store] in (try? store.attempted(id)) ?? true }
        guard let delivery = try store.delivery(id) else { throw ServiceError.notFound("the channel was removed meanwhile", field: "id") }
        // It works again: a channel switched off after a failure is back on.
        if delivery.state == .sent { try store.enableChannel(request.id) }
        return ChannelTestResult(delivery: delivery)
    }

    func setQuietHours(_ request: QuietHoursChange, user: String, context: RequestContext) throws -> ChannelList {
        if let hours = request.quietHours {
            for (field, hour) in [("quietHours.from", hours.from), ("quietHours.to", hours.to)] where !(0...23).contains(hour) {
                throw ServiceError.badRequest("an hour is 0 to 23, got \(hour)", field: field)
            }
            guard hours.from != hours.to else {
                throw ServiceError.badRequest("quiet hours start and end at different hours", field: "quietHours.to")
            }
        }
        try store.setQuietHours(request.quietHours, of: user)
        return try list(of: user)
    }

    private func list(of user: String) throws -> ChannelList {
        let (channels, quietHours) = try store.channelList(of: user)
        return ChannelList(channels: channels, quietHours: quietHours, pushKey: pushKey, mailConfigured: settings.mail != nil)
    }
}
