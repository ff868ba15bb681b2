import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import WaypostContract

/// User activities through the daemon on a private bus: published by their scene's owner, saved in
/// a real SQLite file under the session's throwaway HOME, searched and continued with every value intact.
@Suite("user activities over the bus", .serialized)
struct ActivitiesOverTheBusTests {
    static let show = "org.example.contact.show"

    /// User info holding every D-Bus type the contract carries, nested.
    static let everyType: [String: Variant] = [
        "byte": .byte(7), "flag": .boolean(true), "short": .int16(-3), "ushort": .uint16(3), "int": .int32(-42),
        "uint": .uint32(42), "long": .int64(-9_000_000_000_000), "ulong": .uint64(18_000_000_000_000_000_000),
        "double": .double(1.45), "text": .string("Crème \"brûlée\" ✓"), "path": .objectPath("/org/example/1"),
        "signature": .signature("a{sv}"), "empty": .array(element: "s", []), "numbers": Variant([Int32(1), 2, 3]),
        "pair": .structure([.string("size"), .int32(2)]),
        "nested": Variant(["inner": Variant(["list": Variant(["a", "b"]), "n": Variant(Int64(5))])]),
        "wrapped": .variant(.string("deep")),
    ]

    static func activity(
        title: String, target: String? = nil, id: String? = nil, search: Bool = true, userInfo: [String: Variant] = [:],
        keywords: [String] = [], handoff: Bool = true
    ) -> [String: Variant] {
        Contract.ActivityDetails(
            targetContentIdentifier: target, webpageURL: target.map { "https://example.org/\($0)" }, title: title,
            userInfo: userInfo, keywords: keywords, eligibleForSearch: search, eligibleForHandoff: handoff,
            expirationDate: 4_000_000_000, persistentIdentifier: id, requiredUserInfoKeys: userInfo.keys.sorted()
        ).variants
    }

    static func errorName(_ call: () async throws -> Void) async -> String? {
        do { try await call(); return nil } catch let error as BusError { return error.name.rawValue } catch { return "\(error)" }
    }

    @Test("user info of every D-Bus type travels unchanged: published, saved, searched, continued into the open scene")
    func roundTrip() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", name: "Contacts", activityTypes: [Self.show])
        try await app.openScene("s1")
        let published = Self.activity(title: "Ada Lovelace", target: "contact/1", id: "p1", userInfo: Self.everyType, keywords: ["mathematician"])
        try await app.publish("s1", Self.show, published)

        let bus = try await session.connect()
        let saved = try await session.savedActivities(bus)
        #expect(saved.count == 1)
        #expect(saved.first?.activity == published)
        #expect(saved.first?.appName == "Contacts")
        #expect(saved.first?.activityType == Self.show)
        let found = try await session.search(bus, ["math"])
        #expect(found.map(\.id) == saved.map(\.id))

        // The plan ExplainActivity shows (one app lists the type, so its publisher changes nothing).
        let plan = try await session.plan(activity: Self.show, published, with: bus)
        let outcome = try await session.dispatcher(
            bus, Contract.Dispatcher1.continueSavedActivity, try #require(found.first?.id), ["activation-token": Variant("token-1")])
        #expect(try Contract.RoutingOutcome(outcome.decode([String: Variant].self)).sceneID == "s1")
        let continued = try await app.next()
        session.expectCarriedOut(
            plan[0], DesktopSession.strings(try outcome.decode([String: Variant].self)),
            received: ["event": continued.member, "scene": continued.scene], plan: plan)
        #expect(continued.member == "ContinueUserActivity")
        #expect(continued.scene == "s1")
        #expect(continued.type == Self.show)
        #expect(continued.activity == published)
        #expect(continued.platformData["activation-token"] == Variant("token-1"))

        // An opener's ContinueActivity carries every key too, unchanged.
        var activity: [String: Variant] = [:]
        try await session.continueAsPlanned(Self.show, published, with: bus) {
            let continued = try await app.next()
            activity = continued.activity
            return ["event": continued.member, "scene": continued.scene]
        }
        #expect(activity == published)
    }

    @Test("strangers, other apps' scenes, unlisted types, unknown scenes and oversized or deep user info are named errors; nothing is saved")
    func refusals() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [Self.show])
        let other = try await InProcessApp(session, id: "org.example.Other", activityTypes: [Self.show])
        try await app.openScene("s1")
        let stranger = try await session.connect()
        let fine = Self.activity(title: "Fine", target: "contact/1")

        #expect(await Self.errorName { _ = try await session.dispatcher(stranger, Contract.Dispatcher1.setCurrentActivity, "s1", Self.show, fine) }
            == "io.waypost.Error.NotRegistered")
        #expect(await Self.errorName { try await other.publish("s1", Self.show, fine) } == "io.waypost.Error.NotOwner")
        #expect(await Self.errorName { try await app.publish("s1", "org.example.unlisted", fine) } == "io.waypost.Error.UnlistedActivityType")
        #expect(await Self.errorName { try await app.publish("nowhere", Self.show, fine) } == "io.waypost.Error.UnknownScene")
        let big: [String: Variant] = ["blob": .string(String(repeating: "x", count: 20_000))]
        #expect(await Self.errorName { try await app.publish("s1", Self.show, Self.activity(title: "Big", userInfo: big)) }
            == "io.waypost.Error.UserInfoTooLarge")
        var deep = Variant.string("bottom")
        for _ in 0..<20 { deep = .array(element: deep.signature, [deep]) }
        #expect(await Self.errorName { try await app.publish("s1", Self.show, Self.activity(title: "Deep", userInfo: ["deep": deep])) }
            == "io.waypost.Error.UserInfoTooLarge")
        // Over the store's limit in a key the contract does not name: refused before the reply too.
        var long = Self.activity(title: "Long", target: "contact/8")
        long["notes"] = .string(String(repeating: "x", count: 70_000))
        #expect(await Self.errorName { try await app.publish("s1", Self.show, long) } == "io.waypost.Error.UserInfoTooLarge")
        #expect(await Self.errorName { try await app.publish("s1", Self.show, ["title": .int32(3)]) } == "io.waypost.Error.InvalidArgument")
        #expect(await Self.errorName { try await app.publish("s1", "", fine) } == "io.waypost.Error.InvalidArgument")

        #expect(try await session.savedActivities(stranger).isEmpty)
        #expect(try Contract.CurrentActivity.decode(
            try await session.dispatcher(stranger, Contract.Dispatcher1.getCurrentActivity).decode([String: Variant].self)) == nil)
        // The daemon keeps serving: the same app publishes once its request is right.
        try await app.publish("s1", Self.show, fine)
        #expect(try await session.savedActivities(stranger).map(\.activity) == [fine])
        // Within the limit, though its bound (many small values, each with the most padding) is
        // not: made at once rather than by the store's writer, and saved whole.
        var padded = Self.activity(title: "Padded", target: "contact/9")
        padded["flags"] = .array(element: "v", (0..<8_000).map { .variant(.boolean($0 % 3 == 0)) })
        try await app.publish("s1", Self.show, padded)
        #expect(try await session.savedActivities(stranger).map(\.activity) == [padded, fine])
    }

    @Test("the current activity is the most recently active scene's, announced when it changes, and gone with its scene")
    func currentActivity() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let contacts = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [Self.show])
        let notes = try await InProcessApp(session, id: "org.example.Notes", activityTypes: ["org.example.note.edit"])
        let opener = try await session.connect()
        let changes = try await opener.signals(matching: MatchRule(
            path: Contract.objectPath, interface: Contract.Dispatcher1.interface, member: Contract.Dispatcher1.currentActivityChanged.name))
        _ = try await session.dispatcher(opener, Contract.Dispatcher1.monitorCurrentActivity)
        var iterator = changes.makeAsyncIterator()
        func nextChange() async throws -> Contract.CurrentActivity? {
            guard let message = try await iterator.next() else { throw TestFailure("no more signals") }
            return try Contract.CurrentActivity.decode(try message.decode([String: Variant].self))
        }
        func current() async throws -> Contract.CurrentActivity? {
            try Contract.CurrentActivity.decode(try await session.dispatcher(opener, Contract.Dispatcher1.getCurrentActivity).decode([String: Variant].self))
        }

        try await contacts.openScene("c1")
        let ada = Self.activity(title: "Ada", target: "contact/1", search: false)
        try await contacts.publish("c1", Self.show, ada)
        #expect(try await nextChange()?.sceneID == "c1")
        try await notes.openScene("n1")
        // A newer scene without an activity changes nothing; one with an activity takes over.
        #expect(try await current()?.sceneID == "c1")
        let note = Self.activity(title: "Shopping list", target: "note/1", search: false)
        try await notes.publish("n1", "org.example.note.edit", note)
        let changed = try await nextChange()
        #expect(changed == Contract.CurrentActivity(appID: "org.example.Notes", sceneID: "n1", activityType: "org.example.note.edit", activity: note))
        try await contacts.call(Contract.Dispatcher1.activateScene, "c1")
        #expect(try await nextChange()?.activity == ada)
        // Not for handoff: not offered, however recent.
        try await notes.call(Contract.Dispatcher1.activateScene, "n1")
        #expect(try await nextChange()?.activity == note)
        try await notes.publish("n1", "org.example.note.edit", Self.activity(title: "Private", target: "note/2", search: false, handoff: false))
        #expect(try await nextChange()?.activity == ada)
        #expect(try await current()?.sceneID == "c1")
        try await contacts.call(Contract.Dispatcher1.clearCurrentActivity, "c1")
        #expect(try await nextChange() == nil)
        try await contacts.publish("c1", Self.show, ada)
        #expect(try await nextChange()?.sceneID == "c1")
        try await contacts.call(Contract.Dispatcher1.removeScene, "c1")
        #expect(try await nextChange() == nil)
        #expect(try await current() == nil)
    }

    @Test("a scene changing its activity as fast as it can is announced a few times, the last announcement its last activity")
    func announcementsAreCoalesced() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let contacts = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [Self.show])
        let opener = try await session.connect()
        let changes = try await opener.signals(matching: MatchRule(
            path: Contract.objectPath, interface: Contract.Dispatcher1.interface, member: Contract.Dispatcher1.currentActivityChanged.name))
        _ = try await session.dispatcher(opener, Contract.Dispatcher1.monitorCurrentActivity)
        try await contacts.openScene("c1")
        let publishes = 300
        for n in 1...publishes {
            try await contacts.publish("c1", Self.show, Self.activity(title: "Scroll \(n)", target: "page/\(n)", search: false))
        }
        let last = Self.activity(title: "Scroll \(publishes)", target: "page/\(publishes)", search: false)
        var announced = 0
        for try await message in changes {
            announced += 1
            if try Contract.CurrentActivity.decode(try message.decode([String: Variant].self))?.activity == last { break }
        }
        #expect(announced < publishes / 2, "every change was announced on its own")
    }

    @Test("an app deletes only its own saved activities: another app's identifier is refused and nothing is deleted")
    func deletion() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let a = try await InProcessApp(session, id: "org.example.A", activityTypes: [Self.show])
        let b = try await InProcessApp(session, id: "org.example.B", activityTypes: [Self.show])
        try await a.openScene("a1")
        try await b.openScene("b1")
        for (n, id) in ["1", "2"].enumerated() { try await a.publish("a1", Self.show, Self.activity(title: "A\(n)", target: "a/\(n)", id: id)) }
        try await b.publish("b1", Self.show, Self.activity(title: "B only", target: "b/1", id: "b"))
        let opener = try await session.connect()

        #expect(await Self.errorName { try await a.call(Contract.Dispatcher1.deleteSavedActivities, ["1", "b"]) } == "io.waypost.Error.NotOwner")
        #expect(try await session.savedActivities(opener).count == 3)
        try await a.call(Contract.Dispatcher1.deleteSavedActivities, ["1", "never-saved"])
        #expect(try await session.savedActivities(opener, app: "org.example.A").map(\.activity["persistent-identifier"]) == [Variant("2")])
        try await a.call(Contract.Dispatcher1.deleteAllSavedActivities)
        #expect(try await session.savedActivities(opener).map(\.appID) == ["org.example.B"])
        // The user's deletion, by app.
        _ = try await session.dispatcher(opener, Contract.Dispatcher1.forgetSavedActivities, "org.example.B", [String]())
        #expect(try await session.savedActivities(opener).isEmpty)
        #expect(await Self.errorName { _ = try await session.dispatcher(opener, Contract.Dispatcher1.continueSavedActivity, "1", [String: Variant]()) }
            == "io.waypost.Error.UnknownActivity")
    }

    @Test("a daemon killed mid-flood loses at most the newest acknowledged publishes, never an older one, and nothing once a search answered")
    func killedMidFlood() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [Self.show])
        try await app.openScene("s1")
        let opener = try await session.connect()
        // Before a read the queued saves are committed: a kill then loses none of them.
        for n in 0..<20 { try await app.publish("s1", Self.show, Self.activity(title: "Before \(n)", target: "before/\(n)", id: "b\(n)")) }
        #expect(try await session.search(opener, ["before"]).count == 20)

        let acknowledged = Mutex<[String]>([])
        let (halfway, reached) = AsyncStream.makeStream(of: Void.self)
        let flood = Task {
            for n in 0..<10_000 {
                do { try await app.publish("s1", Self.show, Self.activity(title: "Flood \(n)", target: "flood/\(n)", id: "f\(n)")) } catch { return }
                let count = acknowledged.withLock { $0.append("f\(n)"); return $0.count }
                if count == 50 { reached.yield() }
            }
        }
        for await _ in halfway { break }
        let daemon = try await opener.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", Contract.busName.rawValue).decode(UInt32.self)
        #expect(kill(pid_t(daemon), SIGKILL) == 0)
        await flood.value
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= 50)
        #expect(acked.count < 10_000, "the flood ended before the daemon was killed")
        // The next call starts a new daemon, which reads the same file, page by page.
        let saved = try await session.allSavedActivities(opener)
        let identifiers = Set(saved.compactMap { try? $0.activity["persistent-identifier"]?.decode(as: String.self) })
        #expect((0..<20).allSatisfy { identifiers.contains("b\($0)") })
        let kept = acked.prefix { identifiers.contains($0) }
        #expect(acked.dropFirst(kept.count).allSatisfy { !identifiers.contains($0) }, "a hole: an older publish lost, a newer kept")
        #expect(acked.count - kept.count <= 256, "more lost than ActivityStore.Limits.queuedSaves")
        // Besides what was acknowledged, at most the one publish in flight when the daemon died.
        #expect(identifiers.count <= 20 + acked.count + 1)
    }

    @Test("a store file that is not a database is set aside with a log line, and the daemon saves into a new one")
    func damagedStore() async throws {
        let session = try await PeerDesktop { root in
            try Data(repeating: 0x42, count: 4096).write(to: root.appendingPathComponent("activities.sqlite"))
        }
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [Self.show])
        try await app.openScene("s1")
        try await app.publish("s1", Self.show, Self.activity(title: "After the damage", target: "contact/1"))
        let opener = try await session.connect()
        #expect(try await session.search(opener, ["damage"]).count == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: session.root.path)
        #expect(files.contains { $0.hasPrefix("activities.sqlite.damaged-") })
        #expect(session.busLog.contains("could not be read"), "\(session.busLog)")
    }
}
