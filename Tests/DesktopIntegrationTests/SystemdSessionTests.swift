import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// A session run by a real systemd user manager, as GNOME's and Plasma's are: the bus asks the
/// manager to start the daemon as `waypost.service` (`SystemdService=`), and the apps the daemon
/// launches are the user's, not the daemon's unit's.
@Suite struct SystemdSessionTests {
    @Test func anAppTheDaemonLaunchedHasAScopeOfItsOwnAndOutlivesTheDaemonsUnit() async throws {
        let desktop = try await ThrowawayDesktop(desktop: .systemd)
        defer { desktop.close() }
        try await desktop.installApp(
            "org.example.Notes", mimeTypes: ["x-scheme-handler/benchnotes"], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "main", declaration: "main", modifiers: [([], ["*"])])])
        let install = try await desktop.waypost("install")
        try #require(install.status == 0, "\(install.errors)")
        let open = try await desktop.run("/usr/bin/gio", ["open", "benchnotes:first"])
        #expect(open.status == 0, "\(open.errors)\n\(desktop.busLog)")
        try await waitUntil("the started app has the link", context: desktop.busLog) { !desktop.received("org.example.Notes").isEmpty }
        let app = pid_t(try #require(desktop.received("org.example.Notes").first?["pid"] as? Int))

        let manager = try await SessionManager(address: desktop.address)
        defer { manager.close() }
        let daemon = try await manager.processID(ofName: "io.waypost.Dispatcher")
        #expect(try await manager.unit(of: daemon) == "waypost.service", "the manager started the daemon")
        let scope = "app-waypost-org.example.Notes-\(app).scope"
        try await waitUntil("the app is in a scope of its own", context: desktop.busLog) { try await manager.unit(of: app) == scope }

        // What `systemctl --user stop waypost` does, or a crash of the daemon: the unit ends.
        try await manager.stop("waypost.service")
        try await waitUntil("the daemon is gone", context: desktop.busLog) { kill(daemon, 0) != 0 }
        #expect(kill(app, 0) == 0, "the app the daemon launched was stopped with it")
        #expect(try await manager.unit(of: app) == scope)
    }
}

/// The session's systemd user manager, asked over the bus as `systemctl --user` asks it.
struct SessionManager {
    let connection: Connection

    init(address: String) async throws { connection = try await Connection(address: address) }

    func close() { connection.close() }

    func processID(ofName name: String) async throws -> pid_t {
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", name, timeout: .seconds(5))
        let pid: UInt32 = try reply.decode(UInt32.self)
        return pid_t(bitPattern: pid)
    }

    /// The unit `pid` belongs to (`GetUnitByPID`, then its `Id`).
    func unit(of pid: pid_t) async throws -> String {
        let path = try await connection.call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1", interface: "org.freedesktop.systemd1.Manager",
            member: "GetUnitByPID", UInt32(pid), timeout: .seconds(5)
        ).decode(ObjectPath.self)
        let id = try await connection.call(
            destination: "org.freedesktop.systemd1", path: path, interface: "org.freedesktop.DBus.Properties",
            member: "Get", "org.freedesktop.systemd1.Unit", "Id", timeout: .seconds(5)
        ).decode(Variant.self)
        guard case .string(let name) = id else { throw TestFailure("the unit's Id is \(id)") }
        return name
    }

    func stop(_ unit: String) async throws {
        _ = try await connection.call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1", interface: "org.freedesktop.systemd1.Manager",
            member: "StopUnit", unit, "replace", timeout: .seconds(5))
    }
}
