import DBus
import Foundation
import Testing
import TestSupport

/// What the dispatcher relies on to hand a link to a running DBusActivatable browser in one round
/// trip: a call that asks the bus not to start the service fails at once when nobody owns the name,
/// and starts nothing.
@Suite struct AutoStartTests {
    @Test func aCallWithoutAutoStartDoesNotStartAnActivatableService() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        let marker = desktop.root.appendingPathComponent("started")
        let services = desktop.root.appendingPathComponent("data/dbus-1/services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        try "[D-BUS Service]\nName=org.example.Sleeper\nExec=/bin/sh -c 'touch \(marker.path)'\n"
            .write(to: services.appendingPathComponent("org.example.Sleeper.service"), atomically: true, encoding: .utf8)
        let connection = try await Connection(address: desktop.address)
        defer { connection.close() }

        await #expect(throws: BusError.self) {
            _ = try await connection.call(
                destination: "org.example.Sleeper", path: "/org/example/Sleeper", interface: "org.freedesktop.Application",
                member: "Activate", [String: Variant](), timeout: .seconds(5), autoStart: false)
        }
        do {
            _ = try await connection.call(
                destination: "org.example.Sleeper", path: "/org/example/Sleeper", interface: "org.freedesktop.Application",
                member: "Activate", [String: Variant](), timeout: .seconds(5), autoStart: false)
        } catch let error as BusError {
            #expect(error.name == .nameHasNoOwner, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the bus started the service")

        // The same call with auto-start does start it (the service exits without taking the name).
        _ = try? await connection.call(
            destination: "org.example.Sleeper", path: "/org/example/Sleeper", interface: "org.freedesktop.Application",
            member: "Activate", [String: Variant](), timeout: .seconds(1))
        try await waitUntil("the bus starts the service") { FileManager.default.fileExists(atPath: marker.path) }
    }
}
