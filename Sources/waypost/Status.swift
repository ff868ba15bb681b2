import ArgumentParser
import DBus
import Glibc
import WaypostContract

/// `waypost status`: every live process and open scene, in search order, with their sets.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show registered apps, their processes and scenes.")

    func run() async throws {
        let connection = try await BusClient.connect()
        let reply = try await BusClient.callDispatcher(connection, Contract.Dispatcher1.status)
        let (rawProcesses, rawScenes) = try reply.decode([[String: Variant]].self, [[String: Variant]].self)
        let processes = try BusClient.decode("Status reply") { () throws(Contract.KeyError) in
            try rawProcesses.map { process throws(Contract.KeyError) in try Contract.ProcessStatus(process) }
        }
        let scenes = try BusClient.decode("Status reply") { () throws(Contract.KeyError) in
            try rawScenes.map { scene throws(Contract.KeyError) in try Contract.SceneStatus(scene) }
        }
        print(processes.isEmpty ? "no participating app is running" : "processes (most recently active first):")
        for process in processes {
            print("  \(process.appID)  \(process.owner)  pid \(process.pid)\(process.singleScene ? ", single scene" : "")")
        }
        if !scenes.isEmpty { print("scenes (search order within each app):") }
        for scene in scenes {
            let preferring = scene.modifiers.flatMap(\.preferring)
            let allowing = scene.modifiers.flatMap(\.allowing)
            print(
                "  \(scene.appID)  \(scene.sceneID) (\(scene.declarationID))"
                    + "  preferring \(preferring)  allowing \(allowing)")
        }
    }
}

/// `waypost monitor`: prints each routed event as it happens.
struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "monitor", abstract: "Print every event the dispatcher routes, live.")

    @Option(help: "Exit after this many events.")
    var count: Int?

    @Flag(help: "Show whole URIs, query and fragment included (otherwise scheme, host and path).")
    var full = false

    func run() async throws {
        let connection = try await BusClient.connect()
        // Signals from the checked dispatcher only: no other connection can make a line appear here.
        let dispatcher = try await BusClient.dispatcher(connection)
        let events = try await connection.signals(
            matching: MatchRule(sender: dispatcher, interface: Contract.Dispatcher1.interface, member: Contract.Dispatcher1.routed.name))
        _ = try await BusClient.callDispatcher(
            connection, Contract.Dispatcher1.monitorRouted, Contract.MonitorOptions(fullURIs: full).variants)
        print("watching \(Contract.busName); Ctrl-C to stop")
        fflush(nil)  // a pipe or file gets each line as it happens
        var seen = 0
        for try await message in events {
            guard let (event, outcome) = try? message.decode(String.self, [String: Variant].self) else { continue }
            let report = BusClient.outcome(outcome)
            let opener = report.opener.map { " (opened by \($0))" } ?? ""
            if let error = report.error {
                print("\(event) ✗ \(error.errorName.rawValue): \(report.reason ?? "")\(opener)")
            } else {
                // In a Wayland session, where it matters; said before the opener, which ends the line.
                let untokened = report.token == false && getenv("WAYLAND_DISPLAY") != nil
                    ? ", no token: a Wayland compositor leaves its window where it is" : ""
                print(report.line(for: event) + (report.micros.map { " \($0) µs" } ?? "") + untokened + opener)
            }
            fflush(nil)
            seen += 1
            if let count, seen >= count { return }
        }
    }
}
