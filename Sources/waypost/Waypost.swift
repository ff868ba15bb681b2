import ArgumentParser
import Dispatch
import Glibc

struct Waypost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waypost",
        abstract: "Routes links and user activities to the right scene of the right app.",
        subcommands: [
            Open.self, Continue.self, Shortcut.self, Activities.self, Notify.self, Explain.self, Status.self, Monitor.self, Daemon.self,
            Install.self, Uninstall.self, Refresh.self, Doctor.self, HandlerFile.self, Links.self, BrowserHost.self,
            HandoffCommand.self, Choices.self, Choose.self,
        ])
}

@main
enum Entry {
    static func main() {
        // `waypost open URI…` is what Exec= openers run on every click. In a statically linked binary
        // the argument parser's reflection costs milliseconds, and the global pool's threads more,
        // so plain `open` calls skip both.
        if let request = Open.PlainRequest(Array(CommandLine.arguments.dropFirst())) {
            exit(CallingThreadExecutor.run { await Open.open(request.uris, verbose: request.verbose) })
        }
        // The chooser's window needs GTK on the main thread, which dispatchMain below keeps for the queue.
        if CommandLine.arguments.dropFirst().first == "choose" {
            Choose.runOnThisThread(Array(CommandLine.arguments.dropFirst()))
        }
        if Daemon.isPlain(CommandLine.arguments.dropFirst()) {
            Task {
                do { try await Daemon.serve(Daemon.Settings()) } catch { Daemon.exit(withError: error) }
                exit(0)
            }
            dispatchMain()
        }
        // Everything else, as an async main would: on the global pool, the main queue served.
        Task {
            await Waypost.main()
            exit(0)
        }
        dispatchMain()
    }
}
