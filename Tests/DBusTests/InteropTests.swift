import DBus
import Foundation
import Testing
import TestSupport

/// Runs a program to its end on `busAddress`; returns its status and what it printed, stdout then
/// stderr.
func run(_ executable: String, _ arguments: [String], busAddress: String) async throws -> (Int32, String) {
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
    let (status, output, errors) = try await runProgram(executable, arguments, environment: environment)
    return (status, output + errors)
}

private let pyInterface: InterfaceName = "org.waypost.Py"
private let swiftInterface: InterfaceName = "org.waypost.Swift"

/// Peers nobody here wrote: a GDBus service in Python, and the `gdbus` and `dbus-send` tools.
@Suite(.privateBus) struct InteropTests {
    @Test func callsAServiceExportedWithGDBusInPython() async throws {
        let bus = try PrivateBus.suiteBus
        let name: BusName = "org.waypost.Py"
        let client = try await bus.connect()
        let appeared = try await client.nameOwnerChanges(for: name)
        let script = try #require(Bundle.module.url(forResource: "gio_service", withExtension: "py", subdirectory: "Fixtures"))
        let python = try await ChildProcess.start(
            "/usr/bin/python3", [script.path, name.rawValue],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"])
        defer { python.kill() }
        _ = try await withDeadline {
            for try await change in appeared where change.newOwner != nil { return change }
            throw TestFailure("the python service never took its name")
        }

        let sum = try await client.call(
            destination: name, path: "/org/waypost/Py", interface: pyInterface, member: "Add", Int32(40), Int32(2))
        #expect(try sum.decode(Int32.self) == 42)
        let options: [String: Variant] = ["url": "myscheme://hello", "count": 3, "flags": .array(element: "s", [])]
        let described = try await client.call(
            destination: name, path: "/org/waypost/Py", interface: pyInterface, member: "Describe", options
        ).decode([String].self)
        #expect(described == ["count=3", "flags=[]", "url='myscheme://hello'"])
        let pair = try await client.call(
            destination: name, path: "/org/waypost/Py", interface: pyInterface, member: "Pair"
        ).decode(Structure<String, [String: Variant]>.self)
        #expect(pair.fields.0 == "scene")
        #expect(pair.fields.1 == ["index": .uint32(2)])
        let error = await #expect(throws: BusError.self) {
            try await client.call(destination: name, path: "/org/waypost/Py", interface: pyInterface, member: "Fail")
        }
        #expect(error == BusError("org.waypost.Py.Error.Nope", "python says no"))
    }

    @Test func isCalledByGdbusAndDbusSend() async throws {
        let bus = try PrivateBus.suiteBus
        let service = try await bus.connect()
        let name: BusName = "org.waypost.SwiftService"
        #expect(try await service.requestName(name) == .primaryOwner)
        try service.export(
            "/org/waypost/Swift",
            interfaces: [
                Interface(swiftInterface, methods: [
                    Method("Greet", arguments: [Argument("who", "s")], returns: [Argument("greeting", "s")]) { call in
                        let who = try call.arguments(String.self)
                        return try call.reply("hello, \(who)")
                    },
                    Method("Count", arguments: [Argument("options", "a{sv}")], returns: [Argument("count", "u")]) {
                        call in
                        let options = try call.arguments([String: Variant].self)
                        return try call.reply(UInt32(options.count))
                    },
                ])
            ])

        let (gdbusStatus, gdbusOutput) = try await run(
            "/usr/bin/gdbus",
            ["call", "--address", bus.address, "--dest", name.rawValue, "--object-path", "/org/waypost/Swift",
             "--method", "org.waypost.Swift.Greet", "gdbus"],
            busAddress: bus.address)
        #expect(gdbusStatus == 0)
        #expect(gdbusOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "('hello, gdbus',)")

        let (countStatus, countOutput) = try await run(
            "/usr/bin/gdbus",
            ["call", "--address", bus.address, "--dest", name.rawValue, "--object-path", "/org/waypost/Swift",
             "--method", "org.waypost.Swift.Count", "{'a': <1>, 'b': <'x'>}"],
            busAddress: bus.address)
        #expect(countStatus == 0)
        #expect(countOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "(uint32 2,)")

        let (sendStatus, sendOutput) = try await run(
            "/usr/bin/dbus-send",
            ["--bus=\(bus.address)", "--print-reply", "--dest=\(name)", "/org/waypost/Swift",
             "org.waypost.Swift.Greet", "string:dbus-send"],
            busAddress: bus.address)
        #expect(sendStatus == 0)
        #expect(sendOutput.contains("string \"hello, dbus-send\""))

        // A wrong argument type from a foreign caller gets InvalidArgs.
        let (wrongStatus, wrongOutput) = try await run(
            "/usr/bin/dbus-send",
            ["--bus=\(bus.address)", "--print-reply", "--dest=\(name)", "/org/waypost/Swift",
             "org.waypost.Swift.Greet", "int32:5"],
            busAddress: bus.address)
        #expect(wrongStatus != 0)
        #expect(wrongOutput.contains("org.freedesktop.DBus.Error.InvalidArgs"))

        // gdbus parses our introspection XML with GLib's parser.
        let (introspectStatus, introspection) = try await run(
            "/usr/bin/gdbus",
            ["introspect", "--address", bus.address, "--dest", name.rawValue, "--object-path", "/org/waypost/Swift"],
            busAddress: bus.address)
        #expect(introspectStatus == 0)
        #expect(introspection.contains("interface org.waypost.Swift {"))
        #expect(introspection.contains("Greet(in  s who,"))

        let (pingStatus, _) = try await run(
            "/usr/bin/dbus-send",
            ["--bus=\(bus.address)", "--print-reply", "--dest=\(name)", "/org/waypost/Swift",
             "org.freedesktop.DBus.Peer.Ping"],
            busAddress: bus.address)
        #expect(pingStatus == 0)
    }
}
