import DBus
import Foundation
import TestSupport
import Testing

/// What strangers, broken input and failing apps get: a named error each, and a daemon that keeps serving.
@Suite("dispatcher: security and faults", .serialized)
struct SecurityAndFaultTests {
    static let dispatcher: BusName = "io.waypost.Dispatcher"
    static let path: ObjectPath = "/io/waypost/Dispatcher"
    static let interface: InterfaceName = "io.waypost.Dispatcher1"

    /// The error name a call failed with.
    static func errorName(_ call: () async throws -> Void) async -> String? {
        do { try await call(); return nil } catch let error as BusError { return error.name.rawValue } catch { return "\(error)" }
    }

    @Test("only the connection that added a scene may change it")
    func strangers() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let owner = try await session.installApp(RoutingTests.contactsApp(scenes: [("mine", "contacts", [([], ["*"])])]))
        let other = try await session.installApp(SampleApp(
            "org.example.Other", schemes: ["other"], declarations: [("main", ["kind": "window-group"])], scenes: []))
        try await session.start(owner)
        try await session.start(other)
        let bus = try await session.connect()

        // Another registered app cannot close it …
        let closing = await Self.errorName { try await session.control(other.id, with: bus, "CloseScene", ["mine"]) }
        #expect(closing == "io.waypost.Error.NotOwner")
        // … and a connection that never registered cannot touch anything.
        for (member, arguments) in [("RemoveScene", ["mine"]), ("ActivateScene", ["mine"]), ("AddScene", ["x", "contacts"])] {
            let name = await Self.errorName {
                if arguments.count == 1 {
                    _ = try await bus.call(destination: Self.dispatcher, path: Self.path, interface: Self.interface,
                                           member: MemberName(member), arguments[0])
                } else {
                    _ = try await bus.call(destination: Self.dispatcher, path: Self.path, interface: Self.interface,
                                           member: MemberName(member), arguments[0], arguments[1])
                }
            }
            #expect(name == "io.waypost.Error.NotRegistered", "\(member)")
        }
        let stranger = await Self.errorName {
            _ = try await bus.call(destination: Self.dispatcher, path: Self.path, interface: Self.interface,
                                   member: "SetExternalEvents", "mine", [Structure<[String], [String]>]())
        }
        #expect(stranger == "io.waypost.Error.NotRegistered")
        // The scene is untouched and still takes links.
        #expect(try await session.openAsPlanned("contacts://show?id=kim", with: bus)["scene-id"] == "mine")
    }

    @Test("malformed, oversized and unknown links get named errors; the daemon keeps serving")
    func badLinks() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: [("any", "contacts", [([], ["*"])])]))
        try await session.start(app)
        let bus = try await session.connect()
        let cases: [(String, String)] = [
            ("", "io.waypost.Error.InvalidURI"),
            ("no scheme here", "io.waypost.Error.InvalidURI"),
            ("1http://x", "io.waypost.Error.InvalidURI"),
            ("contacts://a b", "io.waypost.Error.InvalidURI"),
            ("contacts://" + String(repeating: "x", count: 70_000), "io.waypost.Error.InvalidURI"),
            ("nobody-handles-this://x", "io.waypost.Error.NoHandler"),
        ]
        for (uri, expected) in cases {
            let name = await Self.errorName { _ = try await session.open(uri, with: bus) }
            #expect(name == expected, "\(uri.prefix(40))")
        }
        // Wrong signatures are refused by the bus layer before any handler runs.
        let wrong = await Self.errorName {
            _ = try await bus.call(destination: Self.dispatcher, path: Self.path, interface: Self.interface,
                                   member: "Open", Int32(7))
        }
        #expect(wrong == "org.freedesktop.DBus.Error.InvalidArgs")
        // Right signature, wrong content: a kind must be a string.
        let declaration = await Self.errorName {
            _ = try await bus.call(destination: Self.dispatcher, path: Self.path, interface: Self.interface,
                                   member: "DeclareScenes", [Structure(("x", ["kind": Variant.int32(3)]))])
        }
        #expect(declaration == "io.waypost.Error.InvalidArgument")
        // A flood of bad calls, then a good one.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask { _ = await Self.errorName { _ = try await session.open("bad \(index)", with: bus) } }
            }
            try await group.waitForAll()
        }
        #expect(try await session.openAsPlanned("contacts://show?id=liz", with: bus)["scene-id"] == "any")
        #expect(session.received(app.id).count == 1)
    }

    @Test("a launched app that never registers: Timeout, naming the app")
    func launchTimeout() async throws {
        let session = try await PeerDesktop(launchTimeout: 1)
        defer { session.close() }
        try await session.writeEntry(id: "org.example.Sleepy", """
            [Desktop Entry]
            Type=Application
            Name=Sleepy
            Exec=/bin/sleep 30
            MimeType=x-scheme-handler/sleepy;
            X-Waypost=true

            """)
        let bus = try await session.connect()
        do {
            _ = try await session.open("sleepy://wake", with: bus)
            Issue.record("the link was reported delivered")
        } catch let error as BusError {
            #expect(error.name.rawValue == "io.waypost.Error.Timeout")
            #expect(error.message.contains("org.example.Sleepy"))
        }
    }

    @Test("after a daemon restart the apps register again and nothing stale remains")
    func daemonRestart() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: [("keep", "contacts", [(["mallory"], [])])]))
        try await session.start(app)
        let bus = try await session.connect()
        let first = try await bus.processID(of: Self.dispatcher)
        kill(Int32(first), SIGTERM)
        try await waitUntil("the old daemon is gone") { (try? await bus.nameOwner(of: Self.dispatcher)) == nil }
        // Any call starts a new daemon; the app sees the name appear and registers again.
        try await waitUntil("the app registered again") {
            (try? await session.status(with: bus))?.scenes.map { $0["scene-id"] } == ["keep"]
        }
        #expect(try await bus.processID(of: Self.dispatcher) != first)
        #expect(try await session.status(with: bus).processes.count == 1)
        #expect(try await session.openAsPlanned("contacts://show?id=MALLORY", with: bus)["scene-id"] == "keep")
    }

    /// The link is the call that starts the new daemon: it arrives before the running app has had
    /// the name's change, and waits until the app (registered with the daemon before) has registered
    /// again, its scenes with it, rather than launching a second process or opening a new scene.
    @Test("a link that starts the daemon again goes to the scene the running app registers again; nothing is launched")
    func linkAfterRestart() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(SampleApp(
            RoutingTests.contacts, schemes: ["contacts"], announceReady: true, declarations: [("contacts", ["kind": "window-group"])],
            scenes: [("keep", "contacts", [(["mallory"], [])])]))
        let pid = try await session.start(app)
        let bus = try await session.connect()
        let record = session.root.appendingPathComponent("runtime/waypost/registered")
        try await waitUntil("the daemon recorded the registration", context: session.busLog) {
            ((try? String(contentsOf: record, encoding: .utf8)) ?? "").contains("\t\(app.id)\n")
        }
        let first = try await bus.processID(of: Self.dispatcher)
        kill(Int32(first), SIGKILL)  // a crash: nothing said on the way out
        try await waitUntil("the old daemon is gone") { (try? await bus.nameOwner(of: Self.dispatcher)) == nil }

        let outcome = try await session.open("contacts://show?id=MALLORY", with: bus)
        #expect(outcome["scene-id"] == "keep" && outcome["rule"] == "preferring", "\(outcome)\n\(session.busLog)")
        #expect(!session.busLog.contains("launched \(app.id)"), "\(session.busLog)")
        #expect(try await session.status(with: bus).processes.map { $0["pid"] } == ["\(pid)"])
    }

    @Test("the daemon exits when the bus goes away")
    func exitsWithTheBus() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let bus = try await session.connect()
        _ = try await session.status(with: bus)
        let pid = Int32(try await bus.processID(of: Self.dispatcher))
        bus.close()
        session.stopBus()
        try await waitUntil("the daemon exited") {
            // Gone, or a zombie waiting for its parent: either way it stopped running.
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
    }
}
