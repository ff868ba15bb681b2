import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract
@testable import WaypostKit

/// Dynamic shortcut items and recent activities in the dock, read by a real dbusmenu client
/// (libdbusmenu-glib through python3-gi, as Dash to Dock reads quicklists).
@Suite("WaypostKit: shortcut items in the dock's quicklist", .serialized)
struct DockMenuTests {
    static let show = "io.waypost.test.contact.show"
    static let compose = "io.waypost.test.contact.compose"
    static let dock = KitSession.packageRoot.appendingPathComponent("Tests/Apps/dock_quicklist.py").path

    /// The dock's next JSON line.
    static func next(_ dock: ChildProcess) async throws -> [String: Any] {
        guard let line = try await dock.nextLine("the dock's next line") else { throw TestFailure("the dock ended") }
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test("the dock reads the items and the recent activity; a click on each reaches the scene the rules pick; the menu goes with the app")
    func quicklist() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let appID = LibraryOverTheBusTests.appID
        try await session.installInProcessApp(appID, schemes: [], activityTypes: [Self.show])
        let dock = try await ChildProcess.start(
            "/usr/bin/python3", [Self.dock, "Judy", "Ada Lovelace"], environment: session.environment,
            errors: session.root.appendingPathComponent("dock.stderr"))
        defer { dock.kill() }
        #expect(try await dock.nextLine("the dock is ready") == "ready")

        let app = try Application(id: appID, declarations: [.windowGroup("contacts")])
        let (received, inbox) = AsyncStream.makeStream(of: (scene: String, activity: ContinuedActivity).self)
        for (id, preferring) in [("ivan", Set(["contact/ada"])), ("judy", ["judy"])] {
            let scene = try app.openScene("contacts", id: id)
            scene.handlesExternalEvents(preferring: preferring, allowing: ["*"])
            scene.onContinueUserActivity(Self.show) { activity, _ in inbox.yield((id, activity)) }
        }
        app.scene(id: "ivan")!.userActivity(Self.show) { activity in
            activity.title = "Ada Lovelace"
            activity.targetContentIdentifier = "contact/ada"
            activity.isEligibleForSearch = true
            activity.persistentIdentifier = "ada"
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()
        #expect(try await ActivitiesTests.saved(bus).map(\.activityType) == [Self.show])

        app.shortcutItems = [
            ShortcutItem(type: Self.show, title: "Judy", icon: "contact-new", targetContentIdentifier: "judy", userInfo: ["contact": 7]),
            ShortcutItem(type: Self.compose, title: "New contact"),
        ]
        try await app.synchronize()
        let update = try await Self.next(dock)
        #expect(update["event"] as? String == "update")
        #expect(update["app"] as? String == "application://\(appID).desktop")
        #expect((update["quicklist"] as? String)?.hasPrefix("/io/waypost/Dispatcher/quicklist/") == true)
        let layout = try await Self.next(dock)
        #expect(layout["event"] as? String == "layout")
        let items = try #require(layout["items"] as? [[String: String]])
        #expect(items.map { $0["label"] ?? "" } == ["Judy", "New contact", "", "Ada Lovelace"])
        #expect(items.map { $0["type"] ?? "" } == ["standard", "standard", "separator", "standard"])
        #expect(try await Self.next(dock)["label"] as? String == "Judy")
        #expect(try await Self.next(dock)["label"] as? String == "Ada Lovelace")

        var delivered: [String: (scene: String, activity: ContinuedActivity)] = [:]
        while delivered.count < 2 {
            let click = try await TestSupport.next(received, "click \(delivered.count + 1) reaches its scene")
            delivered[click.activity.title ?? ""] = click
        }
        #expect(delivered["Judy"]?.scene == "judy")
        #expect(delivered["Ada Lovelace"]?.scene == "ivan")
        let judy = try #require(delivered["Judy"]?.activity)
        #expect(judy.type == Self.show && judy.targetContentIdentifier == "judy" && judy.userInfo == ["contact": 7])
        #expect(delivered["Ada Lovelace"]?.activity.targetContentIdentifier == "contact/ada")

        // The app's last process leaves: docks are told the menu is gone.
        app.stop()
        let gone = try await Self.next(dock)
        #expect(gone["event"] as? String == "update")
        #expect(gone["quicklist"] as? String == "")
    }

    static let activityManager = "/usr/lib/x86_64-linux-gnu/libexec/kactivitymanagerd"

    @Test("Plasma's activity manager (kactivitymanagerd) receives a saved activity with its title; its link continues it in the right scene")
    func plasmaRecents() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let appID = LibraryOverTheBusTests.appID
        try await session.installInProcessApp(appID, schemes: [], activityTypes: [Self.show])
        let bus = try await session.connect()
        let owners = try await bus.nameOwnerChanges(for: "org.kde.ActivityManager")
        let scores = try await bus.signals(matching: MatchRule(
            path: "/ActivityManager/Resources/Scoring", interface: "org.kde.ActivityManager.ResourcesScoring",
            member: "ResourceScoreUpdated"))
        var environment = session.environment
        environment["QT_QPA_PLATFORM"] = "offscreen"
        let manager = try await ChildProcess.start(
            Self.activityManager, [], environment: environment, errors: session.root.appendingPathComponent("kamd.stderr"))
        defer { manager.kill() }
        try await withDeadline("the activity manager owns its name") {
            for try await change in owners where change.newOwner != nil { return }
            throw TestFailure("the activity manager never owned its name")
        }

        let app = try Application(id: appID, declarations: [.windowGroup("contacts")])
        let (received, inbox) = AsyncStream.makeStream(of: (scene: String, activity: ContinuedActivity).self)
        for (id, preferring) in [("ivan", Set(["contact/ada"])), ("judy", ["judy"])] {
            let scene = try app.openScene("contacts", id: id)
            scene.handlesExternalEvents(preferring: preferring, allowing: ["*"])
            scene.onContinueUserActivity(Self.show) { activity, _ in inbox.yield((id, activity)) }
        }
        app.scene(id: "ivan")!.userActivity(Self.show) { activity in
            activity.title = "Ada Lovelace"
            activity.targetContentIdentifier = "contact/ada"
            activity.isEligibleForSearch = true
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        // No shortcut items: saving the activity is enough.
        let saved = try #require(try await ActivitiesTests.saved(bus).first)

        // The manager scores what it recorded: the app's recent activity, under its link.
        let link = "x-waypost-activity:\(saved.id)"
        try await withDeadline("the manager scores the app's link") {
            for try await update in scores {
                let (_, client, resource, _, _, _) = try update.decode(String.self, String.self, String.self, Double.self, UInt32.self, UInt32.self)
                if client == appID && resource == link { return }
            }
            throw TestFailure("the scores ended before the app's link")
        }
        let database = session.root.appendingPathComponent("data/kactivitymanagerd/resources/database").path
        let titles = try await runProgram(
            "/usr/bin/sqlite3", [database, "SELECT title FROM ResourceInfo WHERE targettedResource = '\(link)'"], environment: session.environment)
        #expect(titles.output == "Ada Lovelace\n", "\(titles.errors)")

        // The task manager hands the link to the app's entry; the app gives it to Waypost, which continues it.
        #expect(try await app.openLaunchURL(link) == "ivan")
        let continued = try await TestSupport.next(received, "the link continues the activity in a scene")
        #expect(continued.scene == "ivan")
        #expect(continued.activity.title == "Ada Lovelace")
    }
}
