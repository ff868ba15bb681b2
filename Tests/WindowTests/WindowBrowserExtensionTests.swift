import Foundation
import TestSupport
import Testing

/// A click in Chromium on a link Contacts owns (a universal link, through Waypost's extension)
/// ends with Contacts' window for it active, on a screen with a window manager.
///
/// Its name holds "BrowserExtensionTests" so that `make test` runs it with the other Chromium tests,
/// after the rest: the extension waits at most 300 ms for the daemon's answer.
@Suite(.serialized) struct WindowBrowserExtensionTests {
    static let runsHere = ContactsWindowTests.runsHere && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        || ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_BROWSER"] == "1"
    static let driver = WindowDesktop.packageRoot.appendingPathComponent("Tests/DesktopIntegrationTests/Fixtures/chromium_driver.py").path
    static let association = #"{"applinks": {"details": [{"appIDs": ["io.waypost.example.Contacts"], "components": [{"/": "/show", "?": {"id": "?*"}}]}]}}"#
    static let page = #"<!DOCTYPE html><title>people</title><body style="font-size: 24px"><p><a id="bob" href="https://contacts.example/show?id=51C2-BOB">Bob</a></p>"#

    @Test(.enabled(if: runsHere))
    func aClickedLinkBringsContactsWindowForItToTheFront() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        // Contacts claims contacts.example, whose association names it; a stand-in is the browser.
        let template = try String(
            contentsOf: WindowDesktop.packageRoot.appendingPathComponent("desktop/windows/io.waypost.example.Contacts.desktop"), encoding: .utf8)
        let browser = "[Desktop Entry]\nType=Application\nName=Browser\nExec=/bin/true %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;\n"
        try await desktop.install([], entries: [
            "io.waypost.example.Contacts": template.replacing("@BINDIR@", with: WindowDesktop.binDirectory.path)
                + "X-Waypost-Associated-Domains=contacts.example;\n",
            "org.example.Browser": browser,
        ])
        let associations = desktop.root.appendingPathComponent("data/waypost/associations")
        try FileManager.default.createDirectory(at: associations, withIntermediateDirectories: true)
        try Data(Self.association.utf8).write(to: associations.appendingPathComponent("contacts.example.json"))
        try Data("[Default Applications]\nx-scheme-handler/https=org.example.Browser.desktop;\nx-scheme-handler/http=org.example.Browser.desktop;\n".utf8)
            .write(to: desktop.root.appendingPathComponent("config/mimeapps.list"))
        for flag in ["--web", "--browser"] {
            let install = try await desktop.run(WindowDesktop.waypost, ["install", flag])
            try #require(install.status == 0, "\(install.output)\(install.errors)")
        }
        // Contacts running, with Ada's window (which takes only Ada).
        try await desktop.run("/usr/bin/gio", ["open", "contacts://show?id=0F3A-ADA"])
        let ada = try await desktop.activeWindow(titled: "Ada Lovelace – Contacts")

        let scenario: [String: Any] = [
            "display": desktop.display,
            "extension": desktop.root.appendingPathComponent("data/waypost/browser-extension/chromium").path,
            "profile": desktop.root.appendingPathComponent("config/chromium").path,
            "log": desktop.root.appendingPathComponent("logs/chromium.log").path,
            "pages": ["page.html": Self.page],
            "steps": [
                ["do": "wait-storage", "key": "owned", "domain": "contacts.example"],
                ["do": "navigate", "url": "http://localhost:{port}/page.html"],
                ["do": "click", "selector": "#bob"],
                ["do": "run-until", "argv": ["/usr/bin/xdotool", "getactivewindow", "getwindowname"], "contains": "Bob Kahn – Contacts"],
                ["do": "tab"],
            ] as [[String: Any]],
        ]
        let file = desktop.root.appendingPathComponent("scenario.json")
        try JSONSerialization.data(withJSONObject: scenario).write(to: file)
        let run = try await desktop.run("/usr/bin/python3", [Self.driver, file.path])
        let results = run.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(results.count == 6 && results.last?["error"] == nil, """
            \(run.output)\(run.errors)
            Chromium: \((try? String(contentsOf: desktop.root.appendingPathComponent("logs/chromium.log"), encoding: .utf8)) ?? "")
            \(desktop.busLog)
            """)
        // The tab stayed where it was: the link went to the app, not the web.
        #expect((results[5]["navigations"] as? [String]) == [], "\(results[5])")
        let bob = try await desktop.activeWindow(titled: "Bob Kahn – Contacts")
        #expect(bob != ada, "a new window for Bob")
    }
}
