import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract
@testable import WaypostKit

/// A DBusActivatable entry's action chosen as GNOME Shell chooses it (GLib's
/// `g_desktop_app_info_launch_action` → `org.freedesktop.Application.ActivateAction` on the app's
/// name): WaypostKit hands it to the dispatcher, which routes it to the scene the rules pick.
@Suite("WaypostKit: desktop actions of a DBusActivatable entry")
struct DesktopActionTests {
    static let appID = "io.waypost.test.Shortcuts"
    static let show = "io.waypost.test.contact.show"
    static let launchAction = KitSession.packageRoot.appendingPathComponent("Tests/Apps/launch_action.py").path

    @Test("ActivateAction reaches the onContinueUserActivity handler of the scene preferring the target, with the activation token")
    func activateAction() async throws {
        let session = try await KitSession()
        defer { session.close() }
        try """
            [Desktop Entry]
            Type=Application
            Name=Shortcuts
            Exec=\(KitSession.testRunner.path)
            DBusActivatable=true
            StartupNotify=true
            X-Waypost=true
            Actions=show-judy;

            [Desktop Action show-judy]
            Name=Judy
            X-Waypost-Shortcut-Type=\(Self.show)
            X-Waypost-Target-Content-Identifier=judy
            X-Waypost-User-Info={"contact": 7}

            """.write(to: session.root.appendingPathComponent("data/applications/\(Self.appID).desktop"), atomically: true, encoding: .utf8)
        let app = try Application(id: Self.appID, declarations: [.windowGroup("contacts")])
        let (received, inbox) = AsyncStream.makeStream(of: (scene: String, activity: ContinuedActivity, token: String?).self)
        for (id, preferring) in [("ivan", Set<String>()), ("judy", ["judy"])] {
            let scene = try app.openScene("contacts", id: id)
            scene.handlesExternalEvents(preferring: preferring, allowing: ["*"])
            scene.onContinueUserActivity(Self.show) { activity, context in
                // GLib 2.74 passes the launch context's token as desktop-startup-id (later GLibs add
                // activation-token): the one name an app reads carries it either way.
                inbox.yield((id, activity, context.activationToken))
            }
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }

        let launched = try await runProgram(
            "/usr/bin/python3", [Self.launchAction, "\(Self.appID).desktop", "show-judy", "token-9"], environment: session.environment)
        #expect(launched.status == 0, "\(launched.errors)")
        let first = try await next(received, "the action reaches a scene")
        #expect(first.scene == "judy")
        #expect(first.activity.type == Self.show)
        #expect(first.activity.targetContentIdentifier == "judy")
        #expect(first.activity.title == "Judy")
        #expect(first.activity.userInfo == ["contact": 7])
        #expect(first.token == "token-9")
    }
}
