import ArgumentParser
import DBus
import WaypostContract

/// `waypost notify`: what becomes of the apps' notifications.
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Post a notification whose click opens a link, and withdraw it.",
        discussion: """
            Apps post notifications through the dispatcher (PostNotification, WaypostKit's \
            Application.notify); a click on one, or on one of its buttons, reaches the scene the \
            rules pick for its target, launching the app when it has exited; only the app itself may \
            ask where a click would go (ExplainNotification). A script posts a link notification \
            (`waypost notify post`), whose click opens its link as `waypost open` would: at most 8 \
            live of one caller (its app, else its process) and 32 in all. Titles show on one line, \
            bodies as text (their markup escaped). See docs/notifications.md.
            """,
        subcommands: [Post.self, Withdraw.self])

    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "post",
            abstract: "Post a notification whose click opens URI in the scene the rules pick; prints its id.")

        @ArgumentParser.Argument(help: "The notification's title.")
        var title: String

        @Option(name: .long, help: "The notification's body.")
        var body: String = ""

        @Option(name: .long, help: "The link a click opens (as waypost open would).")
        var open: String

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await BusClient.callDispatcher(
                connection, Contract.Dispatcher1.postLinkNotification, title, body, open, failing: "cannot post the notification")
            print(try reply.decode(String.self))
        }
    }

    struct Withdraw: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "withdraw", abstract: "Take a link notification off the screen.")

        @ArgumentParser.Argument(help: "The id `waypost notify post` printed.")
        var id: String

        func run() async throws {
            let connection = try await BusClient.connect()
            _ = try await BusClient.callDispatcher(
                connection, Contract.Dispatcher1.withdrawLinkNotification, id, failing: "cannot withdraw notification \(id)")
        }
    }
}
