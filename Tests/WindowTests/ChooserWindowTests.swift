import Chooser
import Foundation
import Planning
import TestSupport
import Testing

/// `waypost choose`, the window the dispatcher shows when several apps could take a link: on a real
/// X server with openbox, driven by the keyboard alone (xdotool), each answer printed as the one
/// line the dispatcher reads.
@Suite(.serialized) struct ChooserWindowTests {
    static let title = "Open with — Waypost"
    static let entries = [
        "org.example.A": entry(name: "Alpha Reader", icon: "accessories-text-editor"),
        "org.example.B": entry(name: "Beta Browser", icon: "web-browser"),
        "org.example.Mail": entry(name: "Gamma Mail", icon: "mail-send"),
    ]

    static func entry(name: String, icon: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=\(name)
        Icon=\(icon)
        Exec=/bin/true %u
        StartupNotify=true

        """
    }

    /// Starts `waypost choose ARGUMENTS` in the desktop's session and returns it with its window, once
    /// that window has the keyboard focus (keys typed then reach it). The window is found by its
    /// title and the chooser's pid (`_NET_WM_PID`): X reuses window ids, and openbox's active window
    /// can still name a window of the same id and title that an earlier chooser had.
    func startChooser(
        _ desktop: WindowDesktop, _ arguments: [String], extra: [String: String] = [:]
    ) async throws -> (chooser: ChildProcess, window: Int) {
        for (id, text) in Self.entries {
            try text.write(to: desktop.root.appendingPathComponent("data/applications/\(id).desktop"), atomically: true, encoding: .utf8)
        }
        let chooser = try await ChildProcess.start(
            Built.waypost.path, ["choose"] + arguments, environment: desktop.environment.merging(extra) { $1 },
            errors: desktop.root.appendingPathComponent("logs/chooser.log"))
        var window: Int?
        var last = ""
        try await waitUntil("the chooser's window has the keyboard focus", context: last) {
            let found = try await desktop.run("/usr/bin/xdotool", ["search", "--onlyvisible", "--pid", "\(chooser.pid)", "--name", "^\(Self.title)$"])
            window = found.output.split(separator: "\n").first.flatMap { Int($0) }
            let focus = try await desktop.run("/usr/bin/xdotool", ["getwindowfocus"])
            last = "pid \(chooser.pid): \(found), focus: \(focus)"
            return window != nil && Int(focus.output.trimmingCharacters(in: .whitespacesAndNewlines)) == window
        }
        return (chooser, window!)
    }

    /// `_NET_STARTUP_ID` of the window's client leader, where GDK's X11 backend puts the startup id
    /// it read from `DESKTOP_STARTUP_ID`.
    func startupID(ofLeaderOf window: Int, _ desktop: WindowDesktop) async throws -> String? {
        let leader = try await desktop.run("/usr/bin/xprop", ["-id", "\(window)", "WM_CLIENT_LEADER"]).output
        // WM_CLIENT_LEADER(WINDOW): window id # 0x400002
        let id = try #require(leader.split(separator: " ").last.flatMap { Int($0.dropFirst(2).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) },
                              "\(leader)")
        return try await desktop.startupID(of: id)
    }

    /// Types `keys` (xdotool's names) into the active window.
    func type(_ desktop: WindowDesktop, _ keys: [String]) async throws {
        let typed = try await desktop.run("/usr/bin/xdotool", ["key", "--clearmodifiers"] + keys)
        try #require(typed.status == 0, "\(typed.errors)")
    }

    /// The chooser's one line and its exit status, once it ended; the line split at its tabs.
    func answer(
        of chooser: ChildProcess, _ desktop: WindowDesktop, after step: String = #function, line number: Int = #line
    ) async throws -> (fields: [String], status: Int32) {
        let log = { (try? String(contentsOf: desktop.root.appendingPathComponent("logs/chooser.log"), encoding: .utf8)) ?? "" }
        let line = try await chooser.nextLine("the chooser prints its answer (\(step), line \(number))") ?? "(none)\n\(log())"
        let status = try await withDeadline("the chooser exits") { try await chooser.status() }
        return (line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init), status)
    }

    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func downThenReturnPicksTheSecondAppJustOnceWithATokenForIt() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        let (chooser, window) = try await startChooser(
            desktop, ["--subject", "myscheme:item/1", "--scope", "scheme:myscheme", "--candidate", "org.example.A", "--candidate", "org.example.B"],
            extra: ["DESKTOP_STARTUP_ID": "waypost-test-chooser"])
        // GTK took the opener's startup id from the environment: on X11 it is its leader window's.
        #expect(try await startupID(ofLeaderOf: window, desktop) == "waypost-test-chooser")

        try await type(desktop, ["Down", "Return"])
        let (fields, status) = try await answer(of: chooser, desktop)
        #expect(status == 0)
        #expect(Array(fields.prefix(4)) == ["pick", "org.example.B", "once", "any"], "\(fields)")
        // GDK's X11 startup id for Beta Browser, the form `_NET_STARTUP_ID` takes.
        #expect(fields.count == 5 && fields[4].contains("_TIME"), "\(fields)")
        try await waitUntil("the window is gone") { try await !desktop.windowTitles().contains(Self.title) }
    }

    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func alwaysIsChosenByTabAndArrowOrByItsMnemonic() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        let arguments = ["--subject", "https://example.com/a", "--scope", "site:example.com", "--candidate", "org.example.A", "--candidate", "org.example.B"]

        // Tab leaves the list for the active radio, "Just once"; Down moves to "Always" and sets it;
        // Shift+Tab comes back to the selected row, where Up moves to the first.
        var (chooser, _) = try await startChooser(desktop, arguments)
        try await type(desktop, ["Down", "Tab", "Down", "shift+Tab", "Up", "Return"])
        var (fields, status) = try await answer(of: chooser, desktop)
        #expect(status == 0)
        #expect(Array(fields.prefix(4)) == ["pick", "org.example.A", "always", "any"], "\(fields)")

        // Alt+A is "Always for example.com"; Alt+W the opener check, which "Always" enabled.
        (chooser, _) = try await startChooser(desktop, arguments + ["--opener", "org.example.Mail"])
        try await type(desktop, ["Down", "alt+a", "alt+w", "Return"])
        (fields, status) = try await answer(of: chooser, desktop)
        #expect(status == 0)
        #expect(Array(fields.prefix(4)) == ["pick", "org.example.B", "always", "opener"], "\(fields)")

        // The opener check is off by default, and means nothing without "Always".
        (chooser, _) = try await startChooser(desktop, arguments + ["--opener", "org.example.Mail"])
        try await type(desktop, ["alt+w", "Return"])
        (fields, status) = try await answer(of: chooser, desktop)
        #expect(Array(fields.prefix(4)) == ["pick", "org.example.A", "once", "any"], "\(fields)")
    }

    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func escapeAndClosingTheWindowCancel() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        let arguments = ["--subject", "myscheme:item/1", "--scope", "scheme:myscheme", "--candidate", "org.example.A", "--candidate", "org.example.B"]

        var (chooser, window) = try await startChooser(desktop, arguments)
        try await type(desktop, ["Escape"])
        var (fields, status) = try await answer(of: chooser, desktop)
        #expect(fields == ["cancel"] && status == 0)

        (chooser, window) = try await startChooser(desktop, arguments)
        try await desktop.closeWindow(window)
        (fields, status) = try await answer(of: chooser, desktop)
        #expect(fields == ["cancel"] && status == 0)

        // Alt+C, the Cancel button.
        (chooser, window) = try await startChooser(desktop, arguments)
        try await type(desktop, ["alt+c"])
        (fields, status) = try await answer(of: chooser, desktop)
        #expect(fields == ["cancel"] && status == 0)
    }

    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func aProfileAndAnAppNotInstalledArePrintedBackAsNamed() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        let (chooser, _) = try await startChooser(desktop, [
            "--subject", "https://example.com/\u{7}bell", "--scope", "browser",
            "--candidate", "org.example.B#profile=Work", "--candidate", "org.example.Gone", "--candidate", "org.example.B#private",
        ])
        try await type(desktop, ["Return"])
        var (fields, status) = try await answer(of: chooser, desktop)
        #expect(status == 0)
        #expect(Array(fields.prefix(4)) == ["pick", "org.example.B#profile=Work", "once", "any"], "\(fields)")

        // No entry is installed as org.example.Gone: its row shows the id, and its pick has no token.
        let (gone, _) = try await startChooser(desktop, ["--subject", "x:y", "--scope", "browser", "--candidate", "org.example.B", "--candidate", "org.example.Gone"])
        try await type(desktop, ["Down", "KP_Enter"])
        (fields, status) = try await answer(of: gone, desktop)
        #expect(status == 0)
        #expect(fields == ["pick", "org.example.Gone", "once", "any", ""], "\(fields)")
    }

    @Test func withoutADisplayItExits3SayingWhyAndPrintsNothing() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        // No Wayland socket to fall back on either (GTK tries wayland-0 in the runtime directory).
        environment["XDG_RUNTIME_DIR"] = FileManager.default.temporaryDirectory.path
        let result = try await runProgram(
            Built.waypost.path, ["choose", "--subject", "x:y", "--scope", "scheme:x", "--candidate", "org.example.A"], environment: environment)
        #expect(result.status == 3)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains("waypost choose: no display can be opened (DISPLAY unset, WAYLAND_DISPLAY unset)"), "\(result.errors)")
    }

    @Test func badArgumentsAreTheParsersUsageError() async throws {
        for arguments in [
            ["--subject", "x:y", "--scope", "nowhere", "--candidate", "a"],
            ["--subject", "x:y", "--scope", "browser", "--candidate", "a#incognito"],
            ["--subject", "x:y", "--scope", "browser"],
        ] {
            let result = try await runProgram(Built.waypost.path, ["choose"] + arguments, environment: [:])
            #expect(result.status == 64, "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        let help = try await runProgram(Built.waypost.path, ["--help"], environment: [:])
        let listed = help.output.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("choose ") }
        #expect(!listed, "hidden from the list of subcommands")
        let ownHelp = try await runProgram(Built.waypost.path, ["choose", "--help"], environment: [:])
        #expect(ownHelp.output.contains("USAGE: waypost choose --subject <subject> --scope <scope>"), "\(ownHelp.output)")
    }

    /// GTK is opened at run time: the binary names no GTK library it needs.
    @Test func theBinaryDoesNotLinkGtk() async throws {
        let dynamic = try await runProgram("/usr/bin/readelf", ["-d", Built.waypost.path], environment: [:])
        try #require(dynamic.status == 0, "\(dynamic.errors)")
        #expect(dynamic.output.contains("(NEEDED)"))
        #expect(!dynamic.output.contains("libgtk"), "\(dynamic.output)")
        #expect(!dynamic.output.contains("libgdk"), "\(dynamic.output)")
    }
}

/// What the window shows from outside text, and the line it prints.
struct ChooserWindowTextTests {
    @Test func outsideTextIsShownPlainAndShort() {
        #expect(ShownText.plain("a\u{7}b\nc\u{202E}d") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d")
        let long = String(repeating: "é", count: 400)
        #expect(ShownText.heading(subject: long) == "Open \(String(repeating: "é", count: 300))… with:")
        #expect(ShownText.always(.scheme("zoommtg")) == "_Always for zoommtg: links")
        #expect(ShownText.always(.activityType("a_b")) == "_Always for activities of type a__b")
        #expect(ShownText.row(name: "Chromium", window: .profile("Work")) == "Chromium — profile Work")
        #expect(ShownText.row(name: "Firefox", window: .privateWindow) == "Firefox — private window")
    }

    @Test func theAnswerIsOneTabSeparatedLine() {
        let work = NamedDestination(app: "chromium", window: .profile("Work"))
        #expect(ChooserAnswer.pick(work, .always, .opener, token: "t1").line == "pick\tchromium#profile=Work\talways\topener\tt1")
        #expect(ChooserAnswer.pick(work, .once, .any, token: "bad\ntoken").line == "pick\tchromium#profile=Work\tonce\tany\t")
        #expect(ChooserAnswer.cancel.line == "cancel")
    }
}
