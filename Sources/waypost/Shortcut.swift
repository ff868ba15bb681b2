import ArgumentParser
import DBus
import WaypostContract

/// `waypost shortcut APP-ID ACTION`: what a static shortcut's `Exec` line runs (docs/shortcuts.md).
struct Shortcut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shortcut",
        abstract: "Perform an app's static shortcut (a desktop action with Waypost keys) in the right scene.",
        discussion: """
            Asks the dispatcher to deliver the [Desktop Action ACTION] of APP-ID's installed desktop \
            entry, which must carry X-Waypost-Shortcut-Type (and may carry \
            X-Waypost-Target-Content-Identifier and X-Waypost-User-Info, a JSON object), as a user \
            activity of that type: to the scene the rules pick, a new scene, or the app launched. Only \
            APP-ID gets it, and only what its entry declares. The opener's XDG_ACTIVATION_TOKEN and \
            DESKTOP_STARTUP_ID reach the scene. With --explain, prints where it would go and why, \
            delivering nothing.
            """)

    @ArgumentParser.Argument(help: "The app's desktop-file id, without .desktop.")
    var appID: String

    @ArgumentParser.Argument(help: "The action's name, as the entry's Actions= lists it.")
    var action: String

    @Flag(help: "Print where the shortcut would go, and why, without delivering it.")
    var explain = false

    @Option(name: .long, help: "With --explain, the output format: json or text.")
    var format: Explain.Format = .json

    @Flag(name: .shortAndLong, help: "Print where the shortcut went.")
    var verbose = false

    func run() async throws {
        let connection = try await BusClient.connect()
        let what = "cannot perform shortcut \(action) of \(appID)"
        if explain {
            let reply = try await BusClient.callDispatcher(
                connection, Contract.Dispatcher1.explainShortcut, appID, action, failing: what)
            return try Explain.printOutcome(reply, format: format)
        }
        let reply = try await BusClient.callDispatcher(
            connection, Contract.Dispatcher1.performShortcut, appID, action, Continue.platformData,
            timeout: BusClient.routingTimeout, failing: what)
        if verbose { print(BusClient.outcome(try reply.decode([String: Variant].self)).line(for: "\(appID) \(action)")) }
    }
}
