// What the integration test targets share: bounded waits and a private desktop session (programs
// are started in ChildProcess.swift).
public import Foundation
import Synchronization

/// A fixture that could not do what a test needed.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` until it holds, for at most `seconds` (a bound for a loaded machine, not a
/// figure: the tests assert what happens, never how fast).
/// The failure carries `context` (a session's bus log, say).
public func waitUntil(
    _ what: String, seconds: Double = 30, context: @autoclosure () -> String = "", _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("timed out waiting until \(what)\n\(context())")
}

/// A throwaway desktop session: HOME and the XDG directories under one temporary root, and a
/// private `dbus-daemon` (never the user's bus) started from a config file with that environment, so
/// that the services it activates inherit it. `close()` kills the bus and removes the root.
public final class PrivateSession: Sendable {
    public let root: URL
    public let address: String
    /// The session's environment, `DBUS_SESSION_BUS_ADDRESS` included.
    public let environment: [String: String]
    private let bus: ChildProcess

    /// - Parameters:
    ///   - name: a prefix for the temporary root's name.
    ///   - directories: made below the root besides home, data/applications, data/dbus-1/services,
    ///     config, runtime and logs.
    ///   - configFile: the bus's config (it should list `<standard_session_servicedirs/>`).
    ///   - extraEnvironment: set for the bus and everything started in the session.
    ///   - prepare: runs once the directories exist, before the bus starts (service files…).
    public init(
        name: String, directories: [String] = [], configFile: URL, extraEnvironment: [String: String] = [:],
        prepare: (URL) throws -> Void = { _ in }
    ) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        for dir in ["home", "data/applications", "data/dbus-1/services", "config", "runtime", "logs"] + directories {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.appendingPathComponent("runtime").path)
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in ["PATH", "LANG", "LC_ALL", "TMPDIR"].contains(key) }
        environment["HOME"] = root.appendingPathComponent("home").path
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = root.appendingPathComponent("cache").path
        environment["XDG_RUNTIME_DIR"] = root.appendingPathComponent("runtime").path
        // The machine's MIME database and GSettings schemas, and nothing of its apps: a browser
        // installed on the machine (Chromium, for the extension's tests) would otherwise be every
        // session's https handler of last resort.
        let systemData = root.appendingPathComponent("system-data")
        try FileManager.default.createDirectory(at: systemData, withIntermediateDirectories: true)
        for shared in ["mime", "glib-2.0"] {
            try FileManager.default.createSymbolicLink(atPath: systemData.appendingPathComponent(shared).path, withDestinationPath: "/usr/share/" + shared)
        }
        environment["XDG_DATA_DIRS"] = systemData.path
        environment["XDG_CONFIG_DIRS"] = root.appendingPathComponent("config").path
        environment.merge(extraEnvironment) { _, new in new }
        try prepare(root)

        // The address it prints is its word that it listens.
        bus = try await ChildProcess.start(
            "/usr/bin/dbus-daemon", ["--config-file=\(configFile.path)", "--nofork", "--print-address=1"],
            environment: environment, errors: root.appendingPathComponent("logs/bus.log"))
        guard let address = await bus.nextLine(), !address.isEmpty else {
            bus.kill()
            throw TestFailure("dbus-daemon printed no address")
        }
        self.address = address
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment
    }

    /// Kills the bus alone, as when the session ends under its services (they exit with it).
    /// SIGKILL: dbus-daemon does not always stop on SIGTERM while clients are connected.
    public func stopBus() { bus.kill() }

    /// Kills the bus and removes every file of the session.
    public func close() {
        stopBus()
        try? FileManager.default.removeItem(at: root)
    }

    /// What the bus and the services it started logged, for failure messages.
    public var busLog: String {
        (try? String(contentsOf: root.appendingPathComponent("logs/bus.log"), encoding: .utf8)) ?? ""
    }
}
