import DBus
import Foundation
import Testing
import TestSupport

/// The user's rules by opener and by scheme, end to end, with real rule files in the throwaway
/// `$XDG_CONFIG_HOME/waypost/associations`: the README's two examples, a custom scheme sent to an
/// app, and a caller that exits before the dispatcher could see it (its opener is unknown, so a rule
/// naming an app never takes its link).
@Suite struct OpenerRuleTests {
    /// An app whose process opens a link through the dispatcher's `Open` (Fixtures/open_link.py).
    static let chatExec = "\(ThrowawayDesktop.python) \(ThrowawayDesktop.fixtures.appendingPathComponent("open_link.py").path) %u"

    /// The app `org.example.Chat` opens `uri`; returns once the dispatcher answered (or, with
    /// `exitAtOnce`, once the process exited, right after sending).
    func chatOpens(_ desktop: ThrowawayDesktop, _ uri: String, exitAtOnce: Bool = false) async throws {
        let script = ThrowawayDesktop.fixtures.appendingPathComponent("open_link.py").path
        let result = try await desktop.run(ThrowawayDesktop.python, [script, uri] + (exitAtOnce ? ["--exit"] : []))
        #expect(result.status == 0, "\(result.errors)\n\(desktop.busLog)")
    }

    /// Chat opens `uri`, checked against the plan `ExplainOpenedBy` reports for Chat.
    func chatOpensAsPlanned(_ desktop: ThrowawayDesktop, _ uri: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await desktop.openAsPlanned(uri, opener: "org.example.Chat", sourceLocation: sourceLocation) {
            try await chatOpens(desktop, uri)
        }
    }

    /// The shop and the browser (`UniversalLinkTests.installShop`), a work browser, and Chat.
    func installBrowsersAndChat(_ desktop: ThrowawayDesktop) async throws {
        try await desktop.installPlainApp("org.example.WorkBrowser", mimeTypes: [])
        try await desktop.installPlainApp("org.example.Chat", mimeTypes: [], exec: Self.chatExec)
        try await UniversalLinkTests().installShop(desktop, running: false)
    }

    @Test func linksFromChatGoToTheWorkBrowser() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try desktop.writeUserRule("from-chat", """
            {"hosts": ["*"],
             "applinks": {"details": [
               {"appIDs": ["org.example.WorkBrowser"], "components": [{"opener": ["org.example.Chat"]}]}]}}
            """)
        try await installBrowsersAndChat(desktop)
        let monitor = try await ChildProcess.start(ThrowawayDesktop.waypost, ["monitor", "--count", "3"], environment: desktop.environment)
        #expect(try await monitor.nextLine("waypost monitor watches")?.hasPrefix("watching") == true)

        try await chatOpensAsPlanned(desktop, "https://news.example/story")
        // Before the shop's own association: the user's rule comes first.
        try await chatOpensAsPlanned(desktop, "https://shop.example/product/1")
        try await UniversalLinkTests().gioOpens(desktop, "https://news.example/other")
        try await waitUntil("both browsers have their links", context: "\(desktop.plainLines("org.example.WorkBrowser")) \(desktop.plainLines("org.example.Browser"))\n\(desktop.busLog)") {
            desktop.plainLines("org.example.WorkBrowser").count == 2 && desktop.plainLines("org.example.Browser").count == 1
        }
        #expect(desktop.plainLines("org.example.WorkBrowser") == ["https://news.example/story", "https://shop.example/product/1"])
        #expect(desktop.plainLines("org.example.Browser") == ["https://news.example/other"])
        var lines: [String] = []
        while lines.count < 3, let line = try await monitor.nextLine("waypost monitor's next line") { lines.append(line) }
        #expect(lines.prefix(2).allSatisfy { $0.contains("→ org.example.WorkBrowser") && $0.hasSuffix("(opened by org.example.Chat)") }, "\(lines)")
        #expect(lines.last?.contains("→ org.example.Browser") == true, "\(lines)")

        let explained = try await desktop.waypost("explain", "--format", "text", "--opener", "org.example.Chat", "https://news.example/x")
        #expect(explained.output.contains("org.example.WorkBrowser, by the user rule"), "\(explained.output)\(explained.errors)")
        // Explain asked by Chat's own process plans as Chat's Open would (the browser extension's
        // host asks so: a rule naming the browser holds for its clicks).
        let script = ThrowawayDesktop.fixtures.appendingPathComponent("open_link.py").path
        let asked = try await desktop.run(ThrowawayDesktop.python, [script, "https://news.example/x", "--explain"])
        #expect(asked.output == "org.example.WorkBrowser\n", "\(asked.output)\(asked.errors)")
        let rule = desktop.root.appendingPathComponent("config/waypost/associations/from-chat.json").path
        let matched = try await desktop.waypost("links", "match", "--association", rule, "--opener", "org.example.Chat", "https://news.example/x")
        #expect(matched.output.contains(#""apps":["org.example.WorkBrowser"]"#), "\(matched.output)\(matched.errors)")
        let unmatched = try await desktop.waypost("links", "match", "--association", rule, "https://news.example/x")
        #expect(unmatched.output.contains(#""apps":[]"#), "\(unmatched.output)\(unmatched.errors)")
    }

    @Test func zoomLinksFromAnywhereButZoomGoToZoomAndZoommtgLinksToo() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try desktop.writeUserRule("zoom", """
            {"hosts": ["zoom.us", "*.zoom.us"],
             "applinks": {"details": [
               {"appIDs": ["us.zoom.Zoom"], "components": [
                 {"opener": ["us.zoom.Zoom"], "exclude": true},
                 {"/": "/j/*"}]}]}}
            """)
        try desktop.writeUserRule("zoommtg", """
            {"scheme": "zoommtg",
             "applinks": {"details": [{"appIDs": ["us.zoom.Zoom"], "components": [{}]}]}}
            """)
        try await installBrowsersAndChat(desktop)
        try await desktop.installApp(
            "us.zoom.Zoom", mimeTypes: [], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "meeting", declaration: "main", modifiers: [([], ["*"])])])
        try await desktop.start("us.zoom.Zoom")

        let meeting = "https://zoom.us/j/123"
        try await chatOpensAsPlanned(desktop, meeting)
        try await UniversalLinkTests().gioOpens(desktop, "https://us02web.zoom.us/j/456")
        // Zoom hands its own meeting page to the browser.
        try await desktop.openAsPlanned(meeting, opener: "us.zoom.Zoom") {
            try await OpenerTests().control(desktop, "us.zoom.Zoom", "Run") { bus, owner in
                _ = try await bus.call(destination: owner, path: "/io/waypost/sample", interface: "io.waypost.test.Control",
                                       member: "Run", ["/usr/bin/gio", "open", meeting], [String: String]())
            }
        }
        try await waitUntil("the browser has Zoom's own link", context: desktop.busLog) { desktop.plainLines("org.example.Browser").count == 1 }
        #expect(desktop.plainLines("org.example.Browser") == [meeting])

        // A custom scheme no entry declares: the user's rule sends it to Zoom.
        try await desktop.openAsPlanned("zoommtg://zoom.us/join?confno=789") {
            let scheme = try await desktop.waypost("open", "zoommtg://zoom.us/join?confno=789")
            #expect(scheme.status == 0, "\(scheme.errors)\n\(desktop.busLog)")
        }
        let opened = desktop.received("us.zoom.Zoom").filter { $0["event"] as? String == "OpenURL" }.compactMap { $0["uri"] as? String }
        #expect(opened == [meeting, "https://us02web.zoom.us/j/456", "zoommtg://zoom.us/join?confno=789"])

        let explained = try await desktop.waypost("explain", "--format", "text", "--opener", "us.zoom.Zoom", meeting)
        #expect(explained.output.contains("excludes the link"), "\(explained.output)\(explained.errors)")
        #expect(explained.output.contains("org.example.Browser"), "\(explained.output)")
        let schemeExplained = try await desktop.waypost("explain", "--format", "text", "zoommtg://zoom.us/join?confno=1")
        #expect(schemeExplained.output.contains("us.zoom.Zoom, by the user rule"), "\(schemeExplained.output)\(schemeExplained.errors)")
    }

    @Test func aCallerThatExitsBeforeItIsSeenHasNoOpener() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try desktop.writeUserRule("from-chat", """
            {"hosts": ["*"], "applinks": {"details": [
              {"appIDs": ["org.example.WorkBrowser"], "components": [{"opener": ["org.example.Chat"]}]}]}}
            """)
        try await installBrowsersAndChat(desktop)

        let monitor = try await ChildProcess.start(ThrowawayDesktop.waypost, ["monitor", "--count", "2"], environment: desktop.environment)
        #expect(try await monitor.nextLine("waypost monitor watches")?.hasPrefix("watching") == true)
        // The daemon is held stopped while Chat's process sends the link without waiting for an
        // answer and exits: when the daemon reads the request, its sender is gone.
        let bus = try await Connection(address: desktop.address)
        let daemon = pid_t(try await bus.processID(of: BusName("io.waypost.Dispatcher")))
        // No opener is known: the plan without one (the browser) is what Open does.
        try await desktop.openAsPlanned("https://news.example/gone") {
            try #require(kill(daemon, SIGSTOP) == 0)
            defer { kill(daemon, SIGCONT) }
            try await chatOpens(desktop, "https://news.example/gone", exitAtOnce: true)
        }
        try await waitUntil("the browser has the link", context: "\(desktop.plainLines("org.example.WorkBrowser"))\n\(desktop.busLog)") {
            desktop.plainLines("org.example.Browser").count == 1
        }
        #expect(desktop.plainLines("org.example.Browser") == ["https://news.example/gone"])
        #expect(try await monitor.nextLine("waypost monitor's next line")?.hasSuffix("(opened by unknown)") == true)

        // The same process, staying until it has its answer, is Chat.
        try await chatOpensAsPlanned(desktop, "https://news.example/stayed")
        try await waitUntil("the work browser has the link", context: desktop.busLog) { desktop.plainLines("org.example.WorkBrowser").count == 1 }
        #expect(desktop.plainLines("org.example.WorkBrowser") == ["https://news.example/stayed"])
        #expect(desktop.plainLines("org.example.Browser") == ["https://news.example/gone"])
        #expect(try await monitor.nextLine("waypost monitor's next line")?.hasSuffix("(opened by org.example.Chat)") == true)
    }
}
