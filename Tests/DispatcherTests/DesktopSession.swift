import DBus
import Foundation
import TestSupport
import Testing

/// A private desktop session for one test: its own `dbus-daemon`, a throwaway HOME and XDG
/// directories with real desktop entries, and the dispatcher installed as a D-Bus activatable
/// service (the bus starts it on the first call, as on a real desktop). Torn down by `close()`.
final class DesktopSession: TestDesktop {
    private let session: PrivateSession
    var root: URL { session.root }
    var environment: [String: String] { session.environment }
    var address: String { session.address }
    private let spawned = ChildProcesses()

    static let waypost: URL = {
        if let path = ProcessInfo.processInfo.environment["WAYPOST"] { return URL(fileURLWithPath: path) }
        // The test bundle is an executable in the build directory, next to the products it tests.
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("waypost")
    }()

    static let sampleApp = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Apps/sample_app.py")


    /// The interpreter Debian's python3-dbus and python3-gi are installed for.
    static let python = "/usr/bin/python3"

    /// - Parameters:
    ///   - launchTimeout: seconds the dispatcher waits for a launched app to register.
    ///   - deliveryTimeout: seconds it waits for an app to acknowledge an event: the daemon's own
    ///     default, which a Python sample app meets even on a loaded machine; a test of the timeout
    ///     itself passes a shorter one.
    ///   - daemonWrapper: a command the bus runs the daemon under (its words before `waypost`).
    init(launchTimeout: Double = 5, deliveryTimeout: Double = 5, daemonWrapper: [String] = []) async throws {
        let service = """
            [D-BUS Service]
            Name=io.waypost.Dispatcher
            Exec=\((daemonWrapper + [Self.waypost.path]).joined(separator: " ")) daemon --verbose --launch-timeout \(launchTimeout) --delivery-timeout \(deliveryTimeout)

            """
        session = try await PrivateSession(
            name: "waypost-session"
        ) { root in
            try service.write(
                to: root.appendingPathComponent("data/dbus-1/services/io.waypost.Dispatcher.service"), atomically: true,
                encoding: .utf8)
        }
    }

    /// Stops everything the session started and removes its files.
    func close() {
        spawned.killAll()
        session.close()
    }

    deinit { close() }

    /// Stops the bus alone, as when the session ends under the daemon.
    func stopBus() { session.stopBus() }

    /// What the daemon and the bus logged, for failure messages.
    var busLog: String { session.busLog }

    func connect() async throws -> Connection { try await Connection(address: address) }

    // MARK: Apps

    /// Installs a participating app: a desktop entry that runs `sample_app.py` with its config.
    @discardableResult
    func installApp(_ app: SampleApp) async throws -> SampleApp {
        var config = app.config
        config["log"] = log(of: app.id).path
        let configFile = root.appendingPathComponent("\(app.id).json")
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: configFile)
        let mimeTypes = app.schemes.map { "x-scheme-handler/\($0);" }.joined()
        var entry = """
            [Desktop Entry]
            Type=Application
            Name=\(app.id)
            Exec=\(Self.python) \(Self.sampleApp.path) \(configFile.path)
            MimeType=\(mimeTypes)
            X-Waypost=\(app.participates)

            """
        if !app.activityTypes.isEmpty { entry += "X-Waypost-Activity-Types=\(app.activityTypes.joined(separator: ";"));\n" }
        try await writeEntry(id: app.id, entry)
        return app
    }

    /// Installs a desktop entry as given, then refreshes `mimeinfo.cache` as a package install would.
    func writeEntry(id: String, _ text: String) async throws {
        try text.write(to: root.appendingPathComponent("data/applications/\(id).desktop"), atomically: true, encoding: .utf8)
        try await run("/usr/bin/update-desktop-database", [root.appendingPathComponent("data/applications").path])
    }

    /// Starts a process of an installed app, as the user would, and returns once it says it is ready.
    @discardableResult
    func start(_ app: SampleApp) async throws -> Int32 {
        let stderr = root.appendingPathComponent("logs/\(app.id).stderr")
        let process = try await ChildProcess.start(
            Self.python, [Self.sampleApp.path, root.appendingPathComponent("\(app.id).json").path],
            environment: environment, errors: stderr)
        spawned.add(process)
        guard await process.nextLine() == "ready" else {
            throw TestFailure("\(app.id) ended before it was ready: \((try? String(contentsOf: stderr, encoding: .utf8)) ?? "")")
        }
        return process.pid
    }

    func log(of appID: String) -> URL { root.appendingPathComponent("logs/\(appID).events") }

    /// The JSON lines an app logged: one per event received, plus `ready` at start.
    func events(of appID: String) -> [[String: Any]] {
        guard let text = try? String(contentsOf: log(of: appID), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    // MARK: Calls

    /// Asks a running sample app to do what its UI would (`io.waypost.test.Control`).
    func control(_ appID: String, pid: Int32? = nil, with connection: Connection, _ member: MemberName,
                 _ arguments: [String], modifiers: [([String], [String])]? = nil) async throws {
        let status = try await connection.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Status")
        let (processes, _) = try status.decode([[String: Variant]].self, [[String: Variant]].self)
        guard let process = processes.first(where: {
            (try? $0["app-id"]?.decode(as: String.self)) == appID
                && (pid == nil || (try? $0["pid"]?.decode(as: UInt32.self)) == UInt32(pid!))
        }), let owner = try? BusName(try process["owner"]!.decode(as: String.self)) else {
            throw TestFailure("no registered process of \(appID)")
        }
        let path: ObjectPath = "/io/waypost/sample"
        let control: InterfaceName = "io.waypost.test.Control"
        switch (arguments.count, modifiers) {
        case (1, nil): _ = try await connection.call(destination: owner, path: path, interface: control, member: member, arguments[0])
        case (1, let modifiers?):
            _ = try await connection.call(
                destination: owner, path: path, interface: control, member: member, arguments[0],
                modifiers.map { Structure(($0.0, $0.1)) })
        case (2, let modifiers):
            _ = try await connection.call(
                destination: owner, path: path, interface: control, member: member, arguments[0], arguments[1],
                (modifiers ?? []).map { Structure(($0.0, $0.1)) })
        default: throw TestFailure("unsupported control call")
        }
    }

    static func strings(_ map: [String: Variant]) -> [String: String] {
        map.reduce(into: [:]) { result, entry in
            if case .string(let value) = entry.value { result[entry.key] = value }
            if case .uint32(let value) = entry.value { result[entry.key] = String(value) }
        }
    }

    // MARK: Helpers

    @discardableResult
    func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await runProgram(program, arguments, environment: environment)
        return (result.status, result.output + result.errors)
    }

    /// Runs `waypost` with the session's environment, as a user in that session would.
    func waypost(
        _ arguments: [String], environment extra: [String: String] = [:], directory: URL? = nil
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try await runProgram(
            Self.waypost.path, arguments, environment: environment.merging(extra) { _, new in new }, directory: directory)
        return (result.status, result.output, result.errors)
    }

    /// Starts a long-running program in the session (killed by `close()`); its stdout as lines.
    func spawn(_ program: String, _ arguments: [String]) async throws -> ChildProcess {
        let process = try await ChildProcess.start(program, arguments, environment: environment)
        spawned.add(process)
        return process
    }

}

/// A participating app as the tests install it: `sample_app.py` with a config.
struct SampleApp: Sendable {
    var id: String
    var schemes: [String]
    var activityTypes: [String] = []
    var participates = true
    /// sample_app.py's config (declarations, scenes, behaviour…); `app_id` and `log` are filled in.
    nonisolated(unsafe) var config: [String: Any]

    init(
        _ id: String, schemes: [String], activityTypes: [String] = [], singleScene: Bool = false, announceReady: Bool = false,
        declarations: [(String, [String: Any])], scenes: [(id: String, declaration: String, modifiers: [([String], [String])])] = [],
        behaviour: [String: String] = [:]
    ) {
        self.id = id
        self.schemes = schemes
        self.activityTypes = activityTypes
        config = [
            "app_id": id, "single_scene": singleScene, "announce_ready": announceReady,
            "declarations": declarations.map { [$0.0, $0.1] },
            "scenes": scenes.map { ["id": $0.id, "declaration": $0.declaration, "modifiers": $0.modifiers.map { [$0.0, $0.1] }] },
            "behaviour": behaviour,
        ]
    }
}



