import ArgumentParser

@main
struct Waypost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Routes links and user activities to the right scene of the right app.",
        subcommands: [
            Open.self, Continue.self, Explain.self, Status.self, Monitor.self, Daemon.self,
            Install.self, Uninstall.self, Refresh.self, Doctor.self,
        ])
}
