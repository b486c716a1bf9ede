import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous household`: the people you share a plan and a grocery list with.
struct HouseholdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household",
        abstract: "The people you share the week plan and the grocery list with.",
        discussion: """
            Everyone starts alone in a household of their own. The owner invites others with a single-use code; \
            whoever joins shares the plan and the list from then on. Diaries, goals, drinks, foods, the coeliac diary, \
            reminders, personal recipes and each person's diets, allergens and dislikes stay their own.
              sous household invite            # prints a code to give the person you invite
              sous household join K7QM-P2XD-R9TA
              sous household show
            """,
        subcommands: [
            Show.self, Rename.self, People.self, Invite.self, Invitations.self, Revoke.self, Join.self, Leave.self, Remove.self, Transfer.self,
            AllowInvites.self,
        ]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your household: its name, members and how many people it cooks for.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let household = try await global.client(Planner.self).call(HouseholdAPI.get, Empty(), session: global.token)
            if global.json { return try printJSON(household) }
            printHousehold(household)
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename the household (owner only).")
        @Argument(help: "The new name, 1 to 80 characters.") var name: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let household = try await global.client(Planner.self).call(HouseholdAPI.update, HouseholdUpdate(name: name), session: global.token)
            if global.json { return try printJSON(household) }
            printHousehold(household)
        }
    }

    struct People: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How many people the plan and the list are for (owner only): 1 to 20, or `members` for the number of members.")
        @Argument(help: "A number from 1 to 20, or `members`.") var people: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let count: Int
            if people == "members" {
                count = 0
            } else {
                guard let number = Int(people), (1...20).contains(number) else {
                    throw ValidationError("PEOPLE is a number from 1 to 20, or `members`")
                }
                count = number
            }
            let household = try await global.client(Planner.self).call(
                HouseholdAPI.update, HouseholdUpdate(people: count), session: global.token)
            if global.json { return try printJSON(household) }
            printHousehold(household)
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a single-use invitation code (the owner, or a member the owner allowed).",
            discussion: "Give the code to the person you invite; they run `sous household join CODE`. It works once.")
        @Option(help: "Days until the code expires, 1 to 30.") var days: Int = 7
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let made = try await global.client(Planner.self).call(HouseholdAPI.invite, InvitationRequest(days: days), session: global.token)
            if global.json { return try printJSON(made) }
            Console.current.out("Invitation code: \(made.code)")
            Console.current.out(
                "Valid once, until \(made.invitation.expiresAt.formatted(date: .abbreviated, time: .shortened)) (id \(made.invitation.id)).")
            Console.current.out("The person you invite runs: sous household join \(made.code)")
        }
    }

    struct Invitations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The household's pending invitations (the codes themselves are shown only once).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(HouseholdAPI.invitations, Empty(), session: global.token)
            if global.json { return try printJSON(list) }
            printInvitations(list)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a pending invitation by its id (the owner, or whoever made it).")
        @Argument(help: "The invitation's id (from `sous household invitations`).") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(HouseholdAPI.revokeInvitation, InvitationRef(id: id), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out("Revoked \(id).")
            printInvitations(list)
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join the household of an invitation code.",
            discussion: """
                From then on you share its plan and grocery list. If you were alone, your own plan and list are erased; \
                if others stay in the household you leave, they keep them.
                """)
        @Argument(help: "The code, e.g. K7QM-P2XD-R9TA (any case, dashes optional).") var code: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let household = try await global.client(Planner.self).call(HouseholdAPI.join, JoinHousehold(code: code), session: global.token)
            if global.json { return try printJSON(household) }
            Console.current.out("You joined \(household.name).")
            printHousehold(household)
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Leave the household for one of your own, with an empty plan and list.",
            discussion: "An owner hands ownership on first (`sous household transfer USER`). Your diary and everything else of your own stays yours.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let household = try await global.client(Planner.self).call(HouseholdAPI.leave, Empty(), session: global.token)
            if global.json { return try printJSON(household) }
            Console.current.out("You left; you are alone in a new household of your own.")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member (owner only); they get a household of their own.")
        @Argument(help: "The member's user id (from `sous household show`).") var user: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let household = try await global.client(Planner.self).call(HouseholdAPI.remove, MemberRef(user: user), session: global.token)
            if global.json { return try printJSON(household) }
            printHousehold(household)
        }
    }

    struct Transfer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hand ownership to another member (owner only).")
        @Argument(help: "The member's user id.") var user: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let household = try await global.client(Planner.self).call(HouseholdAPI.transfer, MemberRef(user: user), session: global.token)
            if global.json { return try printJSON(household) }
            printHousehold(household)
        }
    }

    struct AllowInvites: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "allow-invites", abstract: "Let a member invite others, or stop them (owner only).")
        @Argument(help: "The member's user id.") var user: String
        @Flag(inversion: .prefixedNo, help: "Whether they may invite.") var allow: Bool = true
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let household = try await global.client(Planner.self).call(
                HouseholdAPI.allowInvites, InvitePermission(user: user, mayInvite: allow), session: global.token)
            if global.json { return try printJSON(household) }
            printHousehold(household)
        }
    }
}

func printHousehold(_ household: HouseholdInfo) {
    let people = household.peopleOverride.map { "\($0) (set by the owner)" } ?? "\(household.people)"
    Console.current.out("\(household.name): cooks for \(people)")
    var table = Table([("member", .left), ("user", .left), ("role", .left), ("may invite", .left), ("joined", .left)])
    for member in household.members {
        let joined = member.joinedAt.formatted(date: .abbreviated, time: .omitted)
        table.add([member.name.isEmpty ? "-" : member.name, member.user, member.role.rawValue, member.mayInvite ? "yes" : "no", joined])
    }
    Console.current.out(table.render())
}

func printInvitations(_ list: Invitations) {
    guard !list.invitations.isEmpty else { return Console.current.out("No pending invitations.") }
    var table = Table([("id", .left), ("made by", .left), ("expires", .left)])
    for invitation in list.invitations {
        table.add([invitation.id, invitation.createdBy, invitation.expiresAt.formatted(date: .abbreviated, time: .shortened)])
    }
    Console.current.out(table.render())
}
