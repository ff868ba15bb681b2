import DBus
import ExternalEvents
import Foundation
import TestSupport
import Testing
import WaypostContract

/// Static shortcuts: a desktop action with Waypost keys, chosen as GNOME Shell chooses it (GLib's
/// `g_desktop_app_info_launch_action`), reaches the scene the rules pick, in that app only.
@Suite("static shortcuts", .serialized)
struct ShortcutTests {
    static let show = "org.example.contact.show"
    static let launchAction = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Apps/launch_action.py").path

    /// Contacts' actions: one with a target and user info, one without Waypost keys.
    static func actions(for app: String) -> String {
        """
        Actions=show-judy;plain;

        [Desktop Action show-judy]
        Name=Judy
        Exec=\(DesktopSession.waypost.path) shortcut \(app) show-judy
        X-Waypost-Shortcut-Type=\(show)
        X-Waypost-Target-Content-Identifier=judy
        X-Waypost-User-Info={"contact": 7, "tabs": ["calls", "notes"]}

        [Desktop Action plain]
        Name=Plain
        Exec=/bin/true

        """
    }

    func failure(_ call: () async throws -> Void) async -> BusError? {
        do { try await call(); return nil } catch let error as BusError { return error } catch { return nil }
    }

    @Test("GLib runs the action's Exec (waypost shortcut): the scene preferring its target receives it with its user info and the token")
    func execAction() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(
            session, id: "org.example.Contacts", activityTypes: [], entryGroups: Self.actions(for: "org.example.Contacts"))
        try await app.openScene("ivan")
        try await app.openScene("judy", preferring: ["judy"])

        let launched = try await session.run(DesktopSession.python, [Self.launchAction, "org.example.Contacts.desktop", "show-judy", "token-7"])
        #expect(launched.status == 0, "\(launched.output)")
        let received = try await app.next()
        #expect(received.member == "ContinueUserActivity")
        #expect(received.scene == "judy")
        #expect(received.type == Self.show)
        #expect(received.activity["target-content-identifier"] == Variant("judy"))
        #expect(received.activity["title"] == Variant("Judy"))
        let info = try #require(received.activity["user-info"]).decode(as: [String: Variant].self)
        #expect(info["contact"] == Variant(Int64(7)))
        #expect(UserInfoValue(try #require(info["tabs"])) == ["calls", "notes"])
        #expect(received.platformData["activation-token"] == Variant("token-7"))

        // explain covers it: the same plan, delivered nowhere.
        let explained = try await session.waypost(["shortcut", "org.example.Contacts", "show-judy", "--explain", "--format", "text"])
        #expect(explained.status == 0, "\(explained.stderr)")
        let lines = explained.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("scene-id: judy"), "\(explained.stdout)")
        #expect(lines.contains("rule: preferring"), "\(explained.stdout)")
        #expect(app.delivered == 1)
    }

    @Test("a missing action, one without Waypost keys, or an app not installed is a named error, and nothing is delivered")
    func unknownShortcuts() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(
            session, id: "org.example.Contacts", activityTypes: [], entryGroups: Self.actions(for: "org.example.Contacts"))
        try await app.openScene("judy", preferring: ["judy"])
        let bus = try await session.connect()
        for (appID, action, says) in [
            ("org.example.Contacts", "compose", "org.example.Contacts has no desktop action 'compose' (it lists show-judy, plain)"),
            ("org.example.Contacts", "plain", "has no X-Waypost-Shortcut-Type"),
            ("org.example.Gone", "show-judy", "no desktop entry 'org.example.Gone.desktop' is installed"),
            ("org.example.Contacts", "show judy", "is not a desktop action name"),
        ] {
            let error = await failure {
                _ = try await session.dispatcher(bus, Contract.Dispatcher1.performShortcut, appID, action, [String: Variant]())
            }
            #expect(error?.name == Contract.Failure.unknownShortcut.errorName, "\(action): \(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(String(describing: error?.message))")
        }
        let command = try await session.waypost(["shortcut", "org.example.Contacts", "compose"])
        #expect(command.status != 0)
        #expect(command.stderr.contains("has no desktop action 'compose'"), "\(command.stderr)")
        #expect(app.delivered == 0)
    }

    @Test("another app cannot trigger its own action as Contacts' shortcut, nor reach Contacts with one of its own")
    func othersActions() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let contacts = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [Self.show])
        try await contacts.openScene("judy", preferring: ["judy"])
        // Mallory's entry declares a shortcut of Contacts' type and target, and Contacts' name.
        let mallory = try await InProcessApp(
            session, id: "org.example.Mallory", activityTypes: [], entryGroups: Self.actions(for: "org.example.Contacts"))
        try await mallory.openScene("m1")
        let bus = mallory.bus
        let error = await failure {
            _ = try await session.dispatcher(bus, Contract.Dispatcher1.performShortcut, "org.example.Contacts", "show-judy", [String: Variant]())
        }
        #expect(error?.name == Contract.Failure.unknownShortcut.errorName, "\(String(describing: error))")
        // Its own action goes to its own scene, never to Contacts, though Contacts lists the type.
        let outcome = try await session.dispatcher(bus, Contract.Dispatcher1.performShortcut, "org.example.Mallory", "show-judy", [String: Variant]())
        #expect(try Contract.RoutingOutcome(outcome.decode([String: Variant].self)).appID == "org.example.Mallory")
        #expect(try await mallory.next().scene == "m1")
        #expect(contacts.delivered == 0)
    }
}
