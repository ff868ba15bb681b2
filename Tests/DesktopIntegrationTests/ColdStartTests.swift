import Foundation
import Testing
import TestSupport

/// The session's first links, with the daemon started by them: it takes its name having read only
/// the user's rules, and reads every claim and association file later (or when a web link needs
/// them). Each link is still decided on everything its decision reads.
@Suite struct ColdStartTests {
    let web = UniversalLinkTests()

    /// `gio open link` with nothing asked of the daemon before (no Explain: it would start the daemon).
    func gioOpen(_ desktop: ThrowawayDesktop, _ link: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await desktop.run("/usr/bin/gio", ["open", link])
        #expect(result.status == 0, "\(link): \(result.errors)\n\(desktop.busLog)", sourceLocation: sourceLocation)
    }

    /// The app got the link once (a started app gets it as a new scene).
    func receivedOnce(_ desktop: ThrowawayDesktop, _ app: String, _ link: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let events = desktop.received(app)
        #expect(events.count == 1 && "\(events)".contains(link), "\(events)\n\(desktop.busLog)", sourceLocation: sourceLocation)
    }

    @Test func theFirstWebLinkOfTheSessionIsDecidedByTheAssociationFiles() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await web.installShop(desktop, running: false)
        try await gioOpen(desktop, "https://shop.example/product/1")
        try await waitUntil("the started app has the link", context: desktop.busLog) { !desktop.received("org.example.Shop").isEmpty }
        receivedOnce(desktop, "org.example.Shop", "https://shop.example/product/1")
        try await gioOpen(desktop, "https://shop.example/account/login")
        try await waitUntil("the browser has the excluded link", context: desktop.busLog) { !desktop.plainLines("org.example.Browser").isEmpty }
        #expect(desktop.plainLines("org.example.Browser") == ["https://shop.example/account/login"])
    }

    @Test func theFirstCustomSchemeLinkOfTheSessionFollowsTheUsersRule() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try desktop.writeUserRule(
            "meetings", #"{"scheme": "benchmeet", "applinks": {"details": [{"appIDs": ["org.example.Room"], "components": [{"/": "/room/*"}]}]}}"#)
        for app in ["org.example.Lobby", "org.example.Room"] {
            try await desktop.installApp(
                app, mimeTypes: ["x-scheme-handler/benchmeet"], declarations: [("main", ["kind": "window-group"])],
                scenes: [(id: "main", declaration: "main", modifiers: [([], ["*"])])])
        }
        try Data("[Default Applications]\nx-scheme-handler/benchmeet=org.example.Lobby.desktop;\n".utf8).write(to: desktop.mimeAppsList)
        let install = try await desktop.waypost("install")
        try #require(install.status == 0, "\(install.errors)")
        try await gioOpen(desktop, "benchmeet://host/room/7")
        try await waitUntil("the rule's app has the link", context: desktop.busLog) { !desktop.received("org.example.Room").isEmpty }
        receivedOnce(desktop, "org.example.Room", "benchmeet://host/room/7")
        #expect(desktop.received("org.example.Lobby").isEmpty)
    }

    @Test func anAppInstalledAfterTheFirstLinkIsSeen() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await web.installShop(desktop, running: false)
        try await desktop.installApp(
            "org.example.Notes", mimeTypes: ["x-scheme-handler/benchnotes"], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "main", declaration: "main", modifiers: [([], ["*"])])])
        let install = try await desktop.waypost("install", "--web")
        try #require(install.status == 0, "\(install.errors)")
        // A custom-scheme link starts the daemon: the web-link table is not read for it.
        try await gioOpen(desktop, "benchnotes:first")
        try await waitUntil("the notes app has its link", context: desktop.busLog) { !desktop.received("org.example.Notes").isEmpty }

        try await desktop.installApp(
            "org.example.News", mimeTypes: [], declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "front", declaration: "main", modifiers: [([], ["*"])])],
            associatedDomains: ["news.example"])
        try desktop.installAssociation("news.example", #"{"applinks": {"details": [{"appIDs": ["org.example.News"], "components": [{"/": "*"}]}]}}"#)
        try await waitUntil("the daemon routes news.example to its new app", context: desktop.busLog) {
            try await desktop.waypost("explain", "https://news.example/b").output.contains("the association of news.example")
        }
        try await gioOpen(desktop, "https://news.example/b")
        try await waitUntil("the new app has the link", context: desktop.busLog) { !desktop.received("org.example.News").isEmpty }
        receivedOnce(desktop, "org.example.News", "https://news.example/b")
    }
}
