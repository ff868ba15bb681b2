import Foundation
import Testing
import TestSupport

/// The browser extension end to end: `waypost install --browser` on a throwaway desktop, a real
/// Chromium under Xvfb with the installed extension loaded unpacked, clicks sent as trusted mouse
/// events through the DevTools protocol (Fixtures/chromium_driver.py), the native-messaging host
/// started by Chromium from the manifest install wrote, and the daemon deciding.
///
/// Chromium and Xvfb come from `make deps`; `make test` sets WAYPOST_REQUIRE_BROWSER=1, so that
/// where they are missing these tests fail instead of being skipped (CI skips nothing).
@Suite(.serialized) struct BrowserExtensionTests {
    static let chromium = "/usr/bin/chromium"
    static let runsHere = FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb")
        || ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_BROWSER"] == "1"
    static let driver = ThrowawayDesktop.fixtures.appendingPathComponent("chromium_driver.py").path
    static let hostClient = ThrowawayDesktop.fixtures.appendingPathComponent("native_host_client.py").path

    static let page = """
        <!DOCTYPE html><title>links</title><body style="font-size: 24px">
        <p><a id="owned" href="https://shop.example/product/1">owned</a></p>
        <p><a id="owned2" href="https://shop.example/product/2">owned, clicked by a script</a></p>
        <p><a id="owned3" href="https://shop.example/product/3">owned</a></p>
        <p><a id="excluded" href="https://shop.example/account/login">an owned domain, a path no app owns</a></p>
        <p><a id="unowned" href="http://127.0.0.1:{port}/other.html">another site no app owns</a></p>
        <p><a id="same" href="http://localhost:{port}/same.html">same site</a></p>
        """
    static let pages = ["page.html": page, "other.html": "<title>other</title>", "same.html": "<title>same</title>"]
    static let pageURL = "http://localhost:{port}/page.html"

    /// The shop of UniversalLinkTests, running, with a browser stand-in, and `install --web --browser`.
    func installShop(_ desktop: ThrowawayDesktop) async throws {
        try await UniversalLinkTests().installShop(desktop, running: true)
        let install = try await desktop.waypost("install", "--browser")
        try #require(install.status == 0, "\(install.output)\(install.errors)")
    }

    /// Runs a scenario in Chromium, on a screen of its own; one result per step, the failing step's
    /// error last.
    func drive(_ desktop: ThrowawayDesktop, _ steps: [[String: Any]]) async throws -> [[String: Any]] {
        let screen = try await VirtualScreen(size: "1280x800x24", errors: desktop.root.appendingPathComponent("logs/xvfb.log"))
        defer { screen.stop() }
        let scenario: [String: Any] = [
            "display": screen.display,
            "extension": desktop.root.appendingPathComponent("data/waypost/browser-extension/chromium").path,
            // Chromium reads the user's host manifests from <user data dir>/NativeMessagingHosts:
            // the profile is where `install --browser` wrote Chromium's ($XDG_CONFIG_HOME/chromium).
            "profile": desktop.root.appendingPathComponent("config/chromium").path,
            "log": desktop.root.appendingPathComponent("logs/chromium.log").path,
            "pages": Self.pages, "steps": steps,
        ]
        let file = desktop.root.appendingPathComponent("scenario.json")
        try JSONSerialization.data(withJSONObject: scenario).write(to: file)
        let run = try await desktop.run(ThrowawayDesktop.python, [Self.driver, file.path])
        let results = run.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        if let failed = results.last?["error"] {
            Issue.record("step \(results.count - 1) failed: \(failed)\n\(run.errors)\n\(desktop.busLog)")
        }
        try #require(results.count == steps.count + 1, """
            the driver stopped: \(run.output)\(run.errors)
            Chromium: \((try? String(contentsOf: desktop.root.appendingPathComponent("logs/chromium.log"), encoding: .utf8)) ?? "")
            """)
        return Array(results.dropFirst())
    }

    /// What the toolbar popup sends the background script for shop.example.
    static func message(_ type: String) -> String { "chrome.runtime.sendMessage({type: '\(type)', domain: 'shop.example'})" }

    func shopLinks(_ desktop: ThrowawayDesktop) -> [String] {
        desktop.received("org.example.Shop").compactMap { $0["uri"] as? String }
    }

    @Test(.enabled(if: runsHere)) func anOwnedLinkHandsOffAndTheTabStaysWhileEveryOtherClickNavigates() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop)
        let log = desktop.log(of: "org.example.Shop").path
        let results = try await drive(desktop, [
            ["do": "wait-storage", "key": "owned", "domain": "shop.example"],
            ["do": "navigate", "url": Self.pageURL],
            ["do": "click", "selector": "#owned"],
            ["do": "wait-file", "path": log, "contains": "https://shop.example/product/1"],
            ["do": "tab"],
            // The host asks the daemon: this path is excluded, so the tab goes there itself.
            ["do": "click", "selector": "#excluded"],
            ["do": "wait-navigation", "url": "https://shop.example/account/login"],
            ["do": "navigate", "url": Self.pageURL],
            ["do": "click", "selector": "#unowned"],
            ["do": "wait-navigation", "url": "http://127.0.0.1:{port}/other.html"],
            ["do": "navigate", "url": Self.pageURL],
            ["do": "click", "selector": "#same"],
            ["do": "wait-navigation", "url": "http://localhost:{port}/same.html"],
            // A page script's click is no user's: the browser follows it, Waypost does nothing.
            ["do": "navigate", "url": Self.pageURL],
            ["do": "script-click", "selector": "#owned2"],
            ["do": "wait-navigation", "url": "https://shop.example/product/2"],
            ["do": "navigate", "url": Self.pageURL],
            ["do": "click", "selector": "#owned3"],
            ["do": "wait-file", "path": log, "contains": "https://shop.example/product/3"],
            ["do": "tab"],
        ])
        let stayed = results[4]
        #expect((stayed["url"] as? String)?.hasSuffix("/page.html") == true, "\(stayed)")
        #expect((stayed["navigations"] as? [String]) == [], "the tab did not navigate: \(stayed)")
        #expect((results[19]["navigations"] as? [String]) == [], "\(results[19])")
        // The app got the two clicked links, once each, and neither the excluded nor the scripted one.
        #expect(shopLinks(desktop) == ["https://shop.example/product/1", "https://shop.example/product/3"])
        #expect(desktop.plainLines("org.example.Browser").isEmpty, "nothing went to another browser")
    }

    @Test(.enabled(if: runsHere)) func keepInBrowserIsRememberedForEveryOpenerAndUndone() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop)
        let log = desktop.log(of: "org.example.Shop").path
        let rule = desktop.root.appendingPathComponent("config/waypost/associations/shop.example.json")
        let results = try await drive(desktop, [
            ["do": "wait-storage", "key": "owned", "domain": "shop.example"],
            // What the toolbar popup's "Keep opening shop.example in the browser" sends.
            ["do": "eval-extension", "expression": Self.message("keep-in-browser")],
            ["do": "wait-storage", "key": "kept", "domain": "shop.example"],
            // The popup's buttons that are hidden are not drawn (an author's `display` would show them).
            ["do": "eval-extension", "expression": "[...document.querySelectorAll('button')].filter(b => b.hidden && b.getClientRects().length > 0).length"],
            ["do": "navigate", "url": Self.pageURL],
            ["do": "click", "selector": "#owned"],
            ["do": "wait-navigation", "url": "https://shop.example/product/1"],
            // Every opener, at once: the host had the daemon read the rule before the extension heard.
            ["do": "run", "argv": ["/usr/bin/gio", "open", "https://shop.example/product/5"]],
            ["do": "run", "argv": [ThrowawayDesktop.waypost, "links", "undo-keep", "shop.example"]],
            ["do": "wait-storage", "key": "kept", "domain": "shop.example", "present": false],
            ["do": "run-until", "argv": [ThrowawayDesktop.waypost, "explain", "https://shop.example/product/3"], "contains": "the association of shop.example"],
            ["do": "navigate", "url": Self.pageURL],
            ["do": "click", "selector": "#owned3"],
            ["do": "wait-file", "path": log, "contains": "https://shop.example/product/3"],
            // Kept and undone from the extension alone.
            ["do": "eval-extension", "expression": Self.message("keep-in-browser")],
            ["do": "eval-extension", "expression": Self.message("undo-keep")],
        ])
        #expect((results[1]["value"] as? [String: Any])?["kept"] as? [String] == ["shop.example"], "\(results[1])")
        #expect(results[3]["value"] as? Int == 0, "hidden popup buttons drawn: \(results[3])")
        #expect(results[7]["status"] as? Int == 0, "\(results[7])")
        #expect(results[8]["status"] as? Int == 0, "\(results[8])")
        #expect((results[15]["value"] as? [String: Any])?["kept"] as? [String] == [], "\(results[15])")
        #expect(desktop.plainLines("org.example.Browser") == ["https://shop.example/product/5"])
        #expect(shopLinks(desktop) == ["https://shop.example/product/3"])
        #expect(!FileManager.default.fileExists(atPath: rule.path), "undo removed Waypost's rule file")
    }

    /// Clicks `#owned` in Chromium on a desktop whose shop app cannot take the link; the tab must
    /// navigate to the page itself, once, and no other browser or app may get it.
    func clickLeftToTheTab(_ desktop: ThrowawayDesktop) async throws -> [String: Any] {
        let results = try await drive(desktop, [
            ["do": "wait-storage", "key": "owned", "domain": "shop.example"],
            ["do": "navigate", "url": Self.pageURL],
            ["do": "click", "selector": "#owned"],
            ["do": "wait-navigation", "url": "https://shop.example/product/1"],
            // Runs after the host answered the click (the tab navigates only then), so a second
            // navigation or a hand-over elsewhere would already show.
            ["do": "run", "argv": [ThrowawayDesktop.waypost, "explain", "https://shop.example/product/1"]],
            ["do": "tab"],
        ])
        let navigations = results[5]["navigations"] as? [String] ?? []
        #expect(navigations.filter { $0 == "https://shop.example/product/1" }.count == 1, "navigated once: \(results[5])")
        #expect(desktop.plainLines("org.example.Browser").isEmpty, "no other browser got the page")
        return results[4]
    }

    @Test(.enabled(if: runsHere)) func anOwnedLinkWhoseScenesRefuseItNavigatesTheTabOnce() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await UniversalLinkTests().installShop(desktop, running: true, behaviour: ["OpenURL": "refuse", "CreateScene": "refuse"])
        let install = try await desktop.waypost("install", "--browser")
        try #require(install.status == 0, "\(install.output)\(install.errors)")
        let explained = try await clickLeftToTheTab(desktop)
        // The plan Explain showed: the app's scene, its new scene, then the browser, which here is the tab.
        #expect((explained["output"] as? String)?.contains("\"steps\"") == true, "\(explained)")
        // The app was asked, in its open scene and for a new one, and refused both; it has no scene for it.
        #expect(desktop.received("org.example.Shop").map { $0["event"] as? String } == ["OpenURL", "CreateScene"])
    }

    @Test(.enabled(if: runsHere)) func anOwnedLinkTheLaunchedAppTakesInNoSceneNavigatesTheTabOnce() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        // The shop is not running, and once started it has no scene that takes a product: its one
        // declaration matches nothing, and it opens no window.
        try await desktop.installApp(
            "org.example.Shop", mimeTypes: [], declarations: [("orders", ["kind": "window-group", "matching": [String]()])],
            associatedDomains: ["shop.example"])
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https"])
        try Data("[Default Applications]\nx-scheme-handler/https=org.example.Browser.desktop;\n".utf8).write(to: desktop.mimeAppsList)
        try desktop.installAssociation("shop.example", UniversalLinkTests.shopAssociation)
        for kind in ["--web", "--browser"] {
            let install = try await desktop.waypost("install", kind)
            try #require(install.status == 0, "\(install.output)\(install.errors)")
        }
        _ = try await clickLeftToTheTab(desktop)
        #expect(desktop.readyCount("org.example.Shop") == 1, "the click started the app once")
        #expect(desktop.received("org.example.Shop").isEmpty, "no scene of the app got it")
    }

    // MARK: The host alone, through pipes

    func talk(_ desktop: ThrowawayDesktop, _ actions: [[String: Any]], caller: [String]) async throws -> [[String: Any]] {
        let file = desktop.root.appendingPathComponent("actions.json")
        try JSONSerialization.data(withJSONObject: actions).write(to: file)
        let run = try await desktop.run(ThrowawayDesktop.python, [Self.hostClient, file.path, ThrowawayDesktop.waypost, "browser-host"] + caller)
        let replies = run.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(replies.count == actions.filter { $0["send"] != nil || $0["send-raw"] != nil || $0["send-length"] != nil || $0["await-push"] != nil }.count + 1,
                     "\(run.output)\(run.errors)\n\(desktop.busLog)")
        return replies
    }

    static let chromiumCaller = ["chrome-extension://dlcbkgibophkfedgdgmpjniaejihejlf/"]

    @Test func theHostAnswersFromTheDaemonAndRefusesWhatBreaksTheSchema() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop)
        let replies = try await talk(desktop, [
            ["send": ["id": 1, "type": "owned-domains"]],
            ["send": ["id": 2, "type": "owner", "url": "https://shop.example/product/1"]],
            ["send": ["id": 3, "type": "owner", "url": "https://shop.example/account/login"]],
            ["send": ["id": 4, "type": "open", "url": "https://shop.example/product/9"]],
            ["send-raw": "{not json"],
            ["send": ["id": 5, "type": "format-disk"]],
            ["send": ["id": 6, "type": "open", "url": "file:///etc/passwd"]],
            ["send": ["id": 7, "type": "owned-domains", "extra": true]],
            ["send": ["id": 8, "type": "keep-in-browser", "domain": "shop.example/evil"]],
            // A user rule sending news.example to an app: the daemon says the owned domains changed.
            ["write": desktop.root.appendingPathComponent("config/waypost/associations/news.example.json").path,
             "text": #"{"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [{"/": "*"}]}]}}"#],
            ["await-push": "news.example"],
            // A silent daemon: the click waits 300 ms at most, then proceeds in the browser.
            ["stop-daemon": true],
            ["send": ["id": 9, "type": "open", "url": "https://shop.example/product/10"]],
            ["continue-daemon": true],
            ["send-length": 70_000],
        ], caller: Self.chromiumCaller)
        #expect(replies[0]["domains"] as? [String] == ["shop.example"], "\(replies[0])")
        #expect(replies[1]["owned"] as? Bool == true && replies[1]["app"] as? String == "org.example.Shop", "\(replies[1])")
        #expect(replies[1]["name"] as? String == "org.example.Shop", "\(replies[1])")
        #expect(replies[2]["owned"] as? Bool == false, "\(replies[2])")
        #expect(replies[3]["opened"] as? Bool == true, "\(replies[3])")
        #expect(replies[4]["error"] as? String == "malformed-message", "\(replies[4])")
        #expect(replies[5]["error"] as? String == "unknown-type", "\(replies[5])")
        #expect(replies[6]["error"] as? String == "invalid-value", "\(replies[6])")
        #expect(replies[7]["error"] as? String == "unexpected-key", "\(replies[7])")
        #expect(replies[8]["error"] as? String == "invalid-value", "\(replies[8])")
        #expect(replies[9]["domains"] as? [String] == ["news.example", "shop.example"], "\(replies[9])")
        #expect(replies[10]["owned"] as? Bool == false && replies[10]["opened"] as? Bool == false, "\(replies[10])")
        #expect((replies[10]["reason"] as? String)?.contains("did not answer") == true, "\(replies[10])")
        #expect(replies[11]["error"] as? String == "message-too-large", "\(replies[11])")
        #expect(replies[12]["exit"] as? Int == 65, "the host ends after an oversized message: \(replies[12])")
        #expect(shopLinks(desktop) == ["https://shop.example/product/9"], "only the opened link reached the app")
    }

    /// The host reads Open's outcome: an owned link the app refuses is opened nowhere else, and the
    /// reply says not opened, so the tab navigates to the page itself, once.
    @Test func anOwnedLinkTheAppRefusesIsLeftToTheTab() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await UniversalLinkTests().installShop(desktop, running: true, behaviour: ["OpenURL": "refuse", "CreateScene": "refuse"])
        let install = try await desktop.waypost("install", "--browser")
        try #require(install.status == 0, "\(install.output)\(install.errors)")
        let replies = try await talk(desktop, [
            ["send": ["id": 1, "type": "open", "url": "https://shop.example/product/11"]],
        ], caller: Self.chromiumCaller)
        #expect(replies[0]["owned"] as? Bool == true, "\(replies[0])")
        #expect(replies[0]["opened"] as? Bool == false, "\(replies[0])")
        // gio open asks without shows-pages: the same refusal sends the page to the browser.
        let gio = try await desktop.run("/usr/bin/gio", ["open", "https://shop.example/product/12"])
        #expect(gio.status == 0, "\(gio.errors)")
        try await waitUntil("the browser has the gio link", context: desktop.busLog) { !desktop.plainLines("org.example.Browser").isEmpty }
        #expect(desktop.plainLines("org.example.Browser") == ["https://shop.example/product/12"], "the tab's link reached no browser")
    }

    @Test func theHostServesOnlyWaypostsExtension() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        let stranger = try await desktop.waypost("browser-host", "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/")
        #expect(stranger.status == 77 && stranger.errors.contains("not Waypost's browser extension"), "\(stranger.errors)")
        let firefoxStranger = try await desktop.waypost("browser-host", "/home/u/.mozilla/native-messaging-hosts/io.waypost.browser_host.json", "evil@example.com")
        #expect(firefoxStranger.status == 77, "\(firefoxStranger.errors)")
    }
}
