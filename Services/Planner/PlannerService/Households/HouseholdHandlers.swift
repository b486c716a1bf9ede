import Foundation
import Logging
import SousRuntime
import SousSchema
import SousWire

/// The `household.*` methods: who shares a plan and a list, invitations, ownership.
struct HouseholdHandlers: Sendable {
    let host: HostParts
    let store: HouseholdStore
    let eraser: AccountEraser

    var now: Date { host.clock.now }

    /// The route table: every `household.*` method the planner serves.
    func register(on server: RPCServer) {
        server.register(HouseholdLookup.method, use: of)
        server.register(HouseholdAPI.get, use: get)
        server.register(HouseholdAPI.update, use: update)
        server.register(HouseholdAPI.invite, use: invite)
        server.register(HouseholdAPI.invitations, use: invitations)
        server.register(HouseholdAPI.revokeInvitation, use: revokeInvitation)
        server.register(HouseholdAPI.join, use: join)
        server.register(HouseholdAPI.leave, use: leave)
        server.register(HouseholdAPI.remove, use: remove)
        server.register(HouseholdAPI.transfer, use: transfer)
        server.register(HouseholdAPI.allowInvites, use: allowInvites)
    }

    /// `household.of`, for another service acting for the user.
    func of(_ request: Empty, user: String, context: RequestContext) throws -> HouseholdOf {
        try store.membership(of: user)
    }

    func get(_ request: Empty, user: String, context: RequestContext) throws -> HouseholdInfo {
        try store.info(user: user)
    }

    func update(_ request: HouseholdUpdate, user: String, context: RequestContext) throws -> HouseholdInfo {
        let info = try store.update(request, user: user, now: now)
        // The number of people scales every member's week in the groceries.
        changed(households: [info.id], users: info.members.map(\.user))
        return info
    }

    func invite(_ request: InvitationRequest, user: String, context: RequestContext) throws -> NewInvitation {
        let invitation = try store.invite(user: user, days: request.days, now: now)
        context.logger.notice("household invitation made", metadata: ["invitation": "\(invitation.invitation.id)"])
        return invitation
    }

    func invitations(_ request: Empty, user: String, context: RequestContext) throws -> Invitations {
        try store.invitations(user: user, now: now)
    }

    func revokeInvitation(_ request: InvitationRef, user: String, context: RequestContext) throws -> Invitations {
        try store.revokeInvitation(request.id, user: user, now: now)
    }

    func join(_ request: JoinHousehold, user: String, context: RequestContext) async throws -> HouseholdInfo {
        await moved(try store.join(code: request.code, user: user, now: now, erasingIn: AccountEraser.services), context: context)
    }

    func leave(_ request: Empty, user: String, context: RequestContext) async throws -> HouseholdInfo {
        await moved(try store.leave(user: user, now: now, erasingIn: AccountEraser.services), context: context)
    }

    func remove(_ request: MemberRef, user: String, context: RequestContext) async throws -> HouseholdInfo {
        await moved(try store.remove(request.user, user: user, now: now), context: context)
    }

    func transfer(_ request: MemberRef, user: String, context: RequestContext) throws -> HouseholdInfo {
        try store.transfer(to: request.user, user: user)
    }

    func allowInvites(_ request: InvitePermission, user: String, context: RequestContext) throws -> HouseholdInfo {
        try store.allowInvites(request, user: user)
    }

    /// Announces a change of membership, and erases what a household left empty shared in the
    /// other services (queued in the same transaction; retried until each has answered).
    private func moved(_ moved: HouseholdStore.Moved, context: RequestContext) async -> HouseholdInfo {
        let members = moved.info.members.map(\.user)
        changed(households: moved.households, users: Array(Set(moved.users + members)).sorted())
        context.logger.notice("household membership changed", metadata: ["households": "\(moved.households)"])
        await eraser.eraseHouseholds(moved.dissolved, for: context)
        return moved.info
    }

    /// Every user whose household or its number of people changed: their week as the
    /// groceries keep it is out of date too.
    private func changed(households: [String], users: [String]) {
        host.publisher.publish(HouseholdTopics.changed, HouseholdChangedEvent(households: households, users: users))
        for user in users {
            host.publisher.publish(PlannerTopics.planChanged, PlanChangedEvent(user: user, dates: []))
        }
    }
}
