import Foundation
import TestSupport
import Testing

/// The desktop people run, its portal: the real xdg-desktop-portal 1.16 with its GTK backend and
/// permission store on the bus, as on every GNOME and KDE desktop, where Chromium and every Flatpak
/// app open links through `org.freedesktop.portal.OpenURI`. After `waypost install` the portal opens
/// a participating scheme's link with Waypost, without its "Open With…" dialog, and the link keeps
/// the opener and the token the calling app gave.
@Suite(.serialized) struct PortalTests {
    static let runsHere = ContactsWindowTests.runsHere && FileManager.default.isExecutableFile(atPath: "/usr/libexec/xdg-desktop-portal")
        || ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_WINDOWS"] == "1"
    static let opener = WindowDesktop.fixtures.appendingPathComponent("portal_opener.py").path
    /// An app of the session that opens links through the portal.
    static let chat = "[Desktop Entry]\nType=Application\nName=Chat\nExec=/usr/bin/python3 \(opener) %u\n"

    @Test(.enabled(if: runsHere))
    func aLinkAnAppHandsThePortalReachesTheRightWindowWithItsTokenAndNoChooser() async throws {
        let desktop = try await WindowDesktop(desktop: .portal)
        defer { desktop.close() }
        try await desktop.install([ContactsWindowTests.contacts], entries: ["org.example.Chat": Self.chat])
        // Contacts running with Ada's window, so the link has a scene to choose.
        try await desktop.run("/usr/bin/gio", ["open", "contacts://show?id=0F3A-ADA"])
        let ada = try await desktop.activeWindow(titled: "Ada Lovelace – Contacts")
        // The monitor as a Wayland session's: it says what a missing token means there.
        let monitor = try await ChildProcess.start(
            WindowDesktop.waypost, ["monitor", "--count", "2"], environment: desktop.environment.merging(["WAYLAND_DISPLAY": "wayland-0"]) { $1 })
        #expect(try await monitor.nextLine("waypost monitor watches")?.hasPrefix("watching") == true)

        // Chat asks the portal to open Bob's link, with the token its compositor gave it.
        let opened = try await desktop.run("/usr/bin/python3", [Self.opener, "contacts://show?id=51C2-BOB", "chat-token-1"])
        #expect(opened.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the portal handed it on: \(opened.output)\(opened.errors)\n\(desktop.busLog)")
        let bob = try await desktop.activeWindow(titled: "Bob Kahn – Contacts")
        #expect(bob != ada, "Bob's link went to a new window: the rules were applied")
        #expect(try await desktop.startupID(of: bob) == "chat-token-1", "the calling app's token reached the window")
        // No "Open With…" dialog: the only windows are Contacts' own.
        #expect(Set(try await desktop.windowTitles()) == ["Ada Lovelace – Contacts", "Bob Kahn – Contacts"])
        let routed = try await monitor.nextLine("waypost monitor's next line") ?? ""
        #expect(routed.contains("→ io.waypost.example.Contacts") && routed.hasSuffix("(opened by org.example.Chat (via portal))"), "\(routed)")
        #expect(!routed.contains("no token"), "\(routed)")

        // gio open from a terminal gives no token: the monitor says what that means on Wayland.
        try await desktop.run("/usr/bin/gio", ["open", "contacts://show?id=0F3A-ADA"])
        let untokened = try await monitor.nextLine("waypost monitor's next line") ?? ""
        #expect(untokened.contains(", no token: a Wayland compositor leaves its window where it is (opened by process gio)"), "\(untokened)")
    }

    /// `waypost doctor` reads what the portal would do: ask (GIO recommends another app too), or
    /// send a scheme straight to an app past Waypost (a choice its permission store remembered).
    @Test(.enabled(if: runsHere))
    func doctorSaysWhenThePortalWouldAskOrGoPastWaypost() async throws {
        let desktop = try await WindowDesktop(desktop: .portal)
        defer { desktop.close() }
        try await desktop.install([ContactsWindowTests.contacts])
        let healthy = try await desktop.run(WindowDesktop.waypost, ["doctor"])
        #expect(healthy.output.contains("ok   the portal opens contacts links with Waypost, without asking"), "\(healthy.output)")

        // Another app that lists the scheme, installed after Waypost: the portal would ask until refresh.
        try "[Desktop Entry]\nType=Application\nName=Rolodex\nExec=/bin/true %u\nMimeType=x-scheme-handler/contacts;\n"
            .write(to: desktop.root.appendingPathComponent("data/applications/org.example.Rolodex.desktop"), atomically: true, encoding: .utf8)
        try await desktop.run("/usr/bin/update-desktop-database", [desktop.root.appendingPathComponent("data/applications").path])
        let asking = try await desktop.run(WindowDesktop.waypost, ["doctor"])
        #expect(asking.status == 1)
        #expect(asking.output.contains("FIX  contacts: the portal asks which app opens its links (Chromium's, Flatpak apps'): GIO recommends io.waypost.Dispatcher.desktop, org.example.Rolodex.desktop"), "\(asking.output)")
        #expect(try await desktop.run(WindowDesktop.waypost, ["refresh"]).status == 0)

        // A choice made in the portal's dialog before: links from apps outside a sandbox go to Contacts itself.
        let store = ["--dest", "org.freedesktop.impl.portal.PermissionStore", "--object-path", "/org/freedesktop/impl/portal/PermissionStore"]
        let set = try await desktop.run("/usr/bin/gdbus", ["call", "--session"] + store + [
            "--method", "org.freedesktop.impl.portal.PermissionStore.SetPermission", "desktop-used-apps", "true",
            "x-scheme-handler/contacts", "", "['io.waypost.example.Contacts', '3', '3']",
        ])
        try #require(set.status == 0, "\(set.errors)")
        let past = try await desktop.run(WindowDesktop.waypost, ["doctor"])
        #expect(past.status == 1)
        let finding = "FIX  contacts: the portal sends links from apps outside a sandbox (Chromium, …) straight to io.waypost.example.Contacts, past Waypost"
        #expect(past.output.contains(finding), "\(past.output)")
        // Its fix, as printed, is a command that works.
        let fix = try #require(past.output.split(separator: "\n").first { $0.contains("→ forget it: gdbus call") })
        let command = String(fix.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
        #expect(try await desktop.run("/bin/sh", ["-c", command]).status == 0, "\(command)")
        let fixed = try await desktop.run(WindowDesktop.waypost, ["doctor"])
        #expect(!fixed.output.contains("past Waypost") && fixed.output.contains("ok   the portal opens contacts links with Waypost"), "\(fixed.output)")
    }
}

/// A trusted click in real Chromium 156 on a participating app's link, with the portal on the bus:
/// Chromium hands it to OpenURI (not `xdg-open`), and the portal to Waypost without asking.
///
/// Its name holds "ChromiumTests" so that `make test` runs it with the other Chromium tests, after
/// the rest.
@Suite(.serialized) struct PortalChromiumTests {
    static let runsHere = PortalTests.runsHere && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        || ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_BROWSER"] == "1"
    static let page = #"<!DOCTYPE html><title>people</title><body style="font-size: 24px"><p><a id="bob" href="contacts://show?id=51C2-BOB">Bob</a></p>"#
    /// Chromium's entry, in the session: the opener is named by it. Debian's runs a wrapper script
    /// whose last line execs `$LIBDIR/$APPNAME`, which Waypost does not read through
    /// (docs/known-issues.md): the program its processes run is named as an app author would.
    static let chromium = "[Desktop Entry]\nType=Application\nName=Chromium\nExec=/usr/bin/chromium %U\nX-Waypost-Executable=/usr/lib/chromium/chromium\n"

    @Test(.enabled(if: runsHere))
    func aClickInChromiumReachesTheRightWindowThroughThePortalWithNoChooser() async throws {
        let desktop = try await WindowDesktop(desktop: .portal)
        defer { desktop.close() }
        try await desktop.install([ContactsWindowTests.contacts], entries: ["chromium": Self.chromium])
        try await desktop.run("/usr/bin/gio", ["open", "contacts://show?id=0F3A-ADA"])
        let ada = try await desktop.activeWindow(titled: "Ada Lovelace – Contacts")
        let monitor = try await ChildProcess.start(WindowDesktop.waypost, ["monitor", "--count", "1"], environment: desktop.environment)
        #expect(try await monitor.nextLine("waypost monitor watches")?.hasPrefix("watching") == true)

        let scenario: [String: Any] = [
            "display": desktop.display,
            "profile": desktop.root.appendingPathComponent("config/chromium").path,
            "log": desktop.root.appendingPathComponent("logs/chromium.log").path,
            "external_schemes": ["contacts"],
            "pages": ["page.html": Self.page],
            "steps": [
                ["do": "navigate", "url": "http://localhost:{port}/page.html"],
                ["do": "click", "selector": "#bob"],
                ["do": "run-until", "argv": ["/usr/bin/xdotool", "getactivewindow", "getwindowname"], "contains": "Bob Kahn – Contacts"],
                ["do": "run", "argv": ["/usr/bin/wmctrl", "-l"]],
            ] as [[String: Any]],
        ]
        let file = desktop.root.appendingPathComponent("scenario.json")
        try JSONSerialization.data(withJSONObject: scenario).write(to: file)
        let run = try await desktop.run("/usr/bin/python3", [WindowBrowserExtensionTests.driver, file.path])
        let results = run.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(results.count == 4 && results.last?["error"] == nil, """
            \(run.output)\(run.errors)
            Chromium: \((try? String(contentsOf: desktop.root.appendingPathComponent("logs/chromium.log"), encoding: .utf8)) ?? "")
            \(desktop.busLog)
            """)
        let bob = try await desktop.activeWindow(titled: "Bob Kahn – Contacts")
        #expect(bob != ada)
        // While Bob's window came up, no "Open With…" dialog: the windows are Contacts' and the browser's.
        let windows = (results[3]["output"] as? String ?? "").split(separator: "\n").map {
            $0.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true).dropFirst(3).joined()
        }
        #expect(windows.filter { !$0.hasSuffix("Chromium") }.sorted() == ["Ada Lovelace – Contacts", "Bob Kahn – Contacts"], "\(windows)")
        let routed = try await monitor.nextLine("waypost monitor's next line") ?? ""
        #expect(routed.hasSuffix("(opened by chromium (via portal))"), "\(routed)")
    }
}
