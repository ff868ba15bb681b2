import DBus
import Foundation
import Synchronization
import TestSupport

/// KWin 5.27 as `kwin_wayland --virtual` on the session's Wayland display. It has no input devices
/// in that mode, so a test moves focus and reads it through KWin's scripting (`org.kde.KWin`
/// `/Scripting`): each script reports back by calling `io.waypost.test.KWinProbe` on the test's
/// own connection, and a resident one reports every activation (the focus history).
final class KWin: Compositor {
    private let kwin: ChildProcess
    private let bus: Connection
    private let scripts: URL
    private let probe = Probe()

    static let program = "/usr/bin/kwin_wayland"
    static var runsHere: Bool { FileManager.default.isExecutableFile(atPath: program) }
    static let probePath: ObjectPath = "/io/waypost/test/KWinProbe"

    private init(kwin: ChildProcess, bus: Connection, scripts: URL) {
        self.kwin = kwin
        self.bus = bus
        self.scripts = scripts
    }

    /// A desktop modelling KWin on Wayland, without the rest of Plasma: the lab's bus (nothing of
    /// the machine's), Waypost installed, then KWin.
    static func desktop(apps: [String] = [WaylandDesktop.contacts], entries: [String: String] = [:]) async throws -> WaylandDesktop {
        try await WaylandDesktop(modelling: .lab, currentDesktop: "KDE", apps: apps, entries: entries) { setup in
            try await start(setup)
        }
    }

    static func start(_ setup: WaylandDesktop.Setup) async throws -> KWin {
        let root = setup.session.root
        // Debian's binary carries cap_sys_resource, which a container may refuse to exec; a copy has none.
        let copy = root.appendingPathComponent("bin/kwin_wayland")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: program), to: copy)
        // No effect may take the keyboard: once a full-screen window of KWin's own (an effect's, Kirigami
        // loaded) held it, and the active app then got no token (`not-granted-666`).
        try """
            [Plugins]
            overviewEnabled=false
            windowviewEnabled=false
            desktopgridEnabled=false

            """.write(to: root.appendingPathComponent("config/kwinrc"), atomically: true, encoding: .utf8)
        let scripts = root.appendingPathComponent("kwin-scripts")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        // QPainter compositing: llvmpipe's OpenGL would take a core of the two the tests share.
        var environment = setup.session.environment
        environment["KWIN_COMPOSE"] = "Q"
        let process = try await ChildProcess.start(
            copy.path, ["--virtual", "--socket", WaylandDesktop.display, "--width", "1280", "--height", "800"],
            environment: environment, errors: root.appendingPathComponent("logs/kwin.log"))
        let kwin = KWin(kwin: process, bus: setup.bus, scripts: scripts)
        do {
            try kwin.exportProbe()
            let log = { (try? String(contentsOf: root.appendingPathComponent("logs/kwin.log"), encoding: .utf8)) ?? "" }
            // KWin owns its name before it exports /Scripting: the first script it loads is the sign.
            let history = """
                workspace.clientActivated.connect(function (client) {
                    callDBus("\(setup.bus.uniqueName)", "\(probePath)", "io.waypost.test.KWinProbe", "Activated", client ? client.caption : "");
                });
                """
            try await waitUntil("KWin serves its scripting on the bus", context: log()) {
                (try? await kwin.load(history, as: "waypost-focus-history")) != nil
            }
        } catch {
            kwin.stop()
            throw error
        }
        return kwin
    }

    func stop() {
        kwin.kill()
        bus.unexport(Self.probePath)
    }

    // MARK: Scripts

    /// What scripts reported, by script name, and every activation.
    private final class Probe: Sendable {
        let reports = Mutex<[String: String]>([:])
        let activations = Mutex<[String]>([])
    }

    private func exportProbe() throws {
        let probe = probe
        try bus.export(Self.probePath, interfaces: [
            Interface("io.waypost.test.KWinProbe", methods: [
                .answeringAtOnce("Report", arguments: [Argument("script", "s"), Argument("json", "s")]) { call in
                    let (script, json) = try call.arguments(String.self, String.self)
                    probe.reports.withLock { $0[script] = json }
                    return try call.reply()
                },
                .answeringAtOnce("Activated", arguments: [Argument("title", "s")]) { call in
                    let title = try call.arguments(String.self)
                    probe.activations.withLock { $0.append(title) }
                    return try call.reply()
                },
            ])
        ])
    }

    /// Loads and runs a script (it stays loaded until `unload`).
    private func load(_ source: String, as name: String) async throws {
        let file = scripts.appendingPathComponent("\(name).js")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let id = try await bus.call(
            destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "loadScript", file.path, name
        ).decode(Int32.self)
        guard id >= 0 else { throw TestFailure("KWin did not load \(file.path)") }
        _ = try await bus.call(destination: "org.kde.KWin", path: try ObjectPath("/\(id)"), interface: "org.kde.kwin.Script", member: "run")
    }

    private func unload(_ name: String) async throws {
        _ = try await bus.call(destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "unloadScript", name)
    }

    /// Runs `expression` in KWin's script engine and returns its value as JSON.
    private func evaluate(_ expression: String) async throws -> Data {
        let name = "waypost-\(UUID().uuidString)"
        try await load(
            """
            callDBus("\(bus.uniqueName)", "\(Self.probePath)", "io.waypost.test.KWinProbe", "Report", "\(name)",
                     JSON.stringify((function () { return \(expression); })()) || "null");
            """, as: name)
        var json: String?
        try await waitUntil("KWin's script \(name) reports") {
            json = probe.reports.withLock { $0.removeValue(forKey: name) }
            return json != nil
        }
        try await unload(name)
        return Data((json ?? "null").utf8)
    }

    // MARK: Compositor

    func focusedTitle() async throws -> String? {
        try JSONDecoder().decode(String?.self, from: try await evaluate("workspace.activeClient ? workspace.activeClient.caption : null"))
    }

    func windowTitles() async throws -> [String] {
        try JSONDecoder().decode([String].self, from: try await evaluate("workspace.clientList().map(function (c) { return c.caption; })"))
    }

    func focusHistory() async throws -> [String] { probe.activations.withLock { $0 } }

    /// Activates the window as a click would (KWin gives the client keyboard focus with it).
    func focus(_ title: String) async throws {
        let literal = String(decoding: try JSONEncoder().encode(title), as: UTF8.self)
        try await waitUntil("KWin activates \"\(title)\"") {
            _ = try await evaluate(
                "workspace.clientList().filter(function (c) { return c.caption === \(literal); }).map(function (c) { workspace.activeClient = c; return c.caption; })")
            return try await focusedTitle() == title
        }
    }

    /// The opener, activated, opens the link itself (nothing can type into KWin --virtual).
    func userOpens(_ link: String, in opener: Opener) async throws {
        try await focus(Opener.title)
        try await opener.open(link)
    }
}
