import Foundation
import SousRuntime
import SousSchema
import SousWire

/// `progress.*`: what friends see of each other's diary. Whose diary a call reads is chosen by
/// the server (``Access/friend``), never by a handler from the request.
extension TrackerHandlers {
    func registerProgress(on server: RPCServer) {
        server.register(ProgressAPI.summary, use: progressSummary)
        server.register(ProgressAPI.board, use: board)
    }

    func progressSummary(_ request: ProgressRequest, context: RequestContext) async throws -> ProgressSummary {
        let subject = try context.requireSubject()
        // "Today" is the day of the person whose summary it is.
        let date = try await day(request.date, user: subject, context: context).date
        let entries = try store.entries(user: subject, from: date, to: date)
        return ProgressMath.summary(
            user: subject, date: date, entries: entries, goals: try store.goalHistory(user: subject).inForce(on: date).goals,
            loggedDates: try store.loggedDates(user: subject, through: date))
    }

    func board(_ request: BoardRequest, context: RequestContext) async throws -> FriendsBoard {
        let user = try context.requireUser()
        let friends = try context.requireFriends()
        guard friends.competes else {
            throw ServiceError.conflict("the board is for those who take part: switch competitive mode on first (friends.compete)", field: "competes")
        }
        let today = try await day(nil, user: user, context: context).date
        let anyDay = request.week ?? today
        let start = anyDay.adding(days: 1 - anyDay.isoWeekday)
        let end = start.adding(days: 6)
        let last = min(end, today)
        let people = [(user: user, name: "", you: true)] + friends.friends.filter(\.competes).map { (user: $0.user, name: $0.name, you: false) }
        var rows: [BoardRow] = []
        for person in people {
            let figures =
                last < start
                ? (daysLogged: 0, daysWithinGoal: 0, streak: 0)
                : ProgressMath.boardFigures(
                    entries: try store.entries(user: person.user, from: start, to: last), goals: try store.goalHistory(user: person.user),
                    loggedDates: try store.loggedDates(user: person.user, through: last), last: last)
            rows.append(
                BoardRow(
                    rank: 0, user: person.user, name: person.name, you: person.you, daysLogged: figures.daysLogged,
                    daysWithinGoal: figures.daysWithinGoal, streak: figures.streak))
        }
        return FriendsBoard(weekStart: start, weekEnd: end, rows: ProgressMath.ranked(rows))
    }
}
