import Foundation
import SousRuntime
import SousSchema
import SousWire

/// The `friends.*` methods: requests by email, friendships, and what each person shares.
struct FriendHandlers: Sendable {
    let host: HostParts
    let store: FriendStore

    var now: Date { host.clock.now }

    /// The route table: every `friends.*` method the planner serves.
    func register(on server: RPCServer) {
        server.register(FriendLookup.method, use: of)
        server.register(FriendsAPI.request, use: request)
        server.register(FriendsAPI.requests, use: requests)
        server.register(FriendsAPI.answer, use: answer)
        server.register(FriendsAPI.withdraw, use: withdraw)
        server.register(FriendsAPI.list, use: list)
        server.register(FriendsAPI.end, use: end)
        server.register(FriendsAPI.share, use: share)
        server.register(FriendsAPI.compete, use: compete)
    }

    /// `friends.of`, for another service acting for the user.
    func of(_ request: Empty, user: String, context: RequestContext) throws -> FriendsOf {
        try store.of(user: user)
    }

    func request(_ request: FriendRequestDraft, user: String, context: RequestContext) throws -> SentFriendRequest {
        let sent = try store.request(email: request.email, user: user, now: now)
        // The event tells the recipient's clients; the answer tells the sender nothing of them.
        changed([user] + (sent.recipient.map { [$0] } ?? []))
        return sent.request
    }

    func requests(_ request: Empty, user: String, context: RequestContext) throws -> FriendRequests {
        try store.requests(user: user, now: now)
    }

    func answer(_ request: FriendAnswer, user: String, context: RequestContext) throws -> FriendList {
        let answered = try store.answer(request, user: user, now: now)
        changed([user, answered.sender])
        return answered.list
    }

    func withdraw(_ request: FriendRequestRef, user: String, context: RequestContext) throws -> FriendRequests {
        try store.withdraw(request.id, user: user, now: now)
    }

    func list(_ request: Empty, user: String, context: RequestContext) throws -> FriendList {
        try store.list(user: user)
    }

    func end(_ request: FriendRef, user: String, context: RequestContext) throws -> FriendList {
        let list = try store.end(request.user, user: user)
        changed([user, request.user])
        return list
    }

    func share(_ request: FriendSharing, user: String, context: RequestContext) throws -> FriendList {
        let list = try store.share(request, user: user)
        changed([user] + (request.user.map { [$0] } ?? list.friends.map(\.user)))
        return list
    }

    func compete(_ request: CompetitiveMode, user: String, context: RequestContext) throws -> FriendList {
        let list = try store.compete(request.on, user: user)
        changed([user] + list.friends.map(\.user))
        return list
    }

    private func changed(_ users: [String]) {
        host.publisher.publish(FriendTopics.changed, FriendsChangedEvent(users: Array(Set(users)).sorted()))
    }
}
