import ArgumentParser
import Glibc

struct Waypost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Routes links and user activities to the right scene of the right app.",
        subcommands: [
            Open.self, Continue.self, Explain.self, Status.self, Monitor.self, Daemon.self,
            Install.self, Uninstall.self, Refresh.self, Doctor.self,
        ])
}

@main
enum Entry {
    static func main() async {
        // `waypost open URI…` is what Exec= openers run on every click. In a statically linked binary
        // the argument parser's reflection costs milliseconds, so plain `open` calls skip it.
        if let request = Open.PlainRequest(Array(CommandLine.arguments.dropFirst())) {
            exit(await Open.open(request.uris, verbose: request.verbose))
        }
        await Waypost.main()
    }
}
