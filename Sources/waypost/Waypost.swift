import ArgumentParser

@main
struct Waypost: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Routes links and user activities to the right scene of the right app.",
        subcommands: [Explain.self])
}
