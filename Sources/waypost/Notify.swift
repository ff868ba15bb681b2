import ArgumentParser
import DBus
import WaypostContract

/// `waypost notify`: what becomes of the apps' notifications.
struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Where a click on an app's notification would go.",
        discussion: """
            Apps post notifications through the dispatcher (PostNotification, WaypostKit's \
            Application.notify); a click on one, or on one of its buttons, reaches the scene the \
            rules pick for its target, launching the app when it has exited. See docs/notifications.md.
            """,
        subcommands: [Explain.self])

    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Explain where a click on an app's live notification would be routed now, delivering nothing.")

        @ArgumentParser.Argument(help: "The app that posted it (a desktop-file id without .desktop).")
        var app: String

        @ArgumentParser.Argument(help: "The id the app posted it under.")
        var id: String

        @Option(name: .long, help: "Output format: json or text.")
        var format: waypost.Explain.Format = .json

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await BusClient.callDispatcher(
                connection, Contract.Dispatcher1.explainNotification, app, id, failing: "cannot explain notification \(id) of \(app)")
            try waypost.Explain.printOutcome(reply, format: format)
        }
    }
}
