// One file over 300 lines: the notification tests and the dunst desk they alone use, read together.
import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import WaypostContract

/// Notifications with real servers: Debian's dunst under its own Xvfb, where `dunstctl` clicks
/// and picks buttons as a user does, and the tests' own spec-1.2 server (Tests/Apps/notification_server.py)
/// for the activation token no Debian server sends. The app is `sample_app.py`; each response it
/// receives is a line of its log, and the daemon's `Routed` says when one was carried out.
@Suite("notifications", .serialized)
struct NotificationTests {
    static let mail = SampleApp(
        "org.example.Mail", schemes: ["mail"], announceReady: true,
        declarations: [("inbox", ["kind": "window-group"]), ("conversation", ["kind": "window-group", "matching": ["conversation/"]])],
        scenes: [
            (id: "inbox", declaration: "inbox", modifiers: [([], ["*"])]),
            (id: "conv-42", declaration: "conversation", modifiers: [(["conversation/42"], [])]),
        ])
    static let neighbour = SampleApp("org.example.Neighbour", schemes: ["neighbour"], declarations: [("main", ["kind": "window-group"])])

    static let content: [String: Variant] = Contract.NotificationContent(
        title: "Judy wrote", body: "About Friday", targetContentIdentifier: "conversation/42",
        userInfo: ["message": .string("m-7")], buttons: [.init(action: "archive", label: "Archive")]
    ).variants

    @Test("a click reaches the scene that prefers the notification's target, with its id, action and user info")
    func clickReachesScene() async throws {
        let desk = try await DunstDesk()
        defer { desk.close() }
        let session = desk.session
        let (bus, _) = try await Self.mailRunning(in: session)
        var routed = try await Self.routed(bus, session)
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Notify", "n1", Self.content) == "")
        try await desk.click()
        #expect(try await Self.nextRouted(&routed) == "notification:org.example.Mail/n1")
        let responses = session.received(Self.mail.id).filter { $0["event"] as? String == "ReceiveNotificationResponse" }
        try #require(responses.count == 1, "\(session.received(Self.mail.id))\n\(session.busLog)")
        #expect(responses[0]["scene"] as? String == "conv-42")
        let response = try #require(responses[0]["response"] as? [String: Any])
        #expect(response["notification-id"] as? String == "n1")
        #expect(response["notification-action"] as? String == "default")
        #expect(response["target-content-identifier"] as? String == "conversation/42")
        #expect((response["user-info"] as? [String: Any])?["message"] as? String == "m-7")
    }

    @Test("a button's action reaches the scene as that action")
    func button() async throws {
        let desk = try await DunstDesk(choosing: "#Archive")
        defer { desk.close() }
        let session = desk.session
        let (bus, _) = try await Self.mailRunning(in: session)
        var routed = try await Self.routed(bus, session)
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Notify", "n1", Self.content) == "")
        try await desk.waitUntilShown(1)
        #expect(try await desk.dunstctl(["context"]).status == 0)
        #expect(try await Self.nextRouted(&routed) == "notification:org.example.Mail/n1")
        let response = try #require(session.received(Self.mail.id).last?["response"] as? [String: Any])
        #expect(response["notification-action"] as? String == "archive")
        #expect(session.received(Self.mail.id).last?["scene"] as? String == "conv-42")
    }

    @Test("a click after the app exited launches it and delivers the response once, to the scene for its target")
    func launchAfterExit() async throws {
        let desk = try await DunstDesk()
        defer { desk.close() }
        let session = desk.session
        let (bus, pid) = try await Self.mailRunning(in: session)
        var routed = try await Self.routed(bus, session)
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Notify", "n1", Self.content) == "")
        kill(pid, SIGKILL)
        try await waitUntil("the daemon forgot the exited app", context: session.busLog) {
            try await session.status(with: bus).processes.isEmpty
        }
        try await desk.click()
        #expect(try await Self.nextRouted(&routed) == "notification:org.example.Mail/n1")
        // Another event after it: had the response been delivered twice, the second would come first.
        _ = try await session.open("mail://inbox", with: bus)
        let events = session.received(Self.mail.id).compactMap { $0["event"] as? String }
        #expect(events.filter { $0 == "ReceiveNotificationResponse" }.count == 1, "\(events)")
        let launched = session.received(Self.mail.id).filter { $0["event"] as? String == "ReceiveNotificationResponse" }
        #expect(launched.first?["pid"] as? Int != Int(pid))
        #expect(launched.first?["scene"] as? String == "conv-42")
    }

    @Test("another app cannot withdraw a notification, and a neighbour's forged ActionInvoked is ignored")
    func onlyItsOwn() async throws {
        let desk = try await DunstDesk()
        defer { desk.close() }
        let session = desk.session
        let (bus, _) = try await Self.mailRunning(in: session)
        try await session.installApp(Self.neighbour)
        try await session.start(Self.neighbour)
        var routed = try await Self.routed(bus, session)
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Notify", "n1", Self.content) == "")
        try await desk.waitUntilShown(1)
        // The neighbour names Mail's id: it reaches only its own (none), so nothing is withdrawn.
        #expect(try await Self.app(Self.neighbour.id, in: session, bus, "Withdraw", ["n1"]) == "")
        // A neighbour forges the server's signals, addressed to the daemon and broadcast alike.
        let forger = try await session.connect()
        let daemon = try #require(try await bus.nameOwner(of: Contract.busName))
        for id in UInt32(1)...UInt32(8) {
            for destination in [daemon, nil] {
                try forger.emit(
                    path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", member: "ActionInvoked",
                    id, "default", destination: destination)
            }
        }
        // A round trip after them: the bus has passed them on before the real click below.
        _ = try await forger.nameOwner(of: Contract.busName)
        #expect(try await desk.dunstctl(["count", "displayed"]).output.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        try await desk.click()
        #expect(try await Self.nextRouted(&routed) == "notification:org.example.Mail/n1")
        _ = try await session.open("mail://inbox", with: bus)
        let events = session.received(Self.mail.id).compactMap { $0["event"] as? String }
        #expect(events == ["ReceiveNotificationResponse", "OpenURL"], "\(events)")
        // Acted on, it left the screen; Mail withdraws its own next one: it leaves the screen.
        try await desk.waitUntilShown(0)
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Notify", "n2", Self.content) == "")
        try await desk.waitUntilShown(1)
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Withdraw", ["n2"]) == "")
        try await desk.waitUntilShown(0)
    }

    @Test("a spec-1.2 server's activation token arrives in the scene's platform data; a neighbour's does not")
    func activationToken() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let server = try await Self.testServer(in: session)
        let (bus, _) = try await Self.mailRunning(in: session)
        var routed = try await Self.routed(bus, session)
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Notify", "n1", Self.content) == "")
        let notified = try #require(await server.nextLine())
        let id = try #require(UInt32(notified.split(separator: " ")[1]))
        let owner = try #require(try await bus.nameOwner(of: "org.freedesktop.Notifications"))
        _ = try await bus.call(
            destination: owner, path: "/org/freedesktop/Notifications", interface: "io.waypost.test.NotificationServer",
            member: "Invoke", id, "default", "token-from-the-server")
        #expect(try await Self.nextRouted(&routed) == "notification:org.example.Mail/n1")
        let delivered = try #require(session.received(Self.mail.id).last)
        #expect(delivered["scene"] as? String == "conv-42")
        #expect((delivered["platform_data"] as? [String: Any])?["activation-token"] as? String == "token-from-the-server")

        // A neighbour's ActivationToken is no token: the next click, without one, carries none.
        #expect(try await Self.app(Self.mail.id, in: session, bus, "Notify", "n2", Self.content) == "")
        let line = try #require(await server.nextLine())
        let second = try #require(UInt32(line.split(separator: " ")[1]))
        let forger = try await session.connect()
        let daemon = try #require(try await bus.nameOwner(of: Contract.busName))
        try forger.emit(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", member: "ActivationToken",
            second, "forged-token", destination: daemon)
        _ = try await forger.nameOwner(of: Contract.busName)
        _ = try await bus.call(
            destination: owner, path: "/org/freedesktop/Notifications", interface: "io.waypost.test.NotificationServer",
            member: "Invoke", second, "default", "")
        #expect(try await Self.nextRouted(&routed) == "notification:org.example.Mail/n2")
        let plain = try #require(session.received(Self.mail.id).last)
        #expect((plain["response"] as? [String: Any])?["notification-id"] as? String == "n2")
        #expect((plain["platform_data"] as? [String: Any])?["activation-token"] == nil, "\(plain)")
    }

    @Test("an app over its budget of live notifications gets BudgetExceeded, and the others stay")
    func budget() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        _ = try await session.notificationServer()
        try await session.installApp(Self.mail)
        try await session.start(Self.mail)
        let mail = try session.app(Self.mail.id)
        for number in 1...32 {
            #expect(await mail.notify("n\(number)", Self.content) == "")
        }
        #expect(await mail.notify("n33", Self.content) == "io.waypost.Error.BudgetExceeded")
        // Replacing one is no new one; withdrawing one makes room.
        #expect(await mail.notify("n5", Self.content) == "")
        #expect(await mail.withdraw(["n1"]) == "")
        #expect(await mail.notify("n33", Self.content) == "")
        // A button may not be named "default", the notification's own click.
        var bad = Self.content
        bad["buttons"] = Variant([Structure(("default", "Open"))])
        #expect(await mail.notify("n34", bad) == "io.waypost.Error.InvalidArgument")
    }

    @Test("explain names the scene a click would reach, delivering nothing, to the app that posted it only")
    func explain() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        _ = try await session.notificationServer()
        try await session.installApp(Self.mail)
        try await session.start(Self.mail)
        try await session.installApp(Self.neighbour)
        try await session.start(Self.neighbour)
        let (mail, neighbour) = (try session.app(Self.mail.id), try session.app(Self.neighbour.id))
        let bus = try await session.connect()
        #expect(await mail.notify("n1", Self.content) == "")
        #expect(await mail.explainNotification(Self.mail.id, "n1") == "conv-42")
        #expect(await mail.explainNotification(Self.mail.id, "n9") == "io.waypost.Error.NoHandler")
        // Another app, and a process that is no app, learn nothing of Mail's notification.
        #expect(await neighbour.explainNotification(Self.mail.id, "n1") == "io.waypost.Error.InvalidArgument")
        do {
            _ = try await bus.call(
                destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.explainNotification.name, Self.mail.id, "n1")
            Issue.record("a process that is no app was told where Mail's notification goes")
        } catch let error as BusError {
            #expect(error.name.rawValue == "io.waypost.Error.NotRegistered", "\(error)")
        }
        #expect(session.received(Self.mail.id).isEmpty)
    }

    @Test("a script's link notification, clicked, opens its link in the scene the rules pick; withdrawn, it goes; a bad link is refused")
    func linkNotification() async throws {
        let desk = try await DunstDesk()
        defer { desk.close() }
        let session = desk.session
        let (bus, _) = try await Self.mailRunning(in: session)
        var routed = try await Self.routed(bus, session)
        // Withdrawn before anyone clicks: off the screen, and nothing is opened.
        let first = try await session.waypost(["notify", "post", "Draft", "--open", "mail://inbox"])
        #expect(first.status == 0, "\(first.stderr)")
        try await desk.waitUntilShown(1)
        let withdrawn = try await session.waypost(["notify", "withdraw", first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(withdrawn.status == 0, "\(withdrawn.stderr)")
        try await desk.waitUntilShown(0)
        // Posted by a script, not by Mail; the click opens the link as `waypost open` would.
        let posted = try await session.waypost(["notify", "post", "Judy wrote", "--body", "About Friday", "--open", "mail://conversation/42"])
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count == 32, "\(posted.stdout)")
        try await desk.click()
        #expect(try await Self.nextRouted(&routed) == "mail://conversation/42")
        let opened = session.received(Self.mail.id)
        #expect(opened.map { "\($0["event"] ?? "?") \($0["scene"] ?? "?") \($0["uri"] ?? "?")" } == ["OpenURL conv-42 mail://conversation/42"], "\(opened)")
        let bad = try await session.waypost(["notify", "post", "Broken", "--open", "no scheme"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("InvalidArgument") || bad.stderr.contains("invalid"), "\(bad.stderr)")
    }

    // MARK: Helpers

    static let notificationServer = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Apps/notification_server.py")

    /// Mail installed and started, and a connection of the test's own to the session's bus.
    static func mailRunning(in session: DesktopSession) async throws -> (bus: Connection, pid: Int32) {
        try await session.installApp(mail)
        let pid = try await session.start(mail)
        return (try await session.connect(), pid)
    }

    /// The tests' own spec-1.2 notification server, once it serves (the session stops it).
    static func testServer(in session: DesktopSession) async throws -> ChildProcess {
        let server = try await session.spawn(DesktopSession.python, [notificationServer.path])
        try #require(await server.nextLine() == "ready")
        return server
    }

    /// Calls a running sample app's `io.waypost.test.Control` member; its string answer.
    static func app<each Argument: BusValue>(
        _ appID: String, in session: DesktopSession, _ bus: Connection, _ member: MemberName, _ arguments: repeat each Argument
    ) async throws -> String {
        let processes = try await session.status(with: bus).processes
        let owner = try #require(processes.first { $0["app-id"] == appID }?["owner"])
        return try await bus.call(
            destination: try BusName(owner), path: "/io/waypost/sample", interface: "io.waypost.test.Control", member: member,
            repeat each arguments, timeout: .seconds(30)
        ).decode(String.self)
    }

    /// `Routed` signals from now on, whole events.
    static func routed(_ bus: Connection, _ session: DesktopSession) async throws -> AsyncThrowingStream<Message, any Error>.AsyncIterator {
        let stream = try await bus.signals(matching: MatchRule(
            path: Contract.objectPath, interface: Contract.Dispatcher1.interface, member: Contract.Dispatcher1.routed.name))
        _ = try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.monitorRouted.name, Contract.MonitorOptions(fullURIs: true).variants)
        return stream.makeAsyncIterator()
    }

    static func nextRouted(_ routed: inout AsyncThrowingStream<Message, any Error>.AsyncIterator) async throws -> String? {
        guard let message = try await routed.next() else { return nil }
        let (event, outcome) = try message.decode(String.self, [String: Variant].self)
        if let error = outcome["error"] { return "\(event) failed: \(error) \(outcome["reason"].map { "\($0)" } ?? "")" }
        return event
    }
}

/// dunst on a private session: a screen of its own (`VirtualScreen`), a throwaway dunstrc (a click
/// acts and closes, no stacking, no expiry, and `dunstctl context` answered by a script that picks
/// the line starting with `choosing`).
final class DunstDesk: Sendable {
    let session: DesktopSession
    private let screen: VirtualScreen
    private var display: String { screen.display }
    private let config: URL
    private let dunst = Mutex<ChildProcess?>(nil)

    init(choosing: String = "#") async throws {
        screen = try await VirtualScreen(size: "800x600x24")
        session = try await DesktopSession()
        let root = session.root
        let menu = root.appendingPathComponent("dmenu.sh")
        try "#!/bin/sh\ngrep -m1 -F -- '\(choosing)'\n".write(to: menu, atomically: true, encoding: .utf8)
        chmod(menu.path, 0o755)
        config = root.appendingPathComponent("dunstrc")
        try """
            [global]
                mouse_left_click = do_action, close_current
                stack_duplicates = false
                dmenu = \(menu.path)
            # Nothing leaves the screen by itself: only a click, a dismissal or a withdrawal.
            [urgency_low]
                timeout = 0
            [urgency_normal]
                timeout = 0
            [urgency_critical]
                timeout = 0

            """.write(to: config, atomically: true, encoding: .utf8)
        try await startServer()
    }

    /// Starts dunst; returns once it owns org.freedesktop.Notifications.
    func startServer() async throws {
        let bus = try await session.connect()
        defer { bus.close() }
        var owners = try await bus.nameOwnerChanges(for: "org.freedesktop.Notifications").makeAsyncIterator()
        var environment = session.environment
        environment["DISPLAY"] = display
        let process = try await ChildProcess.start(
            "/usr/bin/dunst", ["-config", config.path], environment: environment,
            errors: session.root.appendingPathComponent("logs/dunst.stderr"))
        dunst.withLock { $0 = process }
        while let change = try await owners.next(), change.newOwner == nil {}
    }

    /// Kills dunst, as when it crashes (Debian's died of X's BadAlloc under a flood).
    func stopServer() async throws {
        guard let process = dunst.withLock({ $0.take() }) else { return }
        process.kill()
        _ = try await process.status()
    }

    func close() {
        dunst.withLock { $0?.kill() }
        session.close()
        screen.stop()
    }

    deinit { close() }

    func dunstctl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await session.run("/usr/bin/dunstctl", arguments)
    }

    /// What dunst shows is polled: it announces nothing when a notification appears.
    func waitUntilShown(_ count: Int) async throws {
        try await waitUntil("dunst shows \(count) notification(s)", context: session.busLog) {
            try await dunstctl(["count", "displayed"]).output.trimmingCharacters(in: .whitespacesAndNewlines) == String(count)
        }
    }

    /// The user clicks the one notification on screen.
    func click() async throws {
        try await waitUntilShown(1)
        let clicked = try await dunstctl(["action", "0"])
        #expect(clicked.status == 0, "\(clicked.output)")
    }

    /// What dunst showed of each notification it closed, newest first: its summary, body and the
    /// message it rendered (markup and all), from `dunstctl history`.
    func history() async throws -> [(summary: String, body: String, message: String)] {
        let output = try await session.run("/usr/bin/dunstctl", ["history"]).output
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            let groups = object["data"] as? [[[String: Any]]]
        else { throw TestFailure("dunstctl history: \(output)") }
        return (groups.first ?? []).map { entry in
            func field(_ name: String) -> String { ((entry[name] as? [String: Any])?["data"] as? String) ?? "" }
            return (field("summary"), field("body"), field("message"))
        }
    }
}
