import Foundation
import TestSupport
import Testing

/// A throwaway desktop for one test with the suite's Flatpak app installed: a private session bus
/// (the lab desktop, or the portal one with a screen: Xvfb and openbox) whose environment names the
/// app's installation, host apps (sample_app.py) written as desktop entries, and Waypost installed
/// for the throwaway user by `installWaypost()` (the bus then starts the daemon on demand).
/// `with` tears it all down, sandboxes included, however the test ends.
final class FlatpakDesktop: Sendable {
    private let session: PrivateSession
    private let screen: VirtualScreen?
    private let spawned = ChildProcesses()
    var root: URL { session.root }
    var environment: [String: String] { session.environment }

    static let waypost = Built.waypost.path
    static let sampleApp = Built.sampleApp.path
    static let python = Built.python

    /// Runs `body` on a new desktop, then closes it (also when `body` throws).
    static func with(portal: Bool = false, _ body: (FlatpakDesktop) async throws -> Void) async throws {
        let desktop = try await FlatpakDesktop(app: FlatpakApp.suiteApp, portal: portal)
        do {
            try await body(desktop)
        } catch {
            await desktop.close()
            throw error
        }
        await desktop.close()
    }

    private init(app: FlatpakApp, portal: Bool) async throws {
        var extra = app.environment.merging(["GIO_USE_VFS": "local"]) { $1 }
        let screen = portal ? try await VirtualScreen() : nil
        if let screen {
            // GTK (the portal's chooser) without the accessibility bus, drawn on the CPU.
            extra.merge(["DISPLAY": screen.display, "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "GSK_RENDERER": "cairo"]) { $1 }
        }
        do {
            // A short name: flatpak puts the app's proxy socket at
            // $XDG_RUNTIME_DIR/.dbus-proxy/session-bus-proxy-XXXXXX, and a socket's path has 107 bytes.
            session = try await PrivateSession(name: "waypost-fp", desktop: portal ? .portal : .lab, extraEnvironment: extra)
        } catch {
            screen?.stop()
            throw error
        }
        self.screen = screen
        do {
            try await screen?.startWindowManager(environment: session.environment, readyFile: session.root.appendingPathComponent("openbox-ready"))
        } catch {
            screen?.stop()
            session.close()
            throw error
        }
    }

    /// Ends every sandbox of the session and every program the test started, stops the bus (the
    /// daemon and the portal exit with it), waits until the document portal's mount is gone, then
    /// stops the screen and removes the session's files.
    func close() async {
        for pid in sandboxes() { kill(pid, SIGKILL) }
        spawned.killAll()
        session.stopBus()
        try? await waitUntil("the sandboxes and the document portal are gone", seconds: 10) {
            self.sandboxes().isEmpty && self.session.mounts().isEmpty
        }
        screen?.stop()
        session.close()
    }

    /// The pid of each live sandbox's first process, from flatpak's instance records in the
    /// session's runtime directory (`flatpak ps` reads the same); killing it ends the sandbox. A
    /// record outlives its sandbox, so a pid counts only while its root's `/.flatpak-info` names
    /// that instance (never a newer process that took the number).
    private func sandboxes() -> [Int32] {
        let instances = root.appendingPathComponent("runtime/.flatpak")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: instances.path) else { return [] }
        return names.compactMap { name in
            guard let data = try? Data(contentsOf: instances.appendingPathComponent(name).appendingPathComponent("bwrapinfo.json")),
                let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let pid = (info["child-pid"] as? Int).map(Int32.init),
                let sandbox = try? String(contentsOfFile: "/proc/\(pid)/root/.flatpak-info", encoding: .utf8),
                sandbox.split(separator: "\n").contains("instance-id=\(name)")
            else { return nil }
            return pid
        }
    }

    /// Whether something (the document portal's FUSE mount) is mounted below the session's root.

    var busLog: String { session.busLog }

    // MARK: Host apps and Waypost

    /// Installs `sample_app.py` as the desktop entry of a host app declaring `scheme`, with one
    /// window group, `main`, and the `scenes` it opens at start (id, preferring, allowing).
    func installHostApp(_ id: String, scheme: String, scenes: [(id: String, preferring: [String], allowing: [String])]) async throws {
        try writeConfig(SampleConfig(appID: id, log: log(of: id), scenes: scenes), to: root.appendingPathComponent("\(id).json"))
        try """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(Self.python) \(Self.sampleApp) \(root.appendingPathComponent("\(id).json").path)
            MimeType=x-scheme-handler/\(scheme);
            X-Waypost=true

            """.write(to: root.appendingPathComponent("data/applications/\(id).desktop"), atomically: true, encoding: .utf8)
        try await run("/usr/bin/update-desktop-database", [root.appendingPathComponent("data/applications").path])
    }

    /// Starts a host app as the user would; returns once it says it is ready.
    func startHostApp(_ id: String) async throws {
        let stderr = root.appendingPathComponent("logs/\(id).stderr")
        let process = try await ChildProcess.start(
            Self.python, [Self.sampleApp, root.appendingPathComponent("\(id).json").path], environment: environment, errors: stderr)
        spawned.add(process)
        guard try await process.nextLine("\(id) is ready") == "ready" else {
            throw TestFailure("\(id) ended before it was ready: \((try? String(contentsOf: stderr, encoding: .utf8)) ?? "")\n\(busLog)")
        }
    }

    /// `waypost install --user`: the handler and the bus's service file for the throwaway user.
    func installWaypost() async throws {
        let install = try await run(Self.waypost, ["install", "--user"])
        guard install.status == 0 else { throw TestFailure("waypost install failed: \(install.output)\(install.errors)") }
    }

    func log(of id: String) -> URL { root.appendingPathComponent("logs/\(id).events") }

    // MARK: The Flatpak app

    /// The one host directory the sandbox sees (read-write): `~/.var/app/ID`, at the same path inside.
    var sandboxData: URL { root.appendingPathComponent("home/.var/app/\(FlatpakApp.id)") }
    /// Where the Flatpak app logs what it receives (below its own data directory).
    var flatpakLog: URL { sandboxData.appendingPathComponent("data/events.log") }

    /// Writes the Flatpak app's config where it reads it (`$XDG_CONFIG_HOME` inside the sandbox):
    /// it registers as `appID` (its own id unless a test says otherwise) with `scenes`.
    func configureFlatpakApp(as appID: String = FlatpakApp.id, scenes: [(id: String, preferring: [String], allowing: [String])]) throws {
        let config = sandboxData.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sandboxData.appendingPathComponent("data"), withIntermediateDirectories: true)
        try writeConfig(SampleConfig(appID: appID, log: flatpakLog, scenes: scenes), to: config.appendingPathComponent("waypost-sample.json"))
    }

    /// Starts the Flatpak app as its entry's `flatpak run` does (dying with the test), and returns
    /// the first line it prints: `ready`, or `refused ERROR` when its registration was refused.
    func startFlatpakApp() async throws -> String {
        let stderr = root.appendingPathComponent("logs/flatpak-app.stderr")
        let process = try await ChildProcess.start(
            "/usr/bin/flatpak", ["run", "--die-with-parent", FlatpakApp.id], environment: environment, errors: stderr)
        spawned.add(process)
        guard let line = try await process.nextLine("the Flatpak app starts") else {
            throw TestFailure("the Flatpak app ended at once: \((try? String(contentsOf: stderr, encoding: .utf8)) ?? "")\n\(busLog)")
        }
        return line
    }

    /// Starts `waypost-flatpak-open ARGUMENTS` in a sandbox of the Flatpak app (dying with the test).
    func openInSandbox(_ arguments: [String]) async throws -> ChildProcess {
        let process = try await ChildProcess.start(
            "/usr/bin/flatpak", ["run", "--die-with-parent", "--command=waypost-flatpak-open", FlatpakApp.id] + arguments,
            environment: environment, errors: root.appendingPathComponent("logs/flatpak-open.stderr"))
        spawned.add(process)
        return process
    }

    // MARK: What the apps received

    /// The JSON lines an app logged.
    func events(in log: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The links an app was handed, as "EVENT SCENE URI" (`CreateScene` names the new scene).
    func links(in log: URL) -> [String] {
        events(in: log).compactMap { event in
            guard let uri = event["uri"] as? String ?? (event["payload"] as? [String: Any])?["uri"] as? String else { return nil }
            return "\(event["event"] ?? "?") \(event["scene"] ?? "-") \(uri)"
        }
    }

    // MARK: Running things in the session

    @discardableResult
    func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProgram(program, arguments, environment: environment)
    }

    /// `waypost status`: the apps and scenes the dispatcher knows.
    func status() async throws -> String { try await run(Self.waypost, ["status"]).output }

    /// `waypost monitor --full`, once it watches: each routed event as the user sees it.
    func monitor() async throws -> RoutedEvents {
        let process = try await ChildProcess.start(Self.waypost, ["monitor", "--full"], environment: environment, errors: root.appendingPathComponent("logs/monitor.stderr"))
        spawned.add(process)
        guard try await process.nextLine("waypost monitor watches")?.hasPrefix("watching") == true else { throw TestFailure("waypost monitor did not start\n\(busLog)") }
        return RoutedEvents(process: process, busLog: { self.busLog })
    }

    // MARK: The screen (portal desktop)

    /// The titles of the windows the window manager manages (`wmctrl -l`: id, desktop, host, title).
    func windowTitles() async throws -> [String] {
        try await run("/usr/bin/wmctrl", ["-l"]).output.split(separator: "\n").map {
            $0.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true).dropFirst(3).joined()
        }
    }
}

/// `sample_app.py`'s config: one window group, `main`, and the scenes it opens at start.
private struct SampleConfig {
    let appID: String
    let log: URL
    let scenes: [(id: String, preferring: [String], allowing: [String])]
}

private func writeConfig(_ config: SampleConfig, to file: URL) throws {
    let json: [String: Any] = [
        "app_id": config.appID, "log": config.log.path, "behaviour": [String: String](),
        "declarations": [["main", ["kind": "window-group"]]],
        "scenes": config.scenes.map { ["id": $0.id, "declaration": "main", "modifiers": [[$0.preferring, $0.allowing]]] },
    ]
    try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: file)
}
