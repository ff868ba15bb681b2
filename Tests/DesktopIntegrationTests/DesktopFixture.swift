import Foundation
import Synchronization
import TestSupport
import Testing

/// A throwaway desktop for one test: a private `dbus-daemon` (the lab desktop: it starts only the
/// services the session writes) with its own HOME, XDG_DATA_HOME, XDG_CONFIG_HOME and
/// XDG_RUNTIME_DIR, real desktop entries, and nothing of Waypost's until the test runs `waypost install --user` (the bus then starts the
/// daemon on demand, from the service file install wrote). `close()` tears it all down.
final class ThrowawayDesktop: Sendable {
    private let session: PrivateSession
    var root: URL { session.root }
    var environment: [String: String] { session.environment }
    var address: String { session.address }
    private let spawned = ChildProcesses()

    static let waypost = Built.waypost.path
    static let sampleApp = Built.sampleApp.path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let python = Built.python

    var applications: URL { root.appendingPathComponent("data/applications") }
    var mimeAppsList: URL { root.appendingPathComponent("config/mimeapps.list") }
    var record: URL { root.appendingPathComponent("data/waypost/previous-defaults") }

    /// - Parameters:
    ///   - desktop: the lab desktop, or the portal's (the real portal on the bus).
    ///   - extraEnvironment: for the bus and all it starts (a `DISPLAY`, say).
    init(desktop: ModelledDesktop = .lab, extraEnvironment: [String: String] = [:]) async throws {
        // GIO's D-Bus launches need no GVfs; keep it from looking for one.
        session = try await PrivateSession(
            name: "waypost-desktop", directories: ["files"], desktop: desktop,
            extraEnvironment: ["GIO_USE_VFS": "local"].merging(extraEnvironment) { _, new in new })
    }

    func close() {
        spawned.killAll()
        session.close()  // the daemon the bus started exits when the bus goes away
    }

    deinit { close() }

    /// What the bus and the daemon it started logged, for failure messages.
    var busLog: String { session.busLog }

    // MARK: Apps

    /// Installs `sample_app.py` as a desktop entry with `config`, declaring `mimeTypes`.
    func installApp(
        _ id: String, mimeTypes: [String], participates: Bool = true, declarations: [(String, [String: Any])],
        scenes: [(id: String, declaration: String, modifiers: [([String], [String])])] = [],
        behaviour: [String: String] = [:], associatedDomains: [String] = []
    ) async throws {
        let config: [String: Any] = [
            "app_id": id, "log": log(of: id).path, "behaviour": behaviour,
            "declarations": declarations.map { [$0.0, $0.1] },
            "scenes": scenes.map { ["id": $0.id, "declaration": $0.declaration, "modifiers": $0.modifiers.map { [$0.0, $0.1] }] },
        ]
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: configFile(of: id))
        try await writeEntry(id, """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(Self.python) \(Self.sampleApp) \(configFile(of: id).path)
            MimeType=\(mimeTypes.map { $0 + ";" }.joined())
            X-Waypost=\(participates)
            \(associatedDomains.isEmpty ? "" : "X-Waypost-Associated-Domains=" + associatedDomains.map { $0 + ";" }.joined())

            """)
    }

    /// Installs an app that does not take part: each launch appends its arguments to its log.
    func installPlainApp(_ id: String, mimeTypes: [String], exec: String? = nil) async throws {
        try await writeEntry(id, """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(exec ?? "/bin/sh -c 'echo \"$1\" >> \(log(of: id).path)' sh %u")
            MimeType=\(mimeTypes.map { $0 + ";" }.joined())

            """)
    }

    /// Writes a desktop entry and refreshes `mimeinfo.cache`, as a package install does.
    func writeEntry(_ id: String, _ text: String) async throws {
        try text.write(to: applications.appendingPathComponent("\(id).desktop"), atomically: true, encoding: .utf8)
        try await run("/usr/bin/update-desktop-database", [applications.path])
    }

    func removeEntry(_ id: String) async throws {
        try FileManager.default.removeItem(at: applications.appendingPathComponent("\(id).desktop"))
        try await run("/usr/bin/update-desktop-database", [applications.path])
    }

    /// Installs `json` as the association of `domain`, as a package would (`$XDG_DATA_HOME` here).
    func installAssociation(_ domain: String, _ json: String) throws {
        let directory = root.appendingPathComponent("data/waypost/associations")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: directory.appendingPathComponent("\(domain).json"), options: .atomic)
    }

    /// Writes one of the user's own rules (`$XDG_CONFIG_HOME/waypost/associations/<hosts>.json`).
    func writeUserRule(_ hosts: String, _ json: String) throws {
        let directory = root.appendingPathComponent("config/waypost/associations")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: directory.appendingPathComponent("\(hosts).json"), options: .atomic)
    }

    func configFile(of id: String) -> URL { root.appendingPathComponent("\(id).json") }
    func log(of id: String) -> URL { root.appendingPathComponent("logs/\(id).events") }

    /// Starts the stand-in notification server; returns once it says it owns its name. Its log gets
    /// one JSON line per notification.
    func startNotificationServer() async throws {
        let process = try await ChildProcess.start(
            Self.python, [Self.fixtures.appendingPathComponent("notification_server.py").path, log(of: "notifications").path],
            environment: environment)
        spawned.add(process)
        guard try await process.nextLine("the notification server owns its name") != nil else {
            throw TestFailure("the notification server ended before owning its name")
        }
    }

    /// Starts a process of an installed sample app, as the user would, and returns once it says it is ready.
    func start(_ id: String) async throws {
        let stderr = root.appendingPathComponent("logs/\(id).stderr")
        let process = try await ChildProcess.start(Self.python, [Self.sampleApp, configFile(of: id).path], environment: environment, errors: stderr)
        spawned.add(process)
        guard try await process.nextLine("\(id) is ready") == "ready" else {
            throw TestFailure("\(id) ended before it was ready: \((try? String(contentsOf: stderr, encoding: .utf8)) ?? "")\n\(busLog)")
        }
    }

    /// The JSON lines a sample app logged.
    func events(of id: String) -> [[String: Any]] {
        guard let text = try? String(contentsOf: log(of: id), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func received(_ id: String) -> [[String: Any]] { events(of: id).filter { $0["event"] as? String != "ready" } }
    func readyCount(_ id: String) -> Int { events(of: id).filter { $0["event"] as? String == "ready" }.count }

    /// The lines a plain app logged (one per launch).
    func plainLines(_ id: String) -> [String] {
        ((try? String(contentsOf: log(of: id), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    // MARK: Running things in the session

    /// Runs a program in the session's environment (plus `extra`) and returns its status, stdout and
    /// stderr once it exited. Async all the way: a test blocking a thread of the small cooperative
    /// pool while it waits would starve every other test running beside it.
    @discardableResult
    func run(_ program: String, _ arguments: [String], extra: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProgram(program, arguments, environment: environment.merging(extra) { $1 })
    }

    func waypost(_ arguments: String...) async throws -> (status: Int32, output: String, errors: String) {
        try await run(Self.waypost, arguments)
    }

}

