import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract
@testable import Dispatcher

/// An app's dock quicklist as a hostile neighbour meets it: each app's menu at a path of its own,
/// withdrawn however the app's registration ends, and each click reported and carried out once.
@Suite("dock quicklists under attack", .serialized)
struct DockMenuBoundsTests {
    static let compose = "org.example.mail.compose"
    static let menu: InterfaceName = "com.canonical.dbusmenu"

    static func items(_ title: String) -> [[String: Variant]] {
        [Contract.ShortcutItem(type: compose, title: title, targetContentIdentifier: "draft").variants]
    }

    /// The next `LauncherEntry.Update`: the app's entry URI and the quicklist's path ("" when withdrawn).
    static func nextUpdate(_ updates: AsyncThrowingStream<Message, any Error>) async throws -> (uri: String, quicklist: String) {
        let message = try await next(updates, "a LauncherEntry.Update")
        let (uri, properties) = try message.decode(String.self, [String: Variant].self)
        guard let quicklist = try properties["quicklist"]?.decode(as: String.self) else { throw TestFailure("no quicklist in \(properties)") }
        return (uri, quicklist)
    }

    /// The labels a dock would show, read from the path the app's `LauncherEntry.Update` announced.
    static func labels(at path: String, _ dock: Connection) async throws -> [String] {
        let (_, root) = try await dock.call(
            destination: "io.waypost.Dispatcher", path: try ObjectPath(path), interface: menu, member: "GetLayout",
            Int32(0), Int32(-1), [String]()
        ).decode(UInt32.self, Structure<Int32, [String: Variant], [Variant]>.self)
        return root.fields.2.compactMap { child in
            guard case .structure(let fields) = child, fields.count == 3,
                  let properties = try? fields[1].decode(as: [String: Variant].self) else { return nil }
            return try? properties["label"]?.decode(as: String.self)
        }
    }

    @Test("two apps whose ids differ only by '_' and '-' each have their own menu")
    func idsThatOnceSharedAPathEachHaveTheirOwn() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let dock = try await session.connect()
        let updates = try await dock.signals(matching: MatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        var paths: [String: String] = [:]
        for (id, title) in [("org.victim_Mail", "Victim's compose"), ("org.victim-Mail", "Other compose")] {
            let app = try await InProcessApp(session, id: id, activityTypes: [Self.compose])
            try await app.call(Contract.Dispatcher1.setShortcutItems, Self.items(title))
            let (uri, quicklist) = try await Self.nextUpdate(updates)
            paths[uri] = quicklist
        }
        let victim = try #require(paths["application://org.victim_Mail.desktop"])
        let other = try #require(paths["application://org.victim-Mail.desktop"])
        #expect(victim != other)
        #expect(try await Self.labels(at: victim, dock) == ["Victim's compose"])
        #expect(try await Self.labels(at: other, dock) == ["Other compose"])
    }

    @Test("a group of 100,000 clicks on one item is one click; of several items, each item's first, in order")
    func aGroupCountsEachItemOnce() {
        let flood = Array(repeating: (Int32(1), "clicked", Variant(""), UInt32(7)), count: 100_000)
        #expect(DockMenus.clicks(in: flood).map(\.id) == [1])
        let mixed = [(Int32(2), "hovered", Variant(""), UInt32(1)), (2, "clicked", Variant(""), 2), (1, "clicked", Variant(""), 3), (2, "clicked", Variant(""), 4)]
        #expect(DockMenus.clicks(in: mixed).map { [$0.id, Int32($0.timestamp)] } == [[2, 2], [1, 3]])
        let many = (0..<1000).map { (Int32($0), "clicked", Variant(""), UInt32(0)) }
        #expect(DockMenus.clicks(in: many).count == 22, "no more than a menu's items")
    }

    @Test("a click is reported by Routed; a group of 100,000 clicks on one item delivers it once")
    func clicksAreReportedAndAGroupCountsAnItemOnce() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Mail", activityTypes: [Self.compose])
        try await app.openScene("inbox", preferring: ["draft"])
        let dock = try await session.connect()
        let updates = try await dock.signals(matching: MatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        try await app.call(Contract.Dispatcher1.setShortcutItems, Self.items("Compose"))
        let path = try ObjectPath(try await Self.nextUpdate(updates).quicklist)
        #expect(try await Self.labels(at: path.rawValue, dock) == ["Compose"])  // the layout read: item 1 is Compose
        let monitor = try await session.connect()
        let routed = try await monitor.signals(matching: MatchRule(interface: "io.waypost.Dispatcher1", member: "Routed"))
        _ = try await session.dispatcher(monitor, Contract.Dispatcher1.monitorRouted, [String: Variant]())

        _ = try await dock.call(
            destination: "io.waypost.Dispatcher", path: path, interface: Self.menu, member: "Event",
            Int32(1), "clicked", Variant(""), UInt32(0))
        let (event, outcome) = try await next(routed, "Routed for the click").decode(String.self, [String: Variant].self)
        #expect(event == "dock:org.example.Mail/1")
        #expect(try outcome["scene-id"]?.decode(as: String.self) == "inbox", "\(outcome)")
        let first = try await withDeadline("the click is delivered") { try await app.next() }
        #expect(first.type == Self.compose && first.scene == "inbox")

        let group = Array(repeating: Structure((Int32(1), "clicked", Variant(""), UInt32(0))), count: 100_000)
        _ = try await dock.call(destination: "io.waypost.Dispatcher", path: path, interface: Self.menu, member: "EventGroup", group)
        let (again, _) = try await next(routed, "Routed for the group's click").decode(String.self, [String: Variant].self)
        #expect(again == "dock:org.example.Mail/1")
        let second = try await withDeadline("the group's click is delivered") { try await app.next() }
        #expect(second.type == Self.compose && second.scene == "inbox")
    }

    @Test("the menu goes when the app's process exits, though its connection stays (a forked child holds it)")
    func theMenuGoesWhenTheRegistrationEndsByTheProcessExiting() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Apps/raw_bus_app.py")
        try await session.writeEntry(id: "org.example.Raw", """
            [Desktop Entry]
            Type=Application
            Name=Raw
            Exec=\(DesktopSession.python) \(script.path) %u
            MimeType=x-scheme-handler/raw;
            X-Waypost=true

            """)
        let raw = try await ChildProcess.start(DesktopSession.python, [script.path, "plain", "org.example.Raw", "only"], environment: session.environment)
        defer { raw.kill() }
        #expect(try await withDeadline("the raw app is ready") { await raw.nextLine() } == "ready")
        let dock = try await session.connect()
        let updates = try await dock.signals(matching: MatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        let (_, scenes) = try await session.status(with: dock)
        let owner = try BusName(try #require(scenes.first?["owner"]))
        func control(_ member: MemberName, _ argument: String? = nil) async throws -> Message {
            if let argument {
                return try await dock.call(destination: owner, path: "/app", interface: "io.waypost.test.Raw", member: member, argument)
            }
            return try await dock.call(destination: owner, path: "/app", interface: "io.waypost.test.Raw", member: member)
        }
        #expect(try await control("Try", "SetShortcutItems").decode(String.self) == "ok")
        let quicklist = try await Self.nextUpdate(updates).quicklist
        #expect(try await Self.labels(at: quicklist, dock) == ["Compose"])

        // The parent exits; the child keeps the connection: the exit watch ends the registration.
        let child = try await control("Fork").decode(UInt32.self)
        defer { kill(Int32(child), SIGKILL) }
        #expect(try await Self.nextUpdate(updates).quicklist == "", "docks are told the menu is gone")
        await #expect(throws: BusError.self) { _ = try await Self.labels(at: quicklist, dock) }
    }
}
