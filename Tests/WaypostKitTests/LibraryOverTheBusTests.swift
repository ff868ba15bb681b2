import DBus
import Foundation
import TestSupport
import Testing
@testable import WaypostKit

/// WaypostKit against the real dispatcher: a private bus, the daemon started by D-Bus activation,
/// and apps made with the library in this process.
@Suite("WaypostKit: an app kept in step with the dispatcher")
struct LibraryOverTheBusTests {
    static let appID = "io.waypost.test.Contacts"

    /// Apple's contact list, as a test app: every scene records what it receives.
    static func contacts(in session: KitSession, inbox: Inbox) async throws -> Application {
        try await session.installInProcessApp(appID, schemes: ["contacts"], activityTypes: ["io.waypost.test.contact"])
        let app = try Application(id: appID, declarations: [.windowGroup("list")])
        app.onCreateScene { request in
            let scene = try app.openScene(request.declaration.id)
            Self.receive(scene, into: inbox)
            return scene
        }
        return app
    }

    /// Two windows of the list, `w1` allowing every link, `w2` nothing yet: the restart tests' app.
    static func twoWindows(of app: Application, inbox: Inbox) throws -> (Scene, Scene) {
        let w1 = try app.openScene("list", id: "w1")
        let w2 = try app.openScene("list", id: "w2")
        for scene in [w1, w2] { receive(scene, into: inbox) }
        w1.handlesExternalEvents(preferring: [], allowing: ["*"])
        return (w1, w2)
    }

    static func receive(_ scene: Scene, into inbox: Inbox) {
        scene.onOpenURL { url, _ in inbox.record(scene.id, url) }
        scene.onContinueUserActivity("io.waypost.test.contact") { activity, _ in
            inbox.record(scene.id, "activity \(activity.targetContentIdentifier ?? "")")
        }
    }

    @Test("a set changed in the app takes effect on the next link")
    func dynamicSets() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let inbox = Inbox()
        let app = try await Self.contacts(in: session, inbox: inbox)
        let w1 = try app.openScene("list", id: "w1")
        let w2 = try app.openScene("list", id: "w2")
        for scene in [w1, w2] {
            Self.receive(scene, into: inbox)
            scene.handlesExternalEvents(preferring: [], allowing: ["*"])
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()

        #expect(try await session.open("contacts://show?id=carol", with: bus)["scene-id"] == "w2")
        // w1 selects Carol: it prefers her and allows nothing else.
        w1.handlesExternalEvents(preferring: ["carol"], allowing: [])
        try await app.synchronize()
        let preferred = try await session.open("contacts://show?id=carol", with: bus)
        #expect(preferred["scene-id"] == "w1")
        #expect(preferred["rule"] == "preferring")
        // A second view's modifier in w2 is united with its first.
        w2.handlesExternalEvents(view: "detail", preferring: ["dan"], allowing: [])
        try await app.synchronize()
        #expect(try await session.open("contacts://show?id=dan", with: bus)["rule"] == "preferring")
        await app.handlersFinished()  // handlers run after the acknowledgement
        #expect(inbox.received(by: "w1") == ["contacts://show?id=carol"])
        #expect(inbox.received(by: "w2") == ["contacts://show?id=carol", "contacts://show?id=dan"])
    }

    @Test("a new scene is created by the app's handler and gets the event; a closed one vanishes from routing")
    func createAndClose() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let inbox = Inbox()
        let app = try await Self.contacts(in: session, inbox: inbox)
        let list = try app.openScene("list", id: "list")
        Self.receive(list, into: inbox)
        list.handlesExternalEvents(preferring: [], allowing: ["*"])
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()
        #expect(try await session.scenes(with: bus).map(\.id) == ["list"])

        list.close()
        try await app.synchronize()
        #expect(try await session.scenes(with: bus).isEmpty)
        let created = try await session.open("contacts://show?id=erin", with: bus)
        #expect(created["action"] == "create")
        #expect(created["rule"] == "default")
        let newScene = try #require(created["scene-id"])
        #expect(newScene != "list")
        await app.handlersFinished()  // handlers run after the acknowledgement
        #expect(inbox.received(by: newScene) == ["contacts://show?id=erin"])
        #expect(inbox.received(by: "list").isEmpty)
        // The dispatcher knew the new scene before CreateScene returned.
        #expect(try await session.scenes(with: bus).map(\.id) == [newScene])
    }

    @Test("an event for a scene the app closed is refused, and falls through to another scene")
    func neverToAClosedScene() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let inbox = Inbox()
        let app = try await Self.contacts(in: session, inbox: inbox)
        let older = try app.openScene("list", id: "older")
        let newer = try app.openScene("list", id: "newer")
        for scene in [older, newer] {
            Self.receive(scene, into: inbox)
            scene.handlesExternalEvents(preferring: [], allowing: ["*"])
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()

        // The window closes; the link arrives before the dispatcher hears of it.
        app.holdSynchronization(true)
        newer.close()
        #expect(try await session.scenes(with: bus).map(\.id) == ["newer", "older"])
        let outcome = try await session.open("contacts://show?id=frank", with: bus)
        #expect(outcome["scene-id"] == "older")
        await app.handlersFinished()  // handlers run after the acknowledgement
        #expect(inbox.received(by: "newer").isEmpty)
        #expect(inbox.received(by: "older") == ["contacts://show?id=frank"])
        app.holdSynchronization(false)
        try await app.synchronize()
        #expect(try await session.scenes(with: bus).map(\.id) == ["older"])
    }

    @Test("after the dispatcher is killed, the app registers again with its current state")
    func dispatcherRestart() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let inbox = Inbox()
        let app = try await Self.contacts(in: session, inbox: inbox)
        let (w1, w2) = try Self.twoWindows(of: app, inbox: inbox)
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()
        let first = try #require(try await session.dispatcherPID(with: bus))

        kill(first, SIGKILL)
        // While it is gone the app's state changes: w2 opens Gina, w1 gets focus.
        w2.handlesExternalEvents(preferring: ["gina"], allowing: [])
        w1.activate()
        // The app's current state, not the one before the kill: w1 first, w2 preferring Gina.
        let current = [
            SceneStatus(app: Self.appID, id: "w1", declaration: "list", preferring: [], allowing: ["*"]),
            SceneStatus(app: Self.appID, id: "w2", declaration: "list", preferring: ["gina"], allowing: []),
        ]
        try await waitUntil("a new dispatcher has the app's current scenes", seconds: 20) {
            guard let pid = try? await session.dispatcherPID(with: bus), pid != first else { return false }
            return (try? await session.scenes(with: bus)) == current
        }
        #expect(try await session.open("contacts://show?id=gina", with: bus)["scene-id"] == "w2")
        #expect(try await session.open("contacts://show?id=hal", with: bus)["scene-id"] == "w1")
        await app.handlersFinished()  // handlers run after the acknowledgement
        #expect(inbox.received(by: "w2") == ["contacts://show?id=gina"], "\(session.busLog)")
    }

    /// The link is the call that starts the new dispatcher, before the app has registered again:
    /// it waits for the app's scenes and `Ready`, and goes to the scene preferring it (nothing is
    /// launched; the app here is this process, which a launch could not reach).
    @Test("a link that starts the dispatcher again goes to the scene that prefers it, once the app is back")
    func linkStartsTheDispatcherAgain() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let inbox = Inbox()
        let app = try await Self.contacts(in: session, inbox: inbox)
        let (_, w2) = try Self.twoWindows(of: app, inbox: inbox)
        w2.handlesExternalEvents(preferring: ["gina"], allowing: [])
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()
        let record = session.root.appendingPathComponent("runtime/waypost/registered")
        try await waitUntil("the dispatcher recorded the registration", context: session.busLog) {
            ((try? String(contentsOf: record, encoding: .utf8)) ?? "").contains("\t\(Self.appID)\n")
        }
        let first = try #require(try await session.dispatcherPID(with: bus))

        // Held, the app does not register again (nor start a dispatcher) until the link is in.
        app.holdSynchronization(true)
        kill(first, SIGKILL)
        try await waitUntil("the dispatcher is gone") { (try? await bus.nameOwner(of: "io.waypost.Dispatcher")) == nil }
        async let opened = session.open("contacts://show?id=gina", with: bus)
        try await waitUntil("the new dispatcher expects the app back", context: session.busLog) {
            session.busLog.contains("events wait for the apps registered before this daemon started: \(Self.appID)")
        }
        app.holdSynchronization(false)
        let outcome = try await opened
        #expect(outcome["scene-id"] == "w2" && outcome["rule"] == "preferring", "\(outcome)\n\(session.busLog)")
        #expect(!session.busLog.contains("launched \(Self.appID)"), "\(session.busLog)")
        await app.handlersFinished()  // handlers run after the acknowledgement
        #expect(inbox.received(by: "w2") == ["contacts://show?id=gina"], "\(session.busLog)")
    }

    @Test("changes are coalesced, and nothing is sent when nothing changed")
    func coalescing() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let inbox = Inbox()
        let app = try await Self.contacts(in: session, inbox: inbox)
        let scene = try app.openScene("list", id: "w1")
        Self.receive(scene, into: inbox)
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()
        let before = app.dispatcherCalls

        // Twenty selections while a send is held back, and a window opened and closed again: one call.
        app.holdSynchronization(true)
        for index in 1...20 { scene.handlesExternalEvents(preferring: ["contact-\(index)"], allowing: []) }
        let blink = try app.openScene("list", id: "blink")
        blink.close()
        app.holdSynchronization(false)
        try await app.synchronize()
        let afterBurst = app.dispatcherCalls
        #expect(afterBurst["SetExternalEvents", default: 0] - before["SetExternalEvents", default: 0] == 1)
        #expect(afterBurst["AddScene"] == before["AddScene"])
        #expect(afterBurst["RemoveScene"] == before["RemoveScene"])
        #expect(try await session.scenes(with: bus).first?.preferring == ["contact-20"])

        // The same sets again, a view's modifier set back to what it was, a stray change to a closed
        // scene: no call at all.
        scene.handlesExternalEvents(preferring: ["contact-20"], allowing: [])
        scene.handlesExternalEvents(view: "detail", preferring: ["x"], allowing: [])
        scene.removeExternalEvents(view: "detail")
        blink.handlesExternalEvents(preferring: ["ignored"], allowing: [])
        try await app.synchronize()
        #expect(app.dispatcherCalls == afterBurst)
        // And a real change costs exactly one call.
        scene.handlesExternalEvents(preferring: [], allowing: ["*"])
        try await app.synchronize()
        #expect(app.dispatcherCalls["SetExternalEvents", default: 0] == afterBurst["SetExternalEvents", default: 0] + 1)
    }

    @Test("a continued activity reaches its scene; published activities follow the scene's state")
    func activities() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let inbox = Inbox()
        let app = try await Self.contacts(in: session, inbox: inbox)
        let scene = try app.openScene("list", id: "w1")
        Self.receive(scene, into: inbox)
        scene.handlesExternalEvents(preferring: ["ivy"], allowing: [])
        scene.userActivity("io.waypost.test.contact", isActive: true) { activity in
            activity.title = "Ivy"
            activity.targetContentIdentifier = "ivy"
            activity.isEligibleForSearch = true
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        #expect(app.publishedActivities.map(\.targetContentIdentifier) == ["ivy"])
        #expect(app.publishedActivities.first?.sceneID == "w1")
        #expect(app.publishedActivities.first?.isEligibleForSearch == true)

        let bus = try await session.connect()
        let reply = try await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "ContinueActivity", "io.waypost.test.contact",
            ["target-content-identifier": Variant.string("ivy")], [String: Variant]())
        #expect(ExplainedPlan.strings(try reply.decode([String: Variant].self))["scene-id"] == "w1")
        await app.handlersFinished()  // handlers run after the acknowledgement
        #expect(inbox.received(by: "w1") == ["activity ivy"])

        scene.userActivity("io.waypost.test.contact", isActive: false)
        #expect(app.publishedActivities.isEmpty)
        scene.close()
        #expect(scene.publishedActivities.isEmpty)
    }

    @Test("bad declarations and scene ids are refused with the offending value")
    func badInput() throws {
        #expect(throws: WaypostError.duplicateDeclaration("list")) {
            try Application(id: "a", declarations: [.windowGroup("list"), .windowGroup("list")])
        }
        #expect(throws: WaypostError.invalidID("", what: "application id")) {
            try Application(id: "", declarations: [])
        }
        let app = try Application(id: "a", declarations: [.windowGroup("list")])
        #expect(throws: WaypostError.unknownDeclaration("photo")) { try app.openScene("photo") }
        _ = try app.openScene("list", id: "w1")
        #expect(throws: WaypostError.sceneExists("w1")) { try app.openScene("list", id: "w1") }
    }
}
