import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SousClient
import SousSchema
import SousWire

/// The week in a calendar app: a private address the app fetches on its own (made, replaced and
/// stopped here), and that address itself, served without a session.
struct CalendarPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/week/calendar") { request, context in try await calendarPage(request, context) }
        router.post("/week/calendar/feed") { request, context in
            let session = try context.signedIn()
            let on = context.form.text("on") == "1"
            return try await app.submit {
                let feed = try await app.backend.planner.call(PlannerAPI.setFeed, FeedSetting(on: on), session: session.token)
                return try await calendarPage(request, context, address: feed.token.map { feedAddress($0, request) })
            } orShow: { error in
                try await calendarPage(request, context, error: error)
            }
        }
        // What calendar apps fetch: no cookie, the address's secret is the credential.
        router.get("/calendar/:file") { _, context in
            let file = try context.parameters.require("file")
            guard file.hasSuffix(".ics") else { throw WebError(status: .notFound, message: "There is no page at this address.") }
            let export = try await app.backend.planner.call(PlannerAPI.feedCalendar, FeedRead(token: String(file.dropLast(4))))
            return Response(
                status: .ok, headers: [.contentType: "text/calendar; charset=utf-8", .cacheControl: "private, max-age=900"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: export.calendar)))
        }
    }

    /// The feed's address on this site: `SOUS_WEB_URL` when set, else the host the browser asked.
    private func feedAddress(_ token: String, _ request: Request) -> String {
        let base =
            app.configuration.publicURL
            ?? "\(app.configuration.secureCookies ? "https" : "http")://\(request.head.authority ?? "\(app.configuration.host):\(app.configuration.port)")"
        return CalendarFeed.address(token: token, at: base)
    }

    private func calendarPage(_ request: Request, _ context: WebContext, address: String? = nil, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        let feed = try await app.backend.planner.call(PlannerAPI.feed, Empty(), session: session.token)
        var data: [String: Any] = ["active": feed.active]
        if let created = feed.createdAt { data["since"] = Show.dateTime(created) }
        if let address {
            data["address"] = address
            if let colon = address.firstIndex(of: ":") { data["webcal"] = "webcal" + address[colon...] }
        }
        return app.views.page(
            "calendar", title: "The week in your calendar", section: "week", data, context: context, status: error?.status ?? .ok, error: error)
    }
}
