import ArgumentParser
import DBus
import Dispatcher
import Glibc

/// `waypost status`: every live process and open scene, in search order, with their sets.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show registered apps, their processes and scenes.")

    func run() async throws {
        let connection = try await BusClient.connect()
        let reply = try await BusClient.callDispatcher(connection, "Status")
        let (processes, scenes) = try reply.decode([[String: Variant]].self, [[String: Variant]].self)
        print(processes.isEmpty ? "no participating app is running" : "processes (most recently active first):")
        for process in processes {
            let text = OutcomeText(process)
            let pid = (try? process["pid"]?.decode(as: UInt32.self)).map(String.init) ?? "?"
            let single = (try? process["single-scene"]?.decode(as: Bool.self)) == true ? ", single scene" : ""
            print("  \(text.string("app-id") ?? "?")  \(text.string("owner") ?? "?")  pid \(pid)\(single)")
        }
        if !scenes.isEmpty { print("scenes (search order within each app):") }
        for scene in scenes {
            let text = OutcomeText(scene)
            let modifiers = (try? scene["modifiers"]?.decode(as: [Structure<[String], [String]>].self)) ?? []
            let preferring = modifiers.flatMap { $0.fields.0 }
            let allowing = modifiers.flatMap { $0.fields.1 }
            print(
                "  \(text.string("app-id") ?? "?")  \(text.string("scene-id") ?? "?") (\(text.string("declaration-id") ?? "?"))"
                    + "  preferring \(preferring)  allowing \(allowing)")
        }
    }
}

/// `waypost monitor`: prints each routed event as it happens.
struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print every event the dispatcher routes, live.")

    @Option(help: "Exit after this many events.")
    var count: Int?

    func run() async throws {
        let connection = try await BusClient.connect()
        let events = try await connection.signals(
            matching: MatchRule(interface: Contract.dispatcherInterface, member: "Routed"))
        _ = try await BusClient.callDispatcher(connection, "MonitorRouted")
        print("watching \(Contract.busName); Ctrl-C to stop")
        fflush(nil)  // a pipe or file gets each line as it happens
        var seen = 0
        for try await message in events {
            guard let (event, outcome) = try? message.decode(String.self, [String: Variant].self) else { continue }
            let text = OutcomeText(outcome)
            if let error = text.string("error") {
                print("\(event) ✗ \(error): \(text.string("reason") ?? "")")
            } else {
                let micros = (try? outcome["micros"]?.decode(as: UInt64.self)).map { " \($0) µs" } ?? ""
                print(text.line(for: event) + micros)
            }
            fflush(nil)
            seen += 1
            if let count, seen >= count { return }
        }
    }
}
