import Foundation
import Hummingbird
import SousClient
import SousSchema
import SousWire

/// Friends: requests by email, what each shares, a friend's progress, the weekly board.
struct FriendsPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/friends") { _, context in try await friendsPage(context) }
        let actions: [(String, @Sendable (Form, String, Backend) async throws -> String?)] = [
            (
                "request",
                { form, token, backend in
                    let sent = try await backend.planner.call(
                        FriendsAPI.request, FriendRequestDraft(email: try form.required("email", label: "Email")), session: token)
                    return "Asked \(sent.email). If they have an account, they see your request."
                }
            ),
            (
                "answer",
                { form, token, backend in
                    let accept = form.text("accept") == "1"
                    _ = try await backend.planner.call(
                        FriendsAPI.answer, FriendAnswer(id: try form.required("id", label: "Request"), accept: accept), session: token)
                    return accept ? "You are friends now. Nothing is shared until one of you switches it on." : "Declined."
                }
            ),
            (
                "withdraw",
                { form, token, backend in
                    _ = try await backend.planner.call(
                        FriendsAPI.withdraw, FriendRequestRef(id: try form.required("id", label: "Request")), session: token)
                    return "Withdrawn."
                }
            ),
            (
                "end",
                { form, token, backend in
                    _ = try await backend.planner.call(FriendsAPI.end, FriendRef(user: try form.required("user", label: "Friend")), session: token)
                    return "Friendship ended."
                }
            ),
            (
                "share",
                { form, token, backend in
                    _ = try await backend.planner.call(
                        FriendsAPI.share, FriendSharing(user: form.text("user"), share: form.text("share") == "1"), session: token)
                    return nil
                }
            ),
            (
                "compete",
                { form, token, backend in
                    _ = try await backend.planner.call(FriendsAPI.compete, CompetitiveMode(on: form.text("on") == "1"), session: token)
                    return nil
                }
            ),
        ]
        for (action, perform) in actions {
            router.post("/friends/\(action)") { _, context in
                let session = try context.signedIn()
                return try await app.submit {
                    let notice = try await perform(context.form, session.token, app.backend)
                    return notice == nil ? Views.seeOther("/friends") : try await friendsPage(context, notice: notice)
                } orShow: { error in
                    try await friendsPage(context, error: error)
                }
            }
        }
        router.get("/friends/progress") { request, context in
            let session = try context.signedIn()
            let friend = request.uri.queryParameters.get("user").map { String($0) }
            let list = try await app.backend.planner.call(FriendsAPI.list, Empty(), session: session.token)
            let summary = try await app.backend.tracker.call(ProgressAPI.summary, ProgressRequest(friend: friend), session: session.token)
            let name = friend.flatMap { user in list.friends.first { $0.user == user }?.name } ?? "You"
            let percent = summary.percent
            let data: [String: Any] = [
                "who": name, "date": summary.date.description, "logged": summary.logged,
                "percent": [
                    ["label": "Energy", "value": percent.kcal], ["label": "Carbohydrates", "value": percent.carbohydrates],
                    ["label": "Protein", "value": percent.protein], ["label": "Fat", "value": percent.fat],
                ],
                "daysLogged7": summary.daysLogged7, "daysLogged30": summary.daysLogged30, "streak": summary.streak,
                "bestStreak": summary.bestStreak, "badges": summary.badges.map { "\($0) days" },
            ]
            return app.views.page("friend_progress", title: "\(name): progress", section: "settings", data, context: context)
        }
        router.get("/friends/board") { request, context in
            let session = try context.signedIn()
            let week = request.uri.queryParameters.get("week").flatMap { LocalDate(String($0)) }
            let board = try await app.backend.tracker.call(ProgressAPI.board, BoardRequest(week: week), session: session.token)
            let data: [String: Any] = [
                "weekStart": board.weekStart.description, "weekEnd": board.weekEnd.description,
                "previous": board.weekStart.adding(days: -7).description, "next": board.weekStart.adding(days: 7).description,
                "rows": board.rows.map { row -> [String: Any] in
                    [
                        "rank": row.rank, "name": row.you ? "You" : row.name, "you": row.you, "within": row.daysWithinGoal,
                        "logged": row.daysLogged, "streak": row.streak,
                    ]
                },
            ]
            return app.views.page("friends_board", title: "Weekly board", section: "settings", data, context: context)
        }
    }

    private func friendsPage(_ context: WebContext, error: WebError? = nil, notice: String? = nil) async throws -> Response {
        let session = try context.signedIn()
        async let requests = app.backend.planner.call(FriendsAPI.requests, Empty(), session: session.token)
        let list = try await app.backend.planner.call(FriendsAPI.list, Empty(), session: session.token)
        let pending = try await requests
        let data: [String: Any] = [
            "shareWithAll": list.shareWithAll, "competes": list.competes,
            "friends": list.friends.map { friend -> [String: Any] in
                [
                    "user": friend.user, "name": friend.name, "since": Show.dateTime(friend.since), "sharing": friend.sharing,
                    "sharesWithYou": friend.sharesWithYou, "competes": friend.competes,
                ]
            },
            "received": pending.received.map { ["id": $0.id, "name": $0.name, "email": $0.email, "sent": Show.dateTime($0.sentAt)] },
            "sent": pending.sent.map { ["id": $0.id, "email": $0.email, "sent": Show.dateTime($0.sentAt)] },
        ]
        return app.views.page(
            "friends", title: "Friends", section: "settings", data, context: context, status: error?.status ?? .ok, error: error, notice: notice)
    }
}
