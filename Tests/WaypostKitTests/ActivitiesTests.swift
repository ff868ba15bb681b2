import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract
@testable import WaypostKit

/// `userActivity(_:isActive:_:)`, `onContinueUserActivity` and the deletes against the real dispatcher.
@Suite("WaypostKit: user activities")
struct ActivitiesTests {
    static let type = "io.waypost.test.contact"

    static func current(_ session: KitSession, _ bus: Connection) async throws -> Contract.CurrentActivity? {
        let reply = try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.getCurrentActivity.name)
        return try Contract.CurrentActivity.decode(try reply.decode([String: Variant].self))
    }

    static func saved(_ bus: Connection) async throws -> [Contract.SavedActivity] {
        let reply = try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.listSavedActivities.name, "")
        return try reply.decode([[String: Variant]].self).map { try Contract.SavedActivity($0) }
    }

    @Test("a scene's activity reaches the dispatcher with every field, only when it changed, and follows the focused scene")
    func publishing() async throws {
        let session = try await KitSession()
        defer { session.close() }
        try await session.installInProcessApp(LibraryOverTheBusTests.appID, schemes: [], activityTypes: [Self.type])
        let app = try Application(id: LibraryOverTheBusTests.appID, declarations: [.windowGroup("list")])
        let ada = try app.openScene("list", id: "ada")
        let bob = try app.openScene("list", id: "bob")
        func show(_ scene: Scene, _ name: String, size: Int64) {
            scene.userActivity(Self.type) { activity in
                activity.title = name
                activity.targetContentIdentifier = "contact/\(name)"
                activity.userInfo = ["size": .integer(size), "tags": ["a", 1, true], "price": 1.45, "shop": ["open": true]]
                activity.keywords = ["contact"]
                activity.isEligibleForSearch = true
                activity.persistentIdentifier = name
            }
        }
        show(ada, "Ada", size: 1)
        show(bob, "Bob", size: 2)
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()

        // Bob's scene was opened last: its activity is the current one.
        var current = try #require(try await Self.current(session, bus))
        #expect(current.sceneID == "bob")
        let details = try Contract.ActivityDetails(current.activity)
        #expect(details.title == "Bob")
        #expect(details.userInfo["size"] == .int64(2))
        #expect(details.userInfo["price"] == .double(1.45))
        #expect(details.eligibleForSearch && details.persistentIdentifier == "Bob" && details.keywords == ["contact"])
        #expect(try await Self.saved(bus).map(\.appID).count == 2)

        // Focus follows: activating Ada's window makes hers current.
        ada.activate()
        try await app.synchronize()
        current = try #require(try await Self.current(session, bus))
        #expect(current.sceneID == "ada")

        // The same activity a thousand times costs nothing; a thousand changes, one call.
        let before = app.dispatcherCalls["SetCurrentActivity", default: 0]
        for _ in 0..<1000 { show(ada, "Ada", size: 1) }
        try await app.synchronize()
        #expect(app.dispatcherCalls["SetCurrentActivity", default: 0] == before)
        app.holdSynchronization(true)
        for size in 0..<1000 { show(ada, "Ada", size: Int64(size)) }
        app.holdSynchronization(false)
        try await app.synchronize()
        #expect(app.dispatcherCalls["SetCurrentActivity", default: 0] == before + 1)
        #expect(try Contract.ActivityDetails(try #require(try await Self.current(session, bus)).activity).userInfo["size"] == .int64(999))

        // Withdrawn: the dispatcher offers the next most recent scene's.
        ada.userActivity(Self.type, isActive: false)
        try await app.synchronize()
        #expect(try await Self.current(session, bus)?.sceneID == "bob")
        #expect(app.dispatcherCalls["ClearCurrentActivity", default: 0] == 1)

        // Deleting: one by its identifier, then all.
        try await app.deleteSavedActivities(withPersistentIdentifiers: ["Ada"])
        #expect(try await Self.saved(bus).map(\.activity["persistent-identifier"]) == [Variant("Bob")])
        try await app.deleteAllSavedActivities()
        #expect(try await Self.saved(bus).isEmpty)
    }

    @Test("a type the desktop entry does not list is refused through synchronize(), and the scene's other changes still go")
    func unlistedType() async throws {
        let session = try await KitSession()
        defer { session.close() }
        try await session.installInProcessApp(LibraryOverTheBusTests.appID, schemes: [], activityTypes: [Self.type])
        let app = try Application(id: LibraryOverTheBusTests.appID, declarations: [.windowGroup("list")])
        let scene = try app.openScene("list", id: "w1")
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        scene.userActivity("io.waypost.test.unlisted") { $0.title = "Nope" }
        await #expect(throws: WaypostError.self) { try await app.synchronize() }
        let other = try app.openScene("list", id: "w2")
        try await app.synchronize()
        let bus = try await session.connect()
        #expect(try await session.scenes(with: bus).map(\.id).contains(other.id))
    }

    @Test("onContinueUserActivity gets the user info as Swift values, every field with it")
    func continuing() async throws {
        let session = try await KitSession()
        defer { session.close() }
        try await session.installInProcessApp(LibraryOverTheBusTests.appID, schemes: [], activityTypes: [Self.type])
        let app = try Application(id: LibraryOverTheBusTests.appID, declarations: [.windowGroup("list")])
        let scene = try app.openScene("list", id: "w1")
        scene.handlesExternalEvents(preferring: [], allowing: ["*"])
        let (received, inbox) = AsyncStream.makeStream(of: ContinuedActivity.self)
        scene.onContinueUserActivity(Self.type) { activity, _ in inbox.yield(activity) }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()
        let sent = Contract.ActivityDetails(
            targetContentIdentifier: "contact/1", title: "Ada",
            userInfo: [
                "n": .int32(7), "big": .uint64(9), "s": "text", "ok": .boolean(true), "d": .double(0.5),
                "bytes": .array(element: "y", [.byte(1), .byte(2)]), "list": Variant(["x", "y"]),
                "map": Variant(["k": Variant(Int64(3))]),
            ],
            keywords: ["k"], persistentIdentifier: "p", requiredUserInfoKeys: ["n"])
        _ = try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.continueActivity.name, Self.type, sent.variants, [String: Variant]())
        let activity = try await next(received, "the activity is continued in its scene")
        #expect(activity.title == "Ada" && activity.targetContentIdentifier == "contact/1")
        #expect(activity.userInfo == [
            "n": 7, "big": 9, "s": "text", "ok": true, "d": 0.5, "bytes": .data([1, 2]), "list": ["x", "y"], "map": ["k": 3],
        ])
        #expect(activity.keywords == ["k"] && activity.persistentIdentifier == "p" && activity.requiredUserInfoKeys == ["n"])
    }
}
