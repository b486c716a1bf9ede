import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous friends`: friends who see how you are doing, never what you ate.
struct FriendsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "friends",
        abstract: "Friends who see your progress (only once you share it) and a weekly board.",
        discussion: """
            A friend sees a daily summary of yours only after you switch sharing on, for them or for all friends: \
            kcal and macros as percentages of your goals, days logged, streaks and badges. Never an entry, a food, \
            a photo, a weight or the coeliac diary.
              sous friends request bob@example.org
              sous friends requests                 # requests you received and sent
              sous friends accept f-1a2b3c4d5e6f7a8b
              sous friends share on --with Bob      # or without --with: all friends
              sous friends progress Ada
              sous friends compete on && sous friends board
            """,
        subcommands: [
            List.self, Request.self, Requests.self, Accept.self, Decline.self, Withdraw.self, End.self, Share.self, Compete.self, Progress.self,
            Board.self,
        ]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your friends, what you share with each and what each shares with you.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(FriendsAPI.list, Empty(), session: global.token)
            if global.json { return try printJSON(list) }
            printFriends(list)
        }
    }

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the person with an email to be friends.",
            discussion: "The answer is the same whether or not anyone has that email: nobody can find out who has an account.")
        @Argument(help: "Their email.") var email: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let sent = try await global.client(Planner.self).call(FriendsAPI.request, FriendRequestDraft(email: email), session: global.token)
            if global.json { return try printJSON(sent) }
            Console.current.out(
                "Asked \(sent.email) (request \(sent.id), valid 30 days). If they have an account, they see it in `sous friends requests`.")
        }
    }

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Friend requests you received and sent.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let requests = try await global.client(Planner.self).call(FriendsAPI.requests, Empty(), session: global.token)
            if global.json { return try printJSON(requests) }
            if requests.received.isEmpty && requests.sent.isEmpty { return Console.current.out("No friend requests.") }
            if !requests.received.isEmpty {
                var table = Table([("received", .left), ("from", .left), ("email", .left), ("sent", .left)])
                for request in requests.received {
                    table.add([request.id, request.name, request.email, request.sentAt.formatted(date: .abbreviated, time: .omitted)])
                }
                Console.current.out(table.render())
                Console.current.out("Answer with `sous friends accept ID` or `sous friends decline ID`.")
            }
            if !requests.sent.isEmpty {
                var table = Table([("sent", .left), ("to", .left), ("on", .left)])
                for request in requests.sent { table.add([request.id, request.email, request.sentAt.formatted(date: .abbreviated, time: .omitted)]) }
                Console.current.out(table.render())
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept a friend request you received.")
        @Argument(help: "The request's id (from `sous friends requests`).") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(FriendsAPI.answer, FriendAnswer(id: id, accept: true), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out("Accepted. Nothing is shared until one of you switches it on (`sous friends share on`).")
            printFriends(list)
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decline a friend request you received (the sender is not told).")
        @Argument(help: "The request's id (from `sous friends requests`).") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(FriendsAPI.answer, FriendAnswer(id: id, accept: false), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out("Declined \(id).")
        }
    }

    struct Withdraw: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take back a friend request you sent.")
        @Argument(help: "The request's id (from `sous friends requests`).") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let requests = try await global.client(Planner.self).call(FriendsAPI.withdraw, FriendRequestRef(id: id), session: global.token)
            if global.json { return try printJSON(requests) }
            Console.current.out("Withdrew \(id).")
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a friendship, for both of you.")
        @Argument(help: "The friend's name or user id.") var friend: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let planner = global.client(Planner.self)
            let user = try await friendID(friend, planner: planner, token: global.token)
            let list = try await planner.call(FriendsAPI.end, FriendRef(user: user), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out("You are no longer friends with \(friend).")
        }
    }

    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share your daily summary with all friends, or with one (--with).",
            discussion: "Without --with it applies to every friend and clears the choices made for single friends.")
        @Argument(help: "on or off.") var share: OnOff
        @Option(name: .customLong("with"), help: "One friend's name or user id.") var friend: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let planner = global.client(Planner.self)
            var user: String?
            if let friend { user = try await friendID(friend, planner: planner, token: global.token) }
            let list = try await planner.call(FriendsAPI.share, FriendSharing(user: user, share: share.isOn), session: global.token)
            if global.json { return try printJSON(list) }
            printFriends(list)
        }
    }

    struct Compete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take part in the weekly board among friends who do too.")
        @Argument(help: "on or off.") var on: OnOff
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(FriendsAPI.compete, CompetitiveMode(on: on.isOn), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out(list.competes ? "You take part in the weekly board (`sous friends board`)." : "You no longer take part in the board.")
        }
    }

    struct Progress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A friend's daily summary (if they share it with you), or, without a name, yours as friends see it.")
        @Argument(help: "The friend's name or user id.") var friend: String?
        @Option(help: "The day, YYYY-MM-DD (default their today).") var date: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            var user: String?
            if let friend { user = try await friendID(friend, planner: global.client(Planner.self), token: global.token) }
            let summary = try await global.client(Tracker.self).call(
                ProgressAPI.summary, ProgressRequest(friend: user, date: try date.map { try trackerDate($0) }), session: global.token)
            if global.json { return try printJSON(summary) }
            let percent = summary.percent
            Console.current.out("\(friend ?? "You") on \(summary.date): \(summary.logged ? "logged" : "nothing logged yet")")
            Console.current.out(
                "  kcal \(percent.kcal) % · carbohydrates \(percent.carbohydrates) % · protein \(percent.protein) % · fat \(percent.fat) % of the goals"
            )
            Console.current.out("  days logged: \(summary.daysLogged7) of 7, \(summary.daysLogged30) of 30")
            Console.current.out("  streak: \(summary.streak) days (best \(summary.bestStreak))")
            if !summary.badges.isEmpty { Console.current.out("  badges: " + summary.badges.map { "\($0) days" }.joined(separator: ", ")) }
        }
    }

    struct Board: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The weekly board among you and the friends who take part (`sous friends compete on`).",
            discussion: "Ranked by days within ±10 % of the kcal goal, then days logged, then streak; ties share a rank.")
        @Option(help: "Any day of the week wanted, YYYY-MM-DD (default this week).") var week: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let board = try await global.client(Tracker.self).call(
                ProgressAPI.board, BoardRequest(week: try week.map { try trackerDate($0, option: "--week") }), session: global.token)
            if global.json { return try printJSON(board) }
            Console.current.out("Week of \(board.weekStart) to \(board.weekEnd)")
            var table = Table([("#", .right), ("who", .left), ("within goal", .right), ("logged", .right), ("streak", .right)])
            for row in board.rows {
                table.add([String(row.rank), row.you ? "you" : row.name, String(row.daysWithinGoal), String(row.daysLogged), String(row.streak)])
            }
            Console.current.out(table.render())
        }
    }
}

/// A friend named by user id or by name (any case); a name two friends share asks for the id.
func friendID(_ given: String, planner: ServiceClient<Planner>, token: String?) async throws -> String {
    let friends = try await planner.call(FriendsAPI.list, Empty(), session: token).friends
    if friends.contains(where: { $0.user == given }) { return given }
    let named = friends.filter { $0.name.caseInsensitiveCompare(given) == .orderedSame }
    if named.count == 1 { return named[0].user }
    if named.isEmpty { throw ValidationError("you have no friend called \(given) (see `sous friends list`)") }
    throw ValidationError("\(named.count) friends are called \(given): give one's user id (\(named.map(\.user).joined(separator: ", ")))")
}

private func printFriends(_ list: FriendList) {
    Console.current.out(
        "Sharing with all friends: \(list.shareWithAll ? "on" : "off") · competitive mode: \(list.competes ? "on" : "off")")
    guard !list.friends.isEmpty else { return Console.current.out("No friends yet: `sous friends request EMAIL`.") }
    var table = Table([("friend", .left), ("user", .left), ("you share", .left), ("shares with you", .left), ("board", .left)])
    for friend in list.friends {
        table.add([
            friend.name, friend.user, (friend.sharing ? "yes" : "no") + (friend.shareOverride == nil ? "" : " (their own)"),
            friend.sharesWithYou ? "yes" : "no", friend.competes ? "yes" : "no",
        ])
    }
    Console.current.out(table.render())
}
