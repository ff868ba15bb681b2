import Browsers
import Desktop
@testable import Dispatcher
import Foundation
import Planning
import Testing
import TestSupport

/// A link handed to a real, running browser with a window: Chromium and Firefox ESR under Xvfb,
/// each with two profiles in throwaway directories, one profile's window open. The hand-over is the
/// dispatcher's own (`Dispatcher.start(_:with:window:…)`, what a browser step of a plan runs), with
/// GIO's launch; what the browser then shows is read back over its automation protocol (DevTools,
/// Marionette), and the processes are counted: the link must land in the running window, never
/// start a second browser.
///
/// `make test` sets WAYPOST_REQUIRE_BROWSER=1: where the browsers are missing these fail, not skip.
@Suite(.serialized) struct RealBrowserProfileTests {
    /// GLib reads the XDG variables once per process: the test process's own, set first.
    let desktop = DesktopTestEnvironment.shared
    static let chromium = "/usr/bin/chromium"
    static let firefox = "/usr/bin/firefox-esr"
    static let required = ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_BROWSER"] == "1"
    static func installed(_ program: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: program) && FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") || required
    }
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test(.enabled(if: installed(chromium)), .timeLimit(.minutes(5)))
    func chromiumTakesTheLinkIntoTheRunningProfileOrAPrivateWindow() async throws {
        let site = try await BrowserSite()
        defer { site.close() }
        let data = site.root + "/chromium"
        // Two profiles, as Chromium lists them once made: Default ("Person 1") and Profile 1 ("Work").
        for directory in ["Default", "Profile 1"] { try FileManager.default.createDirectory(atPath: data + "/" + directory, withIntermediateDirectories: true) }
        try Data(#"{"profile": {"info_cache": {"Default": {"name": "Person 1"}, "Profile 1": {"name": "Work"}}, "last_used": "Default"}}"#.utf8)
            .write(to: URL(fileURLWithPath: data + "/Local State"))
        let flags = ["--user-data-dir=" + data, "--no-sandbox", "--no-first-run", "--password-store=basic", "--disable-gpu"]
        let entry = try site.entry("waypost-test-chromium", Self.chromium, flags + ["%U"])
        let running = try await site.start(Self.chromium, flags + ["--remote-debugging-port=0", "--profile-directory=Profile 1", site.page("work")], log: "chromium.log")
        try await waitUntil("Chromium writes DevToolsActivePort", seconds: 90, context: site.log("chromium.log")) {
            ((try? String(contentsOfFile: data + "/DevToolsActivePort", encoding: .utf8)) ?? "").contains("/devtools/browser/")
        }
        let work = try await site.chromiumPage(site.page("work"), data)
        #expect(try Browser.of(entry, homes: site.homes)?.profileDirectories == [data])

        let profile = try await Dispatcher.start(entry, with: site.page("profile"), window: .profile("Work"), .init(), launcher: Launcher(), homes: site.homes)
        #expect(profile == "it was started with the link for its profile Work")
        let inWork = try await site.chromiumPage(site.page("profile"), data)
        #expect(inWork.context == work.context, "a tab of the running Work profile: \(inWork), Work's page \(work)")
        try await site.waitUntilAlone(running, "chromium", data)

        _ = try await Dispatcher.start(entry, with: site.page("private"), window: .privateWindow, .init(), launcher: Launcher(), homes: site.homes)
        let incognito = try await site.chromiumPage(site.page("private"), data)
        #expect(incognito.context != work.context, "an incognito window has a browser context of its own: \(incognito)")
        try await site.waitUntilAlone(running, "chromium", data)

        // Chromium's own choice: the profile in use, the only window's.
        _ = try await Dispatcher.start(entry, with: site.page("usual"), window: .usual, .init(), launcher: Launcher(), homes: site.homes)
        let usual = try await site.chromiumPage(site.page("usual"), data)
        #expect(usual.context == work.context, "\(usual)")
        #expect(usual.context != incognito.context)
        try await site.waitUntilAlone(running, "chromium", data)

        await #expect(throws: DispatchError.launchFailed(
            app: "waypost-test-chromium", reason: "chromium has no profile 'Home'; its profiles: 'Person 1', 'Work'")
        ) {
            try await Dispatcher.start(entry, with: site.page("home"), window: .profile("Home"), .init(), launcher: Launcher(), homes: site.homes)
        }
    }

    @Test(.enabled(if: installed(firefox)), .timeLimit(.minutes(5)))
    func firefoxTakesTheLinkIntoTheRunningProfileOrAPrivateWindow() async throws {
        let site = try await BrowserSite()
        defer { site.close() }
        let profiles = site.homes.home + "/.mozilla/firefox"
        try FileManager.default.createDirectory(atPath: profiles, withIntermediateDirectories: true)
        try Data("""
            [Profile0]
            Name=work
            IsRelative=1
            Path=Profiles/w1.work

            [Profile1]
            Name=personal
            IsRelative=1
            Path=Profiles/p1.personal
            Default=1

            [General]
            StartWithLastProfile=1
            Version=2

            """.utf8).write(to: URL(fileURLWithPath: profiles + "/profiles.ini"))
        for path in ["Profiles/w1.work", "Profiles/p1.personal"] {
            try FileManager.default.createDirectory(atPath: profiles + "/" + path, withIntermediateDirectories: true)
            // Marionette on a port of the system's choosing, written to MarionetteActivePort; no first-run pages.
            try Data("""
                user_pref("marionette.port", 0);
                user_pref("browser.shell.checkDefaultBrowser", false);
                user_pref("browser.aboutwelcome.enabled", false);
                user_pref("datareporting.policy.dataSubmissionEnabled", false);
                user_pref("browser.startup.homepage_override.mstone", "ignore");
                user_pref("browser.tabs.warnOnClose", false);

                """.utf8).write(to: URL(fileURLWithPath: profiles + "/" + path + "/user.js"))
        }
        // Firefox hands a link to the running instance of a profile over D-Bus: a bus of the test's own.
        try await site.startBus()
        let entry = try site.entry("waypost-test-firefox", Self.firefox, ["%u"])
        let running = try await site.start(Self.firefox, ["-P", "personal", "--marionette", "-remote-allow-system-access", "about:blank"], log: "firefox.log")
        let portFile = profiles + "/Profiles/p1.personal/MarionetteActivePort"
        try await waitUntil("Firefox writes MarionetteActivePort", seconds: 120, context: site.log("firefox.log")) {
            Int(((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) != nil
        }
        let port = try String(contentsOfFile: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        _ = try await Dispatcher.start(entry, with: site.page("personal"), window: .profile("Personal"), .init(), launcher: Launcher(), homes: site.homes)
        let tab = try await site.firefoxWindow(showing: site.page("personal"), port)
        #expect(tab.private == false && tab.urls.contains("about:blank"), "a tab beside the running window's: \(tab)")
        try await site.waitUntilAlone(running, "firefox-esr", nil)

        _ = try await Dispatcher.start(entry, with: site.page("private"), window: .privateWindow, .init(), launcher: Launcher(), homes: site.homes)
        let window = try await site.firefoxWindow(showing: site.page("private"), port)
        #expect(window.private, "a private window: \(window)")
        try await site.waitUntilAlone(running, "firefox-esr", nil)

        // Firefox rewrote profiles.ini by now, in an order of its own.
        await #expect {
            try await Dispatcher.start(entry, with: site.page("home"), window: .profile("home"), .init(), launcher: Launcher(), homes: site.homes)
        } throws: { error in
            guard case .launchFailed("waypost-test-firefox", let reason) = error as? DispatchError else { return false }
            return reason.hasPrefix("firefox-esr has no profile 'home'; its profiles: ") && reason.contains("'work'") && reason.contains("'personal'")
        }
    }
}
