import AssociationSources
import Foundation
import Testing
import TestSupport

/// Universal links on a throwaway desktop: `waypost install --web` takes http and https, an https
/// link whose domain both sides agree on opens in its app (routed to a scene), every other web link
/// opens in the recorded browser, and nothing ever loops back into Waypost.
@Suite struct UniversalLinkTests {
    static let shopAssociation = """
        {"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [
            {"/": "/account/*", "exclude": true, "comment": "signing in stays in the browser"},
            {"/": "/product/*"},
            {"/": "/cart"}
        ]}]}}
        """

    /// A shop app claiming shop.example with a product window, a browser stand-in that logs what it
    /// is started with, shop.example's association installed, and `install --web`.
    func installShop(_ desktop: ThrowawayDesktop, running: Bool, behaviour: [String: String] = [:]) async throws {
        try await desktop.installApp(
            "org.example.Shop", mimeTypes: [], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "products", declaration: "main", modifiers: [([], ["*"])])],
            behaviour: behaviour, associatedDomains: ["shop.example"])
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https"])
        try Data("[Default Applications]\nx-scheme-handler/https=org.example.Browser.desktop;\nx-scheme-handler/http=org.example.Browser.desktop;\n".utf8)
            .write(to: desktop.mimeAppsList)
        try desktop.installAssociation("shop.example", Self.shopAssociation)
        let install = try await desktop.waypost("install", "--web")
        try #require(install.status == 0, "\(install.errors)")
        if running { try await desktop.start("org.example.Shop") }
    }

    /// `gio open link`, run as this test (an opener no rule names), checked against Explain's plan.
    @discardableResult
    func gioOpens(_ desktop: ThrowawayDesktop, _ link: String, refusals: Int = 0, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [String: String]
    {
        try await desktop.openAsPlanned(link, refusals: refusals, sourceLocation: sourceLocation) {
            let result = try await desktop.run("/usr/bin/gio", ["open", link])
            #expect(result.status == 0, "\(link): \(result.errors)\n\(desktop.busLog)", sourceLocation: sourceLocation)
        }
    }

    func opened(_ desktop: ThrowawayDesktop, _ app: String) -> [String] {
        desktop.received(app).map { "\($0["event"] ?? "?") \($0["scene"] ?? "?") \($0["uri"] ?? "?")" }
    }

    @Test func anOwnedLinkOpensInItsAppAndEveryOtherInTheBrowser() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop, running: true)

        try await gioOpens(desktop, "https://shop.example/product/42")
        // xdg-open, generic path (DISPLAY, no desktop): the handler entry's Exec, `waypost open`.
        try await desktop.openAsPlanned("https://shop.example/cart") {
            let generic = try await desktop.run("/usr/bin/xdg-open", ["https://shop.example/cart"], extra: ["DISPLAY": ":99"])
            #expect(generic.status == 0, "\(generic.output)\(generic.errors)")
        }
        try await desktop.openAsPlanned("https://SHOP.example./product/7") {
            let gnome = try await desktop.run("/usr/bin/xdg-open", ["https://SHOP.example./product/7"], extra: ["XDG_CURRENT_DESKTOP": "GNOME"])
            #expect(gnome.status == 0, "\(gnome.output)\(gnome.errors)")
        }
        #expect(opened(desktop, "org.example.Shop") == [
            "OpenURL products https://shop.example/product/42",
            "OpenURL products https://shop.example/cart",
            "OpenURL products https://SHOP.example./product/7",
        ])

        // Not owned: an excluded path, another domain, plain http, user-info. Each reaches the browser.
        for link in ["https://shop.example/account/login", "https://unowned.example/", "http://shop.example/product/1",
                     "https://me@shop.example/product/2"] {
            try await gioOpens(desktop, link)
        }
        try await waitUntil("the browser has the four links", context: desktop.busLog) { desktop.plainLines("org.example.Browser").count == 4 }
        #expect(Set(desktop.plainLines("org.example.Browser")) == [
            "https://shop.example/account/login", "https://unowned.example/", "http://shop.example/product/1",
            "https://me@shop.example/product/2",
        ])
        #expect(desktop.received("org.example.Shop").count == 3, "the app got nothing it does not own")
    }

    /// A domain whose association costs more to match than a decision may: its costly links go to
    /// the browser at once, the daemon says so once for the domain, and its cheap links still open
    /// in the app.
    @Test func aLinkOverTheStepBudgetGoesToTheBrowserAndIsLoggedOncePerDomain() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp(
            "org.example.Shop", mimeTypes: [], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "products", declaration: "main", modifiers: [([], ["*"])])], associatedDomains: ["shop.example"])
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https"])
        try Data("[Default Applications]\nx-scheme-handler/https=org.example.Browser.desktop;\n".utf8).write(to: desktop.mimeAppsList)
        // A variable of 1,000 values referenced 16 times: within the file limits, costly on a long path.
        let values = (0..<1000).map { $0 == 0 ? #""a""# : #""a\#($0)""# }.joined(separator: ",")
        try desktop.installAssociation("shop.example", #"{"applinks": {"substitutionVariables": {"v": [\#(values)]}, "details": [{"appIDs": ["org.example.Shop"], "components": [{"/": "/\#(String(repeating: "$(v)*", count: 16))x"}]}]}}"#)
        try #require(await desktop.waypost("install", "--web").status == 0)
        try await desktop.start("org.example.Shop")

        let costly = "https://shop.example/" + String(repeating: "a", count: 60_000) + "x"
        for _ in 0..<2 { try await gioOpens(desktop, costly) }
        try await waitUntil("the browser has both costly links", context: desktop.busLog) { desktop.plainLines("org.example.Browser").count == 2 }
        try await gioOpens(desktop, "https://shop.example/" + String(repeating: "a", count: 16) + "x")
        #expect(desktop.received("org.example.Shop").count == 1)
        #expect(desktop.busLog.components(separatedBy: "the association of shop.example costs more to match than a decision may").count == 2,
                "\(desktop.busLog.suffix(2000))")
    }

    @Test func anOwningAppThatIsNotRunningIsStartedAndGetsTheLinkOnce() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop, running: false)
        try await gioOpens(desktop, "https://shop.example/product/9")
        try await waitUntil("the started app has the link", context: desktop.busLog) { !desktop.received("org.example.Shop").isEmpty }
        #expect(opened(desktop, "org.example.Shop").count == 1)
        #expect(desktop.readyCount("org.example.Shop") == 1)
        #expect(desktop.plainLines("org.example.Browser").isEmpty)
    }

    @Test func anAppClaimingADomainWhoseAssociationDoesNotNameItGetsNothing() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop, running: true)
        // The hijack attempt: an app claims the bank's domain; the bank's association names the bank.
        try await desktop.installApp(
            "org.example.Evil", mimeTypes: [], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "phish", declaration: "main", modifiers: [([], ["*"])])],
            associatedDomains: ["bank.example", "*.shop.example"])
        try desktop.installAssociation("bank.example", #"{"applinks": {"details": [{"appIDs": ["org.example.Bank"], "components": [{"/": "*"}]}]}}"#)
        try await desktop.start("org.example.Evil")
        // And an association naming an app whose entry does not claim the domain.
        try desktop.installAssociation("news.example", #"{"applinks": {"details": [{"appIDs": ["org.example.Evil"], "components": [{"/": "*"}]}]}}"#)

        for link in ["https://bank.example/login", "https://www.shop.example/product/1", "https://news.example/today"] {
            try await gioOpens(desktop, link)
        }
        try await waitUntil("the browser has the three links", context: desktop.busLog) { desktop.plainLines("org.example.Browser").count == 3 }
        #expect(desktop.received("org.example.Evil").isEmpty)
        // The daemon rebuilds its claims when its directory monitor tells of Evil's entry, apart from
        // Evil's registration: the reason names the claim once that rebuild is done.
        let why = "the association of bank.example names org.example.Bank, not org.example.Evil"
        try await waitUntil("explain names why Evil does not get the bank's link", context: desktop.busLog) {
            try await desktop.waypost("explain", "https://bank.example/login").output.contains(why)
        }
        #expect(desktop.received("org.example.Evil").isEmpty)
    }

    @Test func explainNamesTheAssociationTheDetailsEntryAndTheComponent() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop, running: true)
        let owned = try await desktop.waypost("explain", "https://shop.example/cart")
        #expect(owned.status == 0, "\(owned.errors)")
        #expect(owned.output.contains("org.example.Shop"), "\(owned.output)")
        #expect(owned.output.contains("the association of shop.example"), "\(owned.output)")
        #expect(owned.output.contains("details[0].components[2]"), "\(owned.output)")
        let excluded = try await desktop.waypost("explain", "https://shop.example/account/x")
        #expect(excluded.output.contains("org.example.Browser"), "\(excluded.output)")
        #expect(excluded.output.contains("exclude"), "\(excluded.output)")
        #expect(desktop.received("org.example.Shop").isEmpty, "explain delivers nothing")
    }

    @Test func anOwningAppThatRefusesLeavesTheLinkToTheBrowser() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop, running: true, behaviour: ["OpenURL": "refuse", "CreateScene": "refuse"])
        // Explain's plan: the open scene, a new scene, then the browser; both of the app's refuse.
        let outcome = try await gioOpens(desktop, "https://shop.example/product/5", refusals: 2)
        #expect(outcome["rule"] == "browser", "the user sees the page: \(outcome)")
        #expect(desktop.received("org.example.Shop").map { $0["event"] as? String } == ["OpenURL", "CreateScene"])
        try await waitUntil("the browser has the link", context: desktop.busLog) { desktop.plainLines("org.example.Browser") == ["https://shop.example/product/5"] }
    }

    /// The plan's fall-through when a launch fails: the owning app's program is uninstalled after the
    /// daemon listed its entry (GIO notices no change in the applications directory), so starting it
    /// fails, and the plan's next step, the browser, gets the link.
    @Test func anOwningAppThatCannotBeStartedLeavesTheLinkToTheBrowser() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        let notAProgram = desktop.root.appendingPathComponent("files/shop")
        try "#!/bin/sh\nexit 1\n".write(to: notAProgram, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: notAProgram.path)
        try await desktop.writeEntry("org.example.Shop", """
            [Desktop Entry]
            Type=Application
            Name=Shop
            Exec=\(notAProgram.path) %u
            X-Waypost=true
            X-Waypost-Associated-Domains=shop.example;

            """)
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https"])
        try Data("[Default Applications]\nx-scheme-handler/https=org.example.Browser.desktop;\n".utf8).write(to: desktop.mimeAppsList)
        try desktop.installAssociation("shop.example", Self.shopAssociation)
        try #require(await desktop.waypost("install", "--web").status == 0)

        let link = "https://shop.example/product/3"
        let plan = try await desktop.plan(link)
        #expect(plan.map { $0["action"] } == ["launch", "fallback"] && plan.last?["rule"] == "browser", "\(plan)")
        try FileManager.default.removeItem(at: notAProgram)
        let outcome = try await gioOpens(desktop, link, refusals: 1)
        #expect(outcome["app-id"] == "org.example.Browser", "\(outcome)")
    }

    @Test func anAssociationInstalledWhileTheDaemonRunsIsUsedAtOnce() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop, running: true)
        try await desktop.installApp(
            "org.example.News", mimeTypes: [], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "front", declaration: "main", modifiers: [([], ["*"])])],
            associatedDomains: ["news.example"])
        try await desktop.start("org.example.News")
        try await gioOpens(desktop, "https://news.example/a")
        try await waitUntil("the browser has the first link", context: desktop.busLog) { desktop.plainLines("org.example.Browser").count == 1 }

        try desktop.installAssociation("news.example", #"{"applinks": {"details": [{"appIDs": ["org.example.News"], "components": [{"/": "*"}]}]}}"#)
        try await waitUntil("the daemon routes news.example to its app", context: desktop.busLog) {
            try await desktop.waypost("explain", "https://news.example/b").output.contains("the association of news.example")
        }
        try await gioOpens(desktop, "https://news.example/b")
        #expect(opened(desktop, "org.example.News") == ["OpenURL front https://news.example/b"])
    }

    @Test func theUsersOwnRuleSendsWorkLinksToTheWorkBrowser() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try desktop.writeUserRule("*.corp.example", #"{"applinks": {"details": [{"appIDs": ["org.example.WorkBrowser"], "components": [{"/": "*"}]}]}}"#)
        try await desktop.installPlainApp("org.example.WorkBrowser", mimeTypes: [])
        try await installShop(desktop, running: false)
        try await gioOpens(desktop, "https://wiki.corp.example/page")
        try await gioOpens(desktop, "https://elsewhere.example/")
        try await waitUntil("both browsers have their link", context: desktop.busLog) {
            desktop.plainLines("org.example.WorkBrowser").count == 1 && desktop.plainLines("org.example.Browser").count == 1
        }
        #expect(desktop.plainLines("org.example.WorkBrowser") == ["https://wiki.corp.example/page"])
        #expect(desktop.plainLines("org.example.Browser") == ["https://elsewhere.example/"])
    }

    @Test func aBrowserEntryThatWouldHandTheLinkBackIsNeverUsed() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installShop(desktop, running: false)
        // The recorded browser is uninstalled; the only https handler left runs xdg-open, which
        // would give the link straight back to Waypost.
        try await desktop.removeEntry("org.example.Browser")
        try await desktop.installPlainApp("org.example.Opener", mimeTypes: ["x-scheme-handler/https"], exec: "xdg-open %u")
        let gio = try await desktop.run("/usr/bin/gio", ["open", "https://unowned.example/"])
        #expect(gio.status != 0)
        #expect(gio.errors.contains("no browser is installed for x-scheme-handler/https"), "\(gio.errors)")
        // With a real browser installed again, it gets the link (the best installed https handler).
        try await desktop.installPlainApp("org.example.OtherBrowser", mimeTypes: ["x-scheme-handler/https"])
        try await waitUntil("the daemon sees the new browser", context: desktop.busLog) {
            try await desktop.waypost("explain", "https://unowned.example/").output.contains("org.example.OtherBrowser")
        }
        try await UniversalLinkTests().gioOpens(desktop, "https://unowned.example/")
        try await waitUntil("the other browser has the link", context: desktop.busLog) { desktop.plainLines("org.example.OtherBrowser").count == 1 }
    }
}

/// Associations fetched from the domain: the daemon uses a verified copy from the cache, never an
/// unverified one, and `waypost links list` / `verify` tell where each stands.
@Suite struct FetchedAssociationTests {
    func installNews(_ desktop: ThrowawayDesktop) async throws {
        try await desktop.installApp(
            "org.example.News", mimeTypes: [], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "front", declaration: "main", modifiers: [([], ["*"])])],
            associatedDomains: ["news.example", "paper.invalid"])
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/https"])
        try #require(await desktop.waypost("install", "--web").status == 0)
        try await desktop.start("org.example.News")
        // The daemon verifies the claimed domains once it starts; its record of news.example (a
        // failure: .example never resolves) must be written before a test stores its own.
        try await waitUntil("the daemon's own verification of news.example is recorded", context: desktop.busLog) {
            desktop.busLog.contains("verified news.example:")
        }
    }

    /// What a successful verification leaves in the cache (the daemon reads only the cache).
    func storeVerified(_ desktop: ThrowawayDesktop, _ domain: String, _ json: String) throws {
        let name = try AssociatedDomain(domain)
        let record = VerificationRecord(notYet: name).after(.success(FetchedFile(body: Array(json.utf8), maxAge: nil)), at: Date())
        try AssociationCache(directory: desktop.root.appendingPathComponent("cache/waypost/associations").path).store(record)
    }

    @Test func aVerifiedFetchedAssociationRoutesAndListShowsIt() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installNews(desktop)
        let before = try await desktop.waypost("explain", "https://news.example/a")
        #expect(before.output.contains("no association of news.example is installed or verified"), "\(before.output)\(before.errors)")

        try storeVerified(desktop, "news.example", #"{"applinks": {"details": [{"appIDs": ["org.example.News"], "components": [{"/": "*"}]}]}}"#)
        try await waitUntil("the daemon reads the verified copy", context: desktop.busLog) {
            try await desktop.waypost("explain", "https://news.example/a").output.contains("the association of news.example")
        }
        try await UniversalLinkTests().gioOpens(desktop, "https://news.example/a")
        #expect(desktop.received("org.example.News").count == 1)

        let list = try await desktop.waypost("links", "list")
        #expect(list.status == 0, "\(list.errors)")
        #expect(list.output.contains("news.example  org.example.News"), "\(list.output)")
        #expect(list.output.contains("fetched from https://news.example/.well-known/apple-app-site-association"), "\(list.output)")
        #expect(list.output.contains("state: news.example: verified"), "\(list.output)")
        #expect(list.output.contains("paper.invalid  org.example.News"), "\(list.output)")
    }

    /// A value Apple's matcher ignores (a query item that is not a string) no longer sends the
    /// site's every link to the browser: it is ignored, and `links list` and `links match` say so.
    @Test func aQueryItemThatIsNotAStringIsIgnoredWithAWarning() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installNews(desktop)
        let json = #"{"applinks": {"details": [{"appIDs": ["org.example.News"], "components": [{"/": "/story/*", "?": {"id": 7}}]}]}}"#
        try storeVerified(desktop, "news.example", json)
        try await waitUntil("the daemon reads the verified copy", context: desktop.busLog) {
            try await desktop.waypost("explain", "https://news.example/story/1").output.contains("the association of news.example")
        }
        let warning = #"warning: at $.applinks.details[0].components[0]["?"].id: expected a string, found a number; the query item is ignored"#
        let list = try await desktop.waypost("links", "list")
        #expect(list.status == 0, "\(list.errors)")
        #expect(list.output.contains("    " + warning), "\(list.output)")

        let file = desktop.root.appendingPathComponent("news.json")
        try Data(json.utf8).write(to: file)
        let match = try await desktop.waypost("links", "match", "--association", file.path, "https://news.example/story/1")
        #expect(match.status == 0, "\(match.errors)")
        #expect(match.errors.contains(warning), "\(match.errors)")
        #expect(match.output.contains(#""apps":["org.example.News"]"#), "\(match.output)")
    }

    @Test func verifyRecordsAFailureAndLinksKeepGoingToTheBrowser() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installNews(desktop)
        // .invalid never resolves (RFC 2606): the fetch fails, the record says why.
        let verify = try await desktop.waypost("links", "verify", "paper.invalid")
        #expect(verify.status == 1)
        #expect(verify.output.contains("paper.invalid: failed"), "\(verify.output)\(verify.errors)")
        let unclaimed = try await desktop.waypost("links", "verify", "other.example")
        #expect(unclaimed.status == 1)
        #expect(unclaimed.errors.contains("no installed app claims other.example"))
        try await UniversalLinkTests().gioOpens(desktop, "https://paper.invalid/story")
        try await waitUntil("the browser has the link", context: desktop.busLog) { desktop.plainLines("org.example.Browser") == ["https://paper.invalid/story"] }
        #expect(desktop.received("org.example.News").isEmpty)
    }
}
