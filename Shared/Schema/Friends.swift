public import Foundation
public import MessagePack
public import SousWire

// Friends live in the planner, what they share is read from the tracker (docs/PROTOCOL.md,
// "Friends"). A friend sees only a daily summary in percentages and the weekly board, never a
// diary entry, a food, a photo, a weight or the coeliac journal, and only once the other
// person switched sharing on.

/// `friends.request`: the email of the person asked.
@MessagePackCodable
public struct FriendRequestDraft: Codable, Sendable, Equatable {
    public var email: String

    public init(email: String) {
        self.email = email
    }
}

/// A request the caller sent. It names the email it went to, never an account: whether anyone
/// has that email is not told.
@MessagePackCodable
public struct SentFriendRequest: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var sentAt: Date

    public init(id: String, email: String, sentAt: Date) {
        self.id = id
        self.email = email
        self.sentAt = sentAt
    }
}

/// A request someone sent to the caller's email.
@MessagePackCodable
public struct ReceivedFriendRequest: Codable, Sendable, Equatable {
    public var id: String
    /// The sender's user id, name and email.
    public var user: String
    public var name: String
    public var email: String
    public var sentAt: Date

    public init(id: String, user: String, name: String, email: String, sentAt: Date) {
        self.id = id
        self.user = user
        self.name = name
        self.email = email
        self.sentAt = sentAt
    }
}

/// `friends.requests`: pending requests, newest first. A request expires after 30 days.
@MessagePackCodable
public struct FriendRequests: Codable, Sendable, Equatable {
    public var received: [ReceivedFriendRequest]
    public var sent: [SentFriendRequest]

    public init(received: [ReceivedFriendRequest], sent: [SentFriendRequest]) {
        self.received = received
        self.sent = sent
    }
}

/// `friends.answer`.
@MessagePackCodable
public struct FriendAnswer: Codable, Sendable, Equatable {
    /// A received request's id.
    public var id: String
    public var accept: Bool

    public init(id: String, accept: Bool) {
        self.id = id
        self.accept = accept
    }
}

/// `friends.withdraw`: a sent request's id.
@MessagePackCodable
public struct FriendRequestRef: Codable, Sendable, Equatable {
    public var id: String

    public init(id: String) {
        self.id = id
    }
}

/// One friend, as the caller sees them.
@MessagePackCodable
public struct Friend: Codable, Sendable, Equatable {
    public var user: String
    public var name: String
    public var since: Date
    /// Whether the caller shares their daily summary with this friend: `shareOverride` when
    /// set, else the caller's setting for all friends.
    public var sharing: Bool
    /// The caller's choice for this friend alone; nil follows the setting for all friends.
    public var shareOverride: Bool?
    /// Whether this friend shares their daily summary with the caller.
    public var sharesWithYou: Bool
    /// Whether this friend takes part in the weekly board.
    public var competes: Bool

    public init(user: String, name: String, since: Date, sharing: Bool, shareOverride: Bool?, sharesWithYou: Bool, competes: Bool) {
        self.user = user
        self.name = name
        self.since = since
        self.sharing = sharing
        self.shareOverride = shareOverride
        self.sharesWithYou = sharesWithYou
        self.competes = competes
    }
}

/// `friends.list` and every change to friends: the caller's friends, by name, and the
/// caller's own settings.
@MessagePackCodable
public struct FriendList: Codable, Sendable, Equatable {
    /// Whether the caller shares their daily summary with every friend who has no choice of
    /// their own (off until switched on).
    public var shareWithAll: Bool
    /// Whether the caller takes part in the weekly board (off until switched on).
    public var competes: Bool
    public var friends: [Friend]

    public init(shareWithAll: Bool, competes: Bool, friends: [Friend]) {
        self.shareWithAll = shareWithAll
        self.competes = competes
        self.friends = friends
    }
}

/// `friends.end`.
@MessagePackCodable
public struct FriendRef: Codable, Sendable, Equatable {
    public var user: String

    public init(user: String) {
        self.user = user
    }
}

/// `friends.share`: share the daily summary with one friend (`user`), or with all (no
/// `user`: sets the choice for all friends and clears each friend's own).
@MessagePackCodable
public struct FriendSharing: Codable, Sendable, Equatable {
    public var user: String?
    public var share: Bool

    public init(user: String? = nil, share: Bool) {
        self.user = user
        self.share = share
    }
}

/// `friends.compete`.
@MessagePackCodable
public struct CompetitiveMode: Codable, Sendable, Equatable {
    public var on: Bool

    public init(on: Bool) {
        self.on = on
    }
}

/// Published on the planner's bus when a friendship starts or ends, or a share changes.
@MessagePackCodable
public struct FriendsChangedEvent: Codable, Sendable, Equatable {
    public var users: [String]

    public init(users: [String]) {
        self.users = users
    }
}

public enum FriendTopics {
    public static let changed = Topic<FriendsChangedEvent>("planner.friends.changed")
}

public enum FriendsAPI {
    /// Asks the person with `email` to be friends. Answered the same whether or not anyone has
    /// that email, so emails cannot be found out; asking again renews the request.
    public static let request = Method<Planner, FriendRequestDraft, SentFriendRequest>.write("friends.request", .user)
    public static let requests = Method<Planner, Empty, FriendRequests>.read("friends.requests", .user)
    /// Accepts or declines a received request.
    public static let answer = Method<Planner, FriendAnswer, FriendList>.write("friends.answer", .user)
    /// Takes back a sent request.
    public static let withdraw = Method<Planner, FriendRequestRef, FriendRequests>.write("friends.withdraw", .user)
    public static let list = Method<Planner, Empty, FriendList>.read("friends.list", .user)
    /// Ends a friendship, for both.
    public static let end = Method<Planner, FriendRef, FriendList>.write("friends.end", .user)
    public static let share = Method<Planner, FriendSharing, FriendList>.write("friends.share", .user)
    public static let compete = Method<Planner, CompetitiveMode, FriendList>.write("friends.compete", .user)
}

// MARK: What friends see (the tracker)

/// `progress.summary`: the caller's own (no `friend`) or a friend's who shares it with them.
@MessagePackCodable
public struct ProgressRequest: Codable, Sendable, Equatable, FriendScoped {
    public var friend: String?
    /// Default: today in the time zone of the person whose summary it is.
    public var date: LocalDate?

    public init(friend: String? = nil, date: LocalDate? = nil) {
        self.friend = friend
        self.date = date
    }
}

/// What a friend may see of a day: totals against goals as whole percentages, how regularly the
/// diary is kept, and the logging badges. Nothing else of the diary.
@MessagePackCodable
public struct ProgressSummary: Codable, Sendable, Equatable {
    public var user: String
    public var date: LocalDate
    /// Whether anything was logged that day.
    public var logged: Bool
    /// The day's totals as whole percentages of the goals in force that day.
    public var percent: MacroPercent
    /// Days with entries among the 7 (and 30) days up to and including `date`.
    public var daysLogged7: Int
    public var daysLogged30: Int
    /// Days in a row with entries, ending on `date` (or on the day before, while `date` has none yet).
    public var streak: Int
    /// The longest run of days with entries up to `date`.
    public var bestStreak: Int
    /// The logging badges earned up to `date`: each run length of ``ProgressSummary/badgeStreaks`` reached.
    public var badges: [Int]

    public init(
        user: String, date: LocalDate, logged: Bool, percent: MacroPercent, daysLogged7: Int, daysLogged30: Int, streak: Int, bestStreak: Int,
        badges: [Int]
    ) {
        self.user = user
        self.date = date
        self.logged = logged
        self.percent = percent
        self.daysLogged7 = daysLogged7
        self.daysLogged30 = daysLogged30
        self.streak = streak
        self.bestStreak = bestStreak
        self.badges = badges
    }

    /// Runs of logged days that earn a badge.
    public static let badgeStreaks = [3, 7, 30, 100, 365]
}

/// Whole percentages (rounded half away from zero) of each goal.
@MessagePackCodable
public struct MacroPercent: Codable, Sendable, Equatable {
    public var kcal: Int
    public var carbohydrates: Int
    public var protein: Int
    public var fat: Int

    public init(kcal: Int, carbohydrates: Int, protein: Int, fat: Int) {
        self.kcal = kcal
        self.carbohydrates = carbohydrates
        self.protein = protein
        self.fat = fat
    }
}

/// `progress.board`.
@MessagePackCodable
public struct BoardRequest: Codable, Sendable, Equatable {
    /// Any day of the week wanted (Monday to Sunday, in the caller's time zone); default: this week.
    public var week: LocalDate?

    public init(week: LocalDate? = nil) {
        self.week = week
    }
}

@MessagePackCodable
public struct BoardRow: Codable, Sendable, Equatable {
    /// 1 for the first; people tied on every figure share a rank.
    public var rank: Int
    public var user: String
    public var name: String
    /// Whether this row is the caller's.
    public var you: Bool
    /// Days of the week with entries (up to today for a week still running).
    public var daysLogged: Int
    /// Days of the week whose kcal were within ±10 % of the goal in force.
    public var daysWithinGoal: Int
    /// The run of logged days ending on the week's last day counted.
    public var streak: Int

    public init(rank: Int, user: String, name: String, you: Bool, daysLogged: Int, daysWithinGoal: Int, streak: Int) {
        self.rank = rank
        self.user = user
        self.name = name
        self.you = you
        self.daysLogged = daysLogged
        self.daysWithinGoal = daysWithinGoal
        self.streak = streak
    }
}

/// The weekly board among the caller and the friends who take part: ordered by days within the
/// goal, then days logged, then streak (each more first); ties on all three share a rank and are
/// listed by name, then user id.
@MessagePackCodable
public struct FriendsBoard: Codable, Sendable, Equatable {
    public var weekStart: LocalDate
    public var weekEnd: LocalDate
    public var rows: [BoardRow]

    public init(weekStart: LocalDate, weekEnd: LocalDate, rows: [BoardRow]) {
        self.weekStart = weekStart
        self.weekEnd = weekEnd
        self.rows = rows
    }
}

public enum ProgressAPI {
    public static let summary = Method<Tracker, ProgressRequest, ProgressSummary>.read("progress.summary", .friend)
    /// For a caller who takes part (`friends.compete`): the caller and every friend who does.
    public static let board = Method<Tracker, BoardRequest, FriendsBoard>.read("progress.board", .friend, lane: .heavy)
}
