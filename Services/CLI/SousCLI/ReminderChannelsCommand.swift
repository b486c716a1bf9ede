public import ArgumentParser
import Foundation
import SousClient
public import SousSchema
import SousWire

extension RemindersCommand {
    /// `sous reminders channels`: where reminders go besides a watching terminal.
    struct Channels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Where your reminders go: your mail, an ntfy topic, a webhook, or your browser (Web Push).",
            discussion: """
                Each reminder is delivered once to each channel that is on, retried for a day if the other end does not take it. \
                A channel whose address is gone for good (a mailbox refused, a webhook or browser subscription gone) is switched \
                off, and you are told on your other channels. Browsers subscribe from the web app's Reminders page.
                """,
            subcommands: [List.self, Add.self, Test.self, Remove.self],
            defaultSubcommand: List.self
        )

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List your channels and quiet hours.")

            @OptionGroup var global: GlobalOptions

            func run() async throws {
                let list = try await global.client(Notifier.self).call(NotifierAPI.channels, Empty(), session: global.token)
                if global.json { return try printJSON(list) }
                printChannels(list)
            }
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a channel.",
                discussion: """
                    sous reminders channels add email ada@example.org
                    sous reminders channels add ntfy my-sous-topic         (https://ntfy.sh/my-sous-topic)
                    sous reminders channels add ntfy https://ntfy.example.org/dinner
                    sous reminders channels add webhook https://example.org/hooks/sous
                    A webhook's signing secret is shown once, here: each delivery carries \
                    Sous-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> (docs/PROTOCOL.md).
                    """)

            @Argument(help: "email, ntfy or webhook (push channels come from the web app).") var kind: ReminderChannelKind
            @Argument(help: "The mail address, ntfy topic or topic URL, or webhook URL.") var address: String
            @Option(help: "A name for it (\"my phone\").") var label: String?
            @OptionGroup var global: GlobalOptions

            func run() async throws {
                let added = try await global.client(Notifier.self).call(
                    NotifierAPI.addChannel, ChannelAdd(kind: kind, address: address, label: label), session: global.token)
                if global.json { return try printJSON(added) }
                Console.current.out("Added \(added.channel.kind.rawValue) channel \(added.channel.id): \(added.channel.address)")
                if let secret = added.secret {
                    Console.current.out("Signing secret (shown once; check each delivery's Sous-Signature with it): \(secret)")
                }
                Console.current.out("Send a test with: sous reminders channels test \(added.channel.id)")
            }
        }

        struct Test: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Send a test message to a channel now and say what happened.",
                discussion: "Exit 0 when it was delivered, 9 when it was not (the reason is printed; a retry is queued unless it failed for good)."
            )

            @Argument(help: "The channel's id (sous reminders channels).") var id: String
            @OptionGroup var global: GlobalOptions

            func run() async throws {
                let result = try await global.client(Notifier.self).call(NotifierAPI.testChannel, ChannelRef(id: id), session: global.token)
                if global.json { try printJSON(result) }
                let delivery = result.delivery
                switch delivery.state {
                case .sent:
                    if !global.json { Console.current.out("Delivered to \(delivery.kind.rawValue) channel \(id).") }
                case .pending:
                    if !global.json {
                        Console.current.out("Not delivered yet: \(delivery.reason ?? "no answer yet"). It will be tried again.")
                    }
                    throw ExitCode(9)
                case .failed:
                    if !global.json { Console.current.out("Not delivered: \(delivery.reason ?? "refused"). The channel is switched off.") }
                    throw ExitCode(9)
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a channel (what is still waiting to go to it is dropped).")

            @Argument(help: "The channel's id.") var id: String
            @OptionGroup var global: GlobalOptions

            func run() async throws {
                let list = try await global.client(Notifier.self).call(NotifierAPI.removeChannel, ChannelRef(id: id), session: global.token)
                if global.json { return try printJSON(list) }
                Console.current.out("Removed channel \(id).")
                printChannels(list)
            }
        }
    }

    /// `sous reminders quiet FROM TO | off`.
    struct Quiet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep channels silent between two hours of your day (a reminder due then is delivered when they end).",
            discussion: "sous reminders quiet 22 7   (22:00 to 07:00, your profile's time zone)\nsous reminders quiet off")

        @Argument(help: "The first quiet hour (0–23), or off.") var from: String
        @Argument(help: "The first hour that is not quiet (0–23).") var to: Int?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let hours: QuietHours?
            if from.lowercased() == "off" {
                hours = nil
            } else {
                guard let start = Int(from), let to else { throw ValidationError("give two hours (sous reminders quiet 22 7) or off") }
                hours = QuietHours(from: start, to: to)
            }
            let list = try await global.client(Notifier.self).call(
                NotifierAPI.setQuietHours, QuietHoursChange(quietHours: hours), session: global.token)
            if global.json { return try printJSON(list) }
            printChannels(list)
        }
    }
}

extension ReminderChannelKind: ExpressibleByArgument {}

private func printChannels(_ list: ChannelList) {
    if list.channels.isEmpty {
        Console.current.out(
            "No channels: reminders reach only `sous reminders watch`. Add one with: sous reminders channels add email you@example.org")
    } else {
        var table = Table([("ID", .left), ("KIND", .left), ("ADDRESS", .left), ("LABEL", .left), ("STATE", .left)])
        for channel in list.channels {
            table.add([
                channel.id, channel.kind.rawValue, channel.address, channel.label ?? "",
                channel.enabled ? "on" : "off: \(channel.disabledReason ?? "")",
            ])
        }
        Console.current.out(table.render())
    }
    if let quiet = list.quietHours {
        Console.current.out(String(format: "Quiet hours: %02d:00 to %02d:00.", quiet.from, quiet.to))
    }
    if !list.mailConfigured { Console.current.out("(This server has no mail relay: email channels cannot be added.)") }
}
