import DBus
import Foundation
import TestSupport
import Testing

/// The dispatcher as apps and openers meet it: real desktop entries and apps that behave as
/// `sample_app.py`, over peer connections with no bus (`PeerDesktop`); a process killed and a
/// program started need the real thing (a private bus, the daemon started by D-Bus activation,
/// apps written in Python from the XML contract alone).
@Suite("dispatcher: routing live scenes", .serialized)
struct RoutingTests {
    static let contacts = "org.example.Contacts"

    /// Apple's contact list: each window prefers its selected contact, and allows anything only
    /// while nothing is selected.
    static func contactsApp(behaviour: [String: String] = [:], scenes: [(id: String, declaration: String, modifiers: [([String], [String])])]) -> SampleApp {
        SampleApp(
            contacts, schemes: ["contacts"], activityTypes: ["org.example.contact.show"],
            declarations: [("contacts", ["kind": "window-group"])], scenes: scenes, behaviour: behaviour)
    }

    @Test("a preferring scene beats an allowing one, across two processes of one app")
    func preferringAcrossProcesses() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: []))
        let first = try await session.start(app)
        let bus = try await session.connect()
        try await session.control(app.id, pid: first, with: bus, "OpenScene", ["ada", "contacts"], modifiers: [(["0F3A-ADA"], [])])
        let second = try await session.start(app)
        try await session.control(app.id, pid: second, with: bus, "OpenScene", ["list", "contacts"], modifiers: [([], ["*"])])

        let preferred = try await session.openAsPlanned("contacts://show?id=0f3a-ada", with: bus)
        #expect(preferred["action"] == "deliver")
        #expect(preferred["scene-id"] == "ada")
        #expect(preferred["rule"] == "preferring")
        let allowed = try await session.openAsPlanned("contacts://show?id=bob", with: bus)
        #expect(allowed["scene-id"] == "list")
        #expect(allowed["rule"] == "allowing")

        let received = session.received(app.id)
        #expect(received.count == 2, "\(received)")
        #expect(received.first { $0["scene"] as? String == "ada" }?["pid"] as? Int == Int(first))
        #expect(received.first { $0["scene"] as? String == "list" }?["pid"] as? Int == Int(second))
    }

    @Test("a set changed by the app takes effect on the next link")
    func dynamicSets() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: [("w1", "contacts", [([], ["*"])]), ("w2", "contacts", [([], ["*"])])]))
        try await session.start(app)
        let bus = try await session.connect()
        #expect(try await session.openAsPlanned("contacts://show?id=carol", with: bus)["scene-id"] == "w2")
        // w1's window selects Carol: it now prefers her and no longer allows anything.
        try await session.control(app.id, with: bus, "SetExternalEvents", ["w1"], modifiers: [(["carol"], [])])
        #expect(try await session.openAsPlanned("contacts://show?id=carol", with: bus)["scene-id"] == "w1")
        // The user focuses w1; search order changes, but w2 still is the only one allowing others.
        try await session.control(app.id, with: bus, "Focus", ["w1"])
        #expect(try await session.openAsPlanned("contacts://show?id=dan", with: bus)["scene-id"] == "w2")
        // w2 closes: nobody allows Dan, so a new scene is created.
        try await session.control(app.id, with: bus, "CloseScene", ["w2"])
        let created = try await session.openAsPlanned("contacts://show?id=dan", with: bus)
        #expect(created["action"] == "create")
        #expect(created["rule"] == "default")
        #expect(session.received(app.id).map { $0["event"] as? String } == ["OpenURL", "OpenURL", "OpenURL", "CreateScene"])
    }

    @Test("a new scene is created in the most recently active process, which may call back first")
    func createWithCallBack() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let photos = SampleApp(
            "org.example.Photos", schemes: ["myphotos"],
            declarations: [("browser", ["kind": "window-group"]), ("Photo", ["kind": "window-group", "matching": ["photoIdentifier="]])],
            scenes: [("main", "browser", [])])
        try await session.installApp(photos)
        try await session.start(photos)
        let bus = try await session.connect()
        let outcome = try await session.openAsPlanned("myphotos://show?photoIdentifier=42", with: bus)
        #expect(outcome["action"] == "create")
        #expect(outcome["declaration-id"] == "Photo")
        #expect(outcome["rule"] == "matching")
        let created = try #require(session.received(photos.id).first)
        #expect(created["event"] as? String == "CreateScene")
        #expect((created["payload"] as? [String: Any])?["uri"] as? String == "myphotos://show?photoIdentifier=42")
        // The app announced the scene with AddScene while the dispatcher waited for its reply.
        let scenes = try await session.status(with: bus).scenes
        #expect(scenes.map { $0["scene-id"] } == [outcome["scene-id"], "main"])
    }

    @Test("an app that is not running is launched, and the link arrives exactly once")
    func launchDeliversOnce() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: []))
        let bus = try await session.connect()
        let outcome = try await session.openAsPlanned("contacts://show?id=eve", with: bus, platformData: ["activation-token": .string("token-42")])
        #expect(outcome["action"] == "launch")
        #expect(outcome["rule"] == "default")
        let received = session.received(app.id)
        #expect(received.count == 1)
        #expect(received.first?["event"] as? String == "CreateScene")
        #expect((received.first?["platform_data"] as? [String: Any])?["activation-token"] as? String == "token-42")
        #expect(try await session.status(with: bus).processes.count == 1)
        // A second link goes to the running process; no second launch.
        try await session.openAsPlanned("contacts://show?id=eve", with: bus)
        #expect(try await session.status(with: bus).processes.count == 1)
        #expect(session.events(of: app.id).filter { $0["event"] as? String == "ready" }.count == 1)
    }

    @Test("a launched app that announces Ready gets the link in the window it restored at start")
    func launchIntoRestoredScene() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(SampleApp(
            Self.contacts, schemes: ["contacts"], announceReady: true,
            declarations: [("contacts", ["kind": "window-group"])],
            scenes: [("restored", "contacts", [(["victor"], [])])]))
        let bus = try await session.connect()
        let outcome = try await session.openAsPlanned("contacts://show?id=victor", with: bus)
        #expect(outcome["action"] == "launch")
        #expect(outcome["scene-id"] == "restored")
        #expect(outcome["rule"] == "preferring")
        #expect(session.received(app.id).map { $0["event"] as? String } == ["OpenURL"])
    }

    @Test("a scene closed while its link is in flight: the link falls through to the next rule")
    func sceneRemovedMidFlight() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: [("w1", "contacts", [([], ["*"])])]))
        try await session.start(app)
        let bus = try await session.connect()
        try await session.control(app.id, with: bus, "ForgetScene", ["w1"])
        // The plan's w1 refuses (the app no longer has it): its next step, a new scene, gets it.
        let outcome = try await session.openAsPlanned("contacts://show?id=frank", with: bus, refusals: 1)
        #expect(outcome["action"] == "create")
        #expect(session.received(app.id).map { $0["event"] as? String } == ["CreateScene"])
    }

    @Test("an app killed with SIGKILL between routing and delivery: the next scene gets the link")
    func killedBetweenRoutingAndDelivery() async throws {
        let session = try await DesktopSession(deliveryTimeout: 20)
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: []))
        let survivor = try await session.start(app)
        let bus = try await session.connect()
        try await session.control(app.id, pid: survivor, with: bus, "OpenScene", ["old", "contacts"], modifiers: [([], ["*"])])
        let victim = try await session.start(app)
        try await session.control(app.id, pid: victim, with: bus, "OpenScene", ["new", "contacts"], modifiers: [([], ["*"])])
        try await session.control(app.id, pid: victim, with: bus, "SetBehaviour", ["OpenURL=hang"])

        let plan = try await session.plan("contacts://show?id=grace", with: bus)
        #expect(plan.prefix(2).map { $0["scene-id"] } == ["new", "old"], "\(plan)")
        async let outcome = session.open("contacts://show?id=grace", with: bus)
        try await waitUntil("the victim holds the link") { session.received(app.id).contains { $0["pid"] as? Int == Int(victim) } }
        kill(victim, SIGKILL)
        let result = try await outcome
        // The plan's first scene vanished with its process: the plan's next one took it.
        session.expectCarriedOut(plan[1], result, uri: "contacts://show?id=grace", plan: plan)
        #expect(result["scene-id"] == "old")
        let delivered = session.received(app.id).filter { $0["pid"] as? Int == Int(survivor) }
        #expect(delivered.count == 1)
        try await waitUntil("the dead process's scenes vanish") {
            try await session.status(with: bus).scenes.map { $0["scene-id"] } == ["old"]
        }
    }

    @Test("an app that does not acknowledge in time: Timeout naming it, and the link goes to no other scene")
    func hangingApp() async throws {
        let session = try await PeerDesktop(deliveryTimeout: 1)
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: []))
        let patient = try await session.start(app)
        let bus = try await session.connect()
        try await session.control(app.id, pid: patient, with: bus, "OpenScene", ["calm", "contacts"], modifiers: [([], ["*"])])
        let stuck = try await session.start(app)
        try await session.control(app.id, pid: stuck, with: bus, "OpenScene", ["stuck", "contacts"], modifiers: [(["heidi"], [])])
        try await session.control(app.id, pid: stuck, with: bus, "SetBehaviour", ["OpenURL=hang"])
        let plan = try await session.plan("contacts://show?id=heidi", with: bus)
        #expect(plan.first?["scene-id"] == "stuck", "\(plan)")
        do {
            let outcome = try await session.open("contacts://show?id=heidi", with: bus)
            Issue.record("reported delivered: \(outcome)")
        } catch let error as BusError {
            #expect(error.name.rawValue == "io.waypost.Error.Timeout")
            #expect(error.message.contains(app.id), "\(error)")
        }
        // The stuck scene has it (it may act on it yet); the calm one never got it.
        #expect(session.received(app.id).map { $0["scene"] as? String } == ["stuck"])
        #expect(session.received(app.id).first?["pid"] as? Int == Int(stuck))
    }

    @Test("a scene that refuses the link: the next destination the rules allow gets it, once")
    func refusingScene() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: []))
        let willing = try await session.start(app)
        let bus = try await session.connect()
        try await session.control(app.id, pid: willing, with: bus, "OpenScene", ["calm", "contacts"], modifiers: [([], ["*"])])
        let refusing = try await session.start(app)
        try await session.control(app.id, pid: refusing, with: bus, "OpenScene", ["picky", "contacts"], modifiers: [(["ivan"], [])])
        try await session.control(app.id, pid: refusing, with: bus, "SetBehaviour", ["OpenURL=refuse"])
        // Explain shows both: the preferring scene first, the allowing one after it.
        let outcome = try await session.openAsPlanned("contacts://show?id=ivan", with: bus, refusals: 1)
        #expect(outcome["scene-id"] == "calm")
        #expect(session.received(app.id).map { $0["scene"] as? String } == ["picky", "calm"])
    }

    @Test("a user activity goes to the app that lists its type, to the scene that prefers its target")
    func activity() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: [("ivan", "contacts", [(["IVAN-ID"], [])]), ("other", "contacts", [([], ["*"])])]))
        try await session.start(app)
        let bus = try await session.connect()
        let outcome = try await session.continueAsPlanned(
            "org.example.contact.show",
            ["target-content-identifier": Variant.string("ivan-id"), "title": .string("Ivan"),
             "user-info": Variant(["source": Variant.string("handoff")])],
            with: bus)
        #expect(outcome["scene-id"] == "ivan")
        #expect(outcome["rule"] == "preferring")
        let received = try #require(session.received(app.id).first)
        #expect(received["event"] as? String == "ContinueUserActivity")
        #expect(received["type"] as? String == "org.example.contact.show")
        let activity = received["activity"] as? [String: Any]
        #expect((activity?["user-info"] as? [String: Any])?["source"] as? String == "handoff")
    }

    @Test("Explain tells which app and which rule, and delivers nothing")
    func explain() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(Self.contactsApp(scenes: [("judy", "contacts", [(["judy"], ["*"])])]))
        let bus = try await session.connect()
        let before = try await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Explain", "contacts://show?id=judy")
        let notRunning = DesktopSession.strings(try before.decode([String: Variant].self))
        #expect(notRunning["action"] == "launch")
        #expect(notRunning["reason"]?.contains("not running") == true)
        try await session.start(app)
        let after = try await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Explain", "contacts://show?id=JUDY")
        let running = DesktopSession.strings(try after.decode([String: Variant].self))
        #expect(running["scene-id"] == "judy")
        #expect(running["rule"] == "preferring")
        #expect(running["reason"]?.contains("\"judy\"") == true)
        #expect(session.received(app.id).isEmpty)
    }

    @Test("an app installed while the daemon runs takes the links of its scheme")
    func installedLater() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let bus = try await session.connect()
        let before = await SecurityAndFaultTests.errorName { _ = try await session.open("contacts://show?id=quinn", with: bus) }
        #expect(before == "io.waypost.Error.NoHandler")
        let app = try await session.installApp(Self.contactsApp(scenes: []))
        // GIO tells the daemon a few milliseconds after the files changed.
        try await waitUntil("the daemon sees the new entry", context: session.busLog) {
            let reply = try? await bus.call(
                destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
                member: "Explain", "contacts://show?id=quinn")
            return (try? reply.map { DesktopSession.strings(try $0.decode([String: Variant].self))["app-id"] }) == app.id
        }
        #expect(try await session.openAsPlanned("contacts://show?id=quinn", with: bus)["action"] == "launch")
        #expect(session.received(app.id).count == 1)
    }

    @Test("a scheme no participating app declares goes to its previous handler, started with the link")
    func fallbackHandler() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let output = session.root.appendingPathComponent("plain.out")
        let script = session.root.appendingPathComponent("plain.sh")
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> \(output.path)\n".write(to: script, atomically: true, encoding: .utf8)
        try await session.writeEntry(id: "org.example.Plain", """
            [Desktop Entry]
            Type=Application
            Name=Plain
            Exec=/bin/sh \(script.path) %u
            MimeType=x-scheme-handler/plain;

            """)
        let bus = try await session.connect()
        let outcome = try await session.openAsPlanned("plain://hello/world", with: bus)
        #expect(outcome["action"] == "fallback")
        #expect(outcome["app-id"] == "org.example.Plain")
        try await waitUntil("the plain handler ran") {
            (try? String(contentsOf: output, encoding: .utf8)) == "plain://hello/world\n"
        }
    }
}
