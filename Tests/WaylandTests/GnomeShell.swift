import DBus
import Foundation
import TestSupport

/// GNOME Shell 43 (mutter 43) headless on the session's Wayland display, with the test extension in
/// Fixtures/gnome-shell-extension: headless mutter has no input devices (so no window ever gets
/// keyboard focus) and GNOME 43 no --unsafe-mode, so the extension makes a virtual keyboard and
/// pointer and serves `io.waypost.test.Shell`, through which a test clicks, types, and reads focus.
final class GnomeShell: Compositor {
    private let shell: ChildProcess
    private let bus: Connection

    static let program = "/usr/bin/gnome-shell"
    static var runsHere: Bool { FileManager.default.isExecutableFile(atPath: program) && FileManager.default.isExecutableFile(atPath: "/usr/bin/gjs") }
    static let extensionID = "waypost-test@waypost.io"

    private init(shell: ChildProcess, bus: Connection) {
        self.shell = shell
        self.bus = bus
    }

    /// A desktop modelling GNOME on Wayland: GNOME Shell's bus services, Waypost installed (its
    /// search provider where the shell reads providers: a system data directory), then the shell.
    static func desktop(apps: [String] = [WaylandDesktop.contacts], entries: [String: String] = [:]) async throws -> WaylandDesktop {
        try await WaylandDesktop(modelling: .gnomeShell, currentDesktop: "GNOME", apps: apps, entries: entries) { setup in
            try await start(setup)
        }
    }

    /// Starts the shell once Waypost is installed; returns once it has started up and shows the
    /// desktop (it opens the overview when it starts).
    static func start(_ setup: WaylandDesktop.Setup) async throws -> GnomeShell {
        let root = setup.session.root, environment = setup.session.environment
        try provideSearchProviders(in: setup.session)
        let extensions = root.appendingPathComponent("data/gnome-shell/extensions")
        try FileManager.default.createDirectory(at: extensions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: WaylandDesktop.fixtures.appendingPathComponent("gnome-shell-extension"), to: extensions.appendingPathComponent(extensionID))
        // Through dconf on the session bus, as gnome-extensions enable does; and no welcome tour, a
        // dialog that would take the keyboard.
        for (key, value) in [("enabled-extensions", "['\(extensionID)']"), ("welcome-dialog-last-shown-version", "'99'")] {
            let set = try await runProgram("/usr/bin/gsettings", ["set", "org.gnome.shell", key, value], environment: environment)
            guard set.status == 0 else { throw TestFailure("gsettings set \(key): \(set.errors)") }
        }

        let process = try await ChildProcess.start(
            program, ["--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x800", "--wayland-display", WaylandDesktop.display],
            environment: environment, errors: root.appendingPathComponent("logs/gnome-shell.log"))
        let shell = GnomeShell(shell: process, bus: setup.bus)
        let log = { (try? String(contentsOf: root.appendingPathComponent("logs/gnome-shell.log"), encoding: .utf8)) ?? "" }
        do {
            try await waitUntil("GNOME Shell has started up with the test extension", seconds: 60, context: log()) {
                (try? await shell.overview())?.startingUp == false
            }
            _ = try await shell.call("HideOverview")
            try await waitUntil("the overview is hidden", context: log()) {
                let overview = try await shell.overview()
                return !overview.visible && !overview.animating
            }
            // What the shell posted as it started (a root session: "Logged in as a privileged user").
            _ = try await shell.call("ClearNotifications")
        } catch {
            shell.stop()
            throw error
        }
        return shell
    }

    /// GNOME Shell reads search providers only from the system data directories: the session's
    /// (links to /usr/share's entries) gets a `gnome-shell` of its own whose providers are the one
    /// `waypost install` wrote, as `make install` puts it in /usr/share (the machine's own need apps
    /// the session does not have).
    private static func provideSearchProviders(in session: PrivateSession) throws {
        let files = FileManager.default
        guard let systemData = session.environment["XDG_DATA_DIRS"]?.split(separator: ":").first else {
            throw TestFailure("the session has no system data directory")
        }
        let shellData = URL(fileURLWithPath: String(systemData)).appendingPathComponent("gnome-shell")
        try? files.removeItem(at: shellData)
        try files.createDirectory(at: shellData, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: "/usr/share/gnome-shell") where name != "search-providers" {
            try files.createSymbolicLink(at: shellData.appendingPathComponent(name), withDestinationURL: URL(fileURLWithPath: "/usr/share/gnome-shell/\(name)"))
        }
        let providers = shellData.appendingPathComponent("search-providers")
        try files.createDirectory(at: providers, withIntermediateDirectories: true)
        let installed = session.root.appendingPathComponent("data/gnome-shell/search-providers")
        for name in try files.contentsOfDirectory(atPath: installed.path) {
            try files.copyItem(at: installed.appendingPathComponent(name), to: providers.appendingPathComponent(name))
        }
    }

    func stop() { shell.kill() }

    // MARK: io.waypost.test.Shell

    private func call(_ member: MemberName) async throws -> Message {
        try await bus.call(destination: "org.gnome.Shell", path: "/io/waypost/test/Shell", interface: "io.waypost.test.Shell", member: member)
    }

    private func call(_ member: MemberName, _ argument: String) async throws -> Message {
        try await bus.call(destination: "org.gnome.Shell", path: "/io/waypost/test/Shell", interface: "io.waypost.test.Shell", member: member, argument)
    }

    private func json<T: Decodable>(_ member: MemberName, as type: T.Type) async throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try await call(member).decode(String.self).utf8))
    }

    struct Window: Decodable {
        let title: String?
        let focused: Bool
        let shown: Bool
        /// When the user last clicked or typed in it (mutter's clock).
        let userTime: UInt32
    }

    struct Overview: Decodable {
        let startingUp: Bool
        let visible: Bool
        let animating: Bool
        let searchText: String
        /// The name of the result Return activates.
        let defaultResult: String?
    }

    func focusedTitle() async throws -> String? { try await json("FocusedWindow", as: Window?.self)?.title }

    func windowTitles() async throws -> [String] { try await json("Windows", as: [Window].self).filter(\.shown).compactMap(\.title) }

    func focusHistory() async throws -> [String] { try await json("FocusHistory", as: [String].self) }

    func overview() async throws -> Overview { try await json("Overview", as: Overview.self) }

    /// Clicks the window where nothing covers it, once it is on screen, and returns once mutter has
    /// taken the click (the window's user time moved) and given it focus: the app then has a fresh
    /// user-action serial, and no later click can make its tokens stale. A new window may have
    /// focus already, so focus alone does not tell that the click came.
    func focus(_ title: String) async throws {
        let before = try await json("Windows", as: [Window].self).first { $0.title == title }?.userTime
        try await waitUntil("\"\(title)\" is on screen and clicked") { try await call("ClickWindow", title).decode(Bool.self) }
        var last: Window?
        try await waitUntil("the click gives \"\(title)\" keyboard focus", context: "last: \(String(describing: last))") {
            last = try await json("Windows", as: [Window].self).first { $0.title == title }
            return last.map { $0.focused && $0.userTime != before } ?? false
        }
    }

    /// Return in the focused opener, which opens the link it was given.
    func userOpens(_ link: String, in opener: Opener) async throws {
        try await opener.setLink(link)
        try await pressKey("Return")
    }

    func pressKey(_ name: String) async throws {
        guard try await call("PressKey", name).decode(Bool.self) else { throw TestFailure("no key named \(name)") }
    }

    func type(_ text: String) async throws { _ = try await call("TypeText", text) }

    func showOverview() async throws {
        _ = try await call("ShowOverview")
        try await waitUntil("the overview is shown") {
            let overview = try await overview()
            return overview.visible && !overview.animating
        }
    }

    /// The title of the notification banner on screen ("" for none).
    func banner() async throws -> String { try await call("Banner").decode(String.self) }

    /// Clicks the banner whose title contains `text` once it is fully shown.
    func clickBanner(_ text: String, context: @autoclosure () -> String = "") async throws {
        var shown = ""
        try await waitUntil("a banner \"\(text)\" is shown and clicked", context: "banner shown: \"\(shown)\"\n\(context())") {
            shown = try await banner()
            // Another's banner first (the shell posts its own at times): closed, as a user would.
            if !shown.isEmpty, !shown.contains(text) { _ = try await call("CloseBanner") }
            return try await call("ClickBanner", text).decode(Bool.self)
        }
    }
}
