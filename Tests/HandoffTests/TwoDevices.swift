import Foundation
import TestSupport
import Testing

/// One device of a handoff test: its own Xvfb (kdeconnectd opens shared URLs only with a display,
/// and `xdg-open` honours scheme defaults only with `DISPLAY` set), private session bus (a socket
/// file: kdeconnectd runs in a network namespace, where the bus's abstract socket is not), throwaway
/// XDG home with real desktop entries, and Waypost installed there with `waypost install --user`.
final class Device: Sendable {
    let name: String
    let session: PrivateSession
    let screen: VirtualScreen
    private let spawned = ChildProcesses()
    var root: URL { session.root }
    var environment: [String: String] { session.environment }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let sampleApp = Built.sampleApp.path
    static let python = Built.python
    static let waypost = Built.waypost.path

    init(name: String) async throws {
        self.name = name
        let screen = try await VirtualScreen(size: "640x480x24")
        self.screen = screen
        do {
            session = try await PrivateSession(
                name: "waypost-handoff-\(name)",
                extraEnvironment: ["DISPLAY": screen.display, "GIO_USE_VFS": "local", "XDG_CURRENT_DESKTOP": "X-Generic"])
        } catch {
            screen.stop()
            throw error
        }
    }

    func close() {
        spawned.killAll()
        session.close()
        screen.stop()
    }

    func spawnedDunst(_ process: ChildProcess) { spawned.add(process) }

    /// Installs `sample_app.py` as a participating app continuing `activityTypes`.
    func installApp(
        _ id: String, activityTypes: [String], scenes: [(id: String, modifiers: [([String], [String])])] = [],
        behaviour: [String: String] = [:], publish: (scene: String, type: String, activity: [String: Any])? = nil,
        associatedDomains: [String] = [], schemes: [String] = []
    ) async throws {
        var config: [String: Any] = [
            "app_id": id, "log": log(of: id).path, "behaviour": behaviour,
            "declarations": [["main", ["kind": "window-group"]]],
            "scenes": scenes.map { ["id": $0.id, "declaration": "main", "modifiers": $0.modifiers.map { [$0.0, $0.1] }] },
        ]
        if let publish { config["publish"] = [publish.scene, publish.type, publish.activity] }
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: configFile(of: id))
        try await writeEntry(id, """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(Self.python) \(Self.sampleApp) \(configFile(of: id).path)
            X-Waypost=true
            X-Waypost-Activity-Types=\(activityTypes.map { $0 + ";" }.joined())
            \(associatedDomains.isEmpty ? "" : "X-Waypost-Associated-Domains=" + associatedDomains.map { $0 + ";" }.joined())
            \(schemes.isEmpty ? "" : "MimeType=" + schemes.map { "x-scheme-handler/\($0);" }.joined())

            """)
    }

    /// The browser stand-in: the default for http and https, logging each link it is given. A script
    /// of its own: `xdg-open` splits an `Exec=` line more crudely than GIO and breaks `sh -c '…'`.
    func installBrowser() async throws {
        let script = root.appendingPathComponent("browser.sh")
        try "#!/bin/sh\necho \"$1\" >> \(log(of: "browser").path)\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        try await writeEntry("browser", """
            [Desktop Entry]
            Type=Application
            Name=Browser
            Exec=\(script.path) %u
            MimeType=x-scheme-handler/http;x-scheme-handler/https;

            """)
    }

    /// Installs `json` as the association of `domain`, as a package would (`$XDG_DATA_HOME` here).
    func installAssociation(_ domain: String, _ json: String) throws {
        let directory = root.appendingPathComponent("data/waypost/associations")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: directory.appendingPathComponent("\(domain).json"))
    }

    func writeEntry(_ id: String, _ text: String) async throws {
        let applications = root.appendingPathComponent("data/applications")
        try text.write(to: applications.appendingPathComponent("\(id).desktop"), atomically: true, encoding: .utf8)
        try await run("/usr/bin/update-desktop-database", [applications.path])
    }

    func configFile(of id: String) -> URL { root.appendingPathComponent("\(id).json") }
    func log(of id: String) -> URL { root.appendingPathComponent("logs/\(id).events") }

    /// Starts a process of an installed sample app; returns once it says it is ready.
    func start(_ id: String) async throws {
        let stderr = root.appendingPathComponent("logs/\(id).stderr")
        let process = try await ChildProcess.start(Self.python, [Self.sampleApp, configFile(of: id).path], environment: environment, errors: stderr)
        spawned.add(process)
        guard try await process.nextLine("\(id) is ready") == "ready" else {
            throw TestFailure("\(id) ended before it was ready: \((try? String(contentsOf: stderr, encoding: .utf8)) ?? "")")
        }
    }

    /// The JSON lines a sample app logged, `ready` lines left out.
    func received(_ id: String) -> [[String: Any]] {
        guard let text = try? String(contentsOf: log(of: id), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String != "ready" }
    }

    func lines(of id: String) -> [String] {
        ((try? String(contentsOf: log(of: id), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @discardableResult
    func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProgram(program, arguments, environment: environment)
    }

    func waypost(_ arguments: String...) async throws -> (status: Int32, output: String, errors: String) {
        try await run(Self.waypost, arguments)
    }

    /// Calls a method with `dbus-send` (the test needs no bus library of its own for a few calls).
    func busCall(_ destination: String, _ path: String, _ member: String, _ arguments: String...) async throws -> (status: Int32, output: String, errors: String) {
        try await run("/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=\(destination)", path, member] + arguments)
    }

    var busLog: String { session.busLog }
}

/// Two devices paired over KDE Connect: two kdeconnectd in two network namespaces joined by a veth
/// pair (Fixtures/kdeconnect_pair.py makes them, pairs them over D-Bus alone, and removes the
/// namespaces when it ends), or A on GSConnect instead (Fixtures/gsconnect_pair.py, the same way).
final class TwoDevices: Sendable {
    /// What A's side runs; B always runs kdeconnectd.
    enum ATransport: String, Sendable {
        case kdeconnectd = "kdeconnect_pair.py"
        case gsconnect = "gsconnect_pair.py"
    }

    let a: Device
    let b: Device
    let aID: String
    let bID: String
    /// The network namespace B's kdeconnectd runs in.
    let bNamespace: String
    private let pairing: ChildProcess

    /// Root (network namespaces, veth) and Debian's kdeconnect. Under CI=true a missing one is a failure.
    static let kdeconnectd = "/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd"
    static var runsHere: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || (getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
                && FileManager.default.isExecutableFile(atPath: kdeconnectd))
    }
    static let skipReason: Comment = "needs root (network namespaces and a veth pair) and Debian's kdeconnect (kdeconnectd)"

    /// As `runsHere`, and Debian's GSConnect with gjs to run its service standalone.
    static let gsconnect = "/usr/share/gnome-shell/extensions/gsconnect@andyholmes.github.io/service/daemon.js"
    static var gsconnectRunsHere: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || (runsHere && FileManager.default.fileExists(atPath: gsconnect) && FileManager.default.isExecutableFile(atPath: "/usr/bin/gjs"))
    }
    static let gsconnectSkipReason: Comment =
        "needs root (network namespaces and a veth pair), Debian's kdeconnect, gnome-shell-extension-gsconnect and gjs"

    /// - Parameter aName: A's name on KDE Connect (as its config file holds it: QSettings' escapes apply).
    init(aName: String = "Alpha", aRuns: ATransport = .kdeconnectd) async throws {
        a = try await Device(name: "alpha")
        do { b = try await Device(name: "beta") } catch {
            a.close()
            throw error
        }
        do {
            var configs: [String] = []
            for (device, display) in [(a, aName), (b, "Beta")] {
                let file = device.root.appendingPathComponent("kdeconnect.json")
                try JSONSerialization.data(withJSONObject: [
                    "environment": device.environment, "name": display, "log": device.root.appendingPathComponent("logs/kdeconnectd.log").path,
                ]).write(to: file)
                configs.append(file.path)
            }
            pairing = try await ChildProcess.start(
                Device.python, [Device.fixtures.appendingPathComponent(aRuns.rawValue).path] + configs,
                environment: ["PATH": "/usr/sbin:/usr/bin:/bin"], errors: a.root.appendingPathComponent("logs/pairing.log"))
            // Past the script's own bound (LIMIT_MS), which says what each side reached.
            let line = try await pairing.nextLine("the two devices pair", seconds: 100)
            guard let line, let paired = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: String]],
                let aID = paired["a"]?["id"], let bID = paired["b"]?["id"], let bNamespace = paired["b"]?["netns"]
            else {
                throw TestFailure("the two devices did not pair: \(line ?? "(no line)") \((try? String(contentsOf: a.root.appendingPathComponent("logs/pairing.log"), encoding: .utf8)) ?? "")")
            }
            (self.aID, self.bID, self.bNamespace) = (aID, bID, bNamespace)
        } catch {
            a.close()
            b.close()
            throw error
        }
    }

    /// Kills B's kdeconnectd (every process in its namespace), as when B goes away.
    func stopB() async throws {
        let pids = try await runProgram("/usr/sbin/ip", ["netns", "pids", bNamespace], environment: ["PATH": "/usr/sbin:/usr/bin:/bin"])
        for pid in pids.output.split(separator: "\n") { kill(pid_t(pid) ?? 0, SIGKILL) }
    }

    /// Runs `body` with two paired devices, and tears them down whatever it throws.
    static func with(aName: String = "Alpha", aRuns: ATransport = .kdeconnectd, _ body: (TwoDevices) async throws -> Void) async throws {
        let two = try await TwoDevices(aName: aName, aRuns: aRuns)
        do { try await body(two) } catch {
            await two.close()
            throw error
        }
        await two.close()
    }

    /// Stops the pairing fixture (it kills both kdeconnectd and removes the namespaces), then both devices.
    func close() async {
        pairing.send(SIGTERM)
        _ = try? await withDeadline("the pairing fixture ends") { [pairing] in try await pairing.status() }
        a.close()
        b.close()
    }
}

extension Device {
    /// Has the D-Bus activated daemon start with `arguments` added (after `waypost install --user`).
    func daemonArguments(_ arguments: String) throws {
        let file = root.appendingPathComponent("data/dbus-1/services/io.waypost.Dispatcher.service")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: " daemon\n", with: " daemon \(arguments)\n").write(to: file, atomically: true, encoding: .utf8)
    }
}

extension Device {
    /// Starts Debian's dunst on this device's display and bus: a throwaway dunstrc where nothing
    /// expires by itself, and `dunstctl action` picks the action whose line starts with `choosing`
    /// (its dmenu is a script). Returns once dunst owns org.freedesktop.Notifications.
    func startDunst(choosing: String) async throws {
        let menu = root.appendingPathComponent("dmenu.sh")
        try "#!/bin/sh\ngrep -m1 -F -- '\(choosing)'\n".write(to: menu, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: menu.path)
        let config = root.appendingPathComponent("dunstrc")
        try """
            [global]
                mouse_left_click = do_action, close_current
                stack_duplicates = false
                dmenu = \(menu.path)
            [urgency_low]
                timeout = 0
            [urgency_normal]
                timeout = 0
            [urgency_critical]
                timeout = 0

            """.write(to: config, atomically: true, encoding: .utf8)
        let dunst = try await ChildProcess.start(
            "/usr/bin/dunst", ["-config", config.path], environment: environment, errors: root.appendingPathComponent("logs/dunst.stderr"))
        spawnedDunst(dunst)
        try await waitUntil("dunst owns org.freedesktop.Notifications", context: busLog) {
            try await run("/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                 "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"]).output.contains("boolean true")
        }
    }

    /// What dunst shows, by `dunstctl count displayed` (dunst announces nothing when one appears).
    func notificationsShown() async throws -> Int {
        Int(try await run("/usr/bin/dunstctl", ["count", "displayed"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
