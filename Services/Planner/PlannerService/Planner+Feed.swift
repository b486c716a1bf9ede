import Foundation
import SousCrypto
import SousRuntime
import SousSchema
import SousWire

/// `plan.feed`, `plan.feedStatus` and `plan.feedCalendar`: the week as a calendar that calendar
/// apps fetch on their own, through an address whose secret grants reading it and nothing else.
extension PlannerHandlers {
    /// Days before today a feed carries, so a calendar keeps the meals of the last weeks.
    static let feedPastDays = 28

    func setFeed(_ request: FeedSetting, user: String, context: RequestContext) throws -> CalendarFeed {
        guard request.on else {
            try store.stopFeed(user: user)
            return CalendarFeed(active: false)
        }
        let token = Base64URL.encode(Sodium.randomBytes(32))
        let created = now
        try store.startFeed(user: user, digest: Self.feedDigest(token), now: created)
        return CalendarFeed(active: true, token: token, createdAt: created)
    }

    func feed(_ request: Empty, user: String, context: RequestContext) throws -> CalendarFeed {
        try store.feedCreated(user: user).map { CalendarFeed(active: true, createdAt: $0) } ?? CalendarFeed(active: false)
    }

    func feedCalendar(_ request: FeedRead, context: RequestContext) throws -> CalendarExport {
        // A secret of another form is no feed's, without a read.
        guard request.token.utf8.count == 43, Base64URL.decode(request.token)?.count == 32,
            let user = try store.feedOwner(digest: Self.feedDigest(request.token))
        else { throw ServiceError.notFound("no calendar feed has this address: its owner may have stopped or replaced it", field: "token") }
        let member = PlanMember(user: user, household: try households.household(of: user, for: context))
        let window = PlanWindow(now: now, profile: try store.profile(user: user))
        return try calendar(
            member: member, window: window, range: PlanDateRange(from: window.today.adding(days: -Self.feedPastDays), to: window.last))
    }

    static func feedDigest(_ token: String) -> String {
        Sodium.digest([Array("sous-calendar-feed".utf8), Array(token.utf8)]).map { String(format: "%02x", $0) }.joined()
    }
}
