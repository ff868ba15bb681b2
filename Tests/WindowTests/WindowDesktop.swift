import Foundation
import TestSupport
import Testing

/// A throwaway desktop with a screen: Xvfb, openbox as its window manager (it keeps
/// `_NET_ACTIVE_WINDOW`, and gives focus to a new window with or without a token, so a token's use
/// shows only in the window's `_NET_STARTUP_ID`), a private session bus with DISPLAY set, and
/// Waypost installed for the throwaway user once `install(_:)` wrote the samples' entries.
final class WindowDesktop: Sendable {
    private let session: PrivateSession
    private let screen: VirtualScreen
    var display: String { screen.display }
    var root: URL { session.root }
    var environment: [String: String] { session.environment }

    static let binDirectory = Built.directory
    static let waypost = Built.waypost.path
    static let packageRoot = Built.packageRoot
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// Everything these tests run, from `make deps`.
    static let tools = ["/usr/bin/Xvfb", "/usr/bin/openbox", "/usr/bin/xdotool", "/usr/bin/xprop", "/usr/bin/wmctrl", "/usr/bin/import"]
    static var runsHere: Bool { tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }

    /// - Parameter desktop: `.portal` adds the real xdg-desktop-portal to the bus (and
    ///   `XDG_CURRENT_DESKTOP=GNOME`, which its GTK backend needs).
    init(desktop: ModelledDesktop = .lab) async throws {
        let screen = try await VirtualScreen()
        self.screen = screen
        do {
            // GTK without the accessibility bus, which the private bus does not have; drawn by its
            // cairo renderer, since Xvfb's OpenGL is llvmpipe on the CPU the other tests share.
            session = try await PrivateSession(
                name: "waypost-windows", desktop: desktop,
                extraEnvironment: [
                    "DISPLAY": screen.display, "GIO_USE_VFS": "local", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "GSK_RENDERER": "cairo",
                ])
        } catch {
            screen.stop()
            throw error
        }
        do {
            try await screen.startWindowManager(
                environment: session.environment, readyFile: session.root.appendingPathComponent("openbox-ready"))
        } catch {
            close()
            throw error
        }
    }

    /// Stops the bus (the dispatcher and the apps exit with it), openbox and Xvfb, and removes the
    /// session's files.
    func close() {
        session.close()
        screen.stop()
    }

    deinit { close() }

    var busLog: String { session.busLog }

    /// The sample apps' desktop entries from `desktop/windows`, with their programs' paths, and
    /// `entries` as given (id: text), then `waypost install --user` (which makes Waypost the
    /// handler of the schemes they declare).
    func install(_ ids: [String], entries: [String: String] = [:]) async throws {
        for id in ids {
            let template = try String(
                contentsOf: Self.packageRoot.appendingPathComponent("desktop/windows/\(id).desktop"), encoding: .utf8)
            try template.replacing("@BINDIR@", with: Self.binDirectory.path)
                .write(to: root.appendingPathComponent("data/applications/\(id).desktop"), atomically: true, encoding: .utf8)
        }
        for (id, text) in entries {
            try text.write(to: root.appendingPathComponent("data/applications/\(id).desktop"), atomically: true, encoding: .utf8)
        }
        try await run("/usr/bin/update-desktop-database", [root.appendingPathComponent("data/applications").path])
        let install = try await run(Self.waypost, ["install", "--user"])
        try #require(install.status == 0, "\(install.output)\(install.errors)")
    }

    /// Runs a program in the session (plus `extra`): its status, stdout and stderr.
    @discardableResult
    func run(_ program: String, _ arguments: [String], extra: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProgram(program, arguments, environment: environment.merging(extra) { $1 })
    }

    // MARK: Windows, as the window manager sees them

    /// The active window once its title is `title` (a wait for a state, bounded for a loaded machine).
    func activeWindow(titled title: String) async throws -> Int {
        var last = ""
        var window = 0
        try await waitUntil("the active window is \"\(title)\"", context: "last: \"\(last)\"\n\(busLog)") {
            let active = try await run("/usr/bin/xdotool", ["getactivewindow"])
            guard active.status == 0, let id = Int(active.output.trimmingCharacters(in: .whitespacesAndNewlines)) else { return false }
            last = try await run("/usr/bin/xdotool", ["getwindowname", "\(id)"]).output.trimmingCharacters(in: .newlines)
            window = id
            return last == title
        }
        return window
    }

    /// The window's `_NET_STARTUP_ID`: the token GTK presented it with (nil when it has none).
    func startupID(of window: Int) async throws -> String? {
        let output = try await run("/usr/bin/xprop", ["-id", "\(window)", "_NET_STARTUP_ID"]).output
        guard let start = output.firstIndex(of: "\""), let end = output.lastIndex(of: "\""), start < end else { return nil }
        return String(output[output.index(after: start)..<end])
    }

    /// The titles of the windows openbox manages.
    func windowTitles() async throws -> [String] {
        // wmctrl -l: id, desktop, host, then the title.
        try await run("/usr/bin/wmctrl", ["-l"]).output.split(separator: "\n").map {
            $0.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true).dropFirst(3).joined()
        }
    }

    /// Closes a window as its close button does: openbox asks the app (WM_DELETE_WINDOW).
    func closeWindow(_ window: Int) async throws {
        let close = try await run("/usr/bin/wmctrl", ["-i", "-c", "0x" + String(window, radix: 16)])
        try #require(close.status == 0, "\(close.errors)")
    }

    /// `waypost status`: the apps and scenes the dispatcher knows.
    func status() async throws -> String { try await run(Self.waypost, ["status"]).output }

    /// The id of the scene that prefers `target`, as `waypost status` lists it
    /// (`  <app>  <scene> (<declaration>)  preferring ["<target>"]  allowing []`).
    func scene(preferring target: String) async throws -> String? {
        try await status().split(separator: "\n").first { $0.contains("preferring [\"\(target)\"]") }
            .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map(String.init) }
    }
}
