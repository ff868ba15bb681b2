import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import WaypostContract

/// Who shows the daemon's notifications, what reaches the screen, and who may hold the link
/// notifications (a server that changed hands, a device's words on screen, and link
/// notifications held by one caller). Real servers: Debian's dunst, and the tests' own
/// (Tests/Apps/notification_server.py), which with `--queue` waits for the name as a process hoping
/// to become the server does.
@Suite("notification servers and callers", .serialized)
struct NotificationServerTests {
    static let mail = NotificationTests.mail

    static func content(title: String, body: String) -> [String: Variant] {
        Contract.NotificationContent(title: title, body: body, targetContentIdentifier: "conversation/42").variants
    }

    @Test("the server changes hands to another program: nothing is posted to it, so it reads and clicks nothing; dunst started again is believed")
    func serverChangesHands() async throws {
        let desk = try await DunstDesk()
        defer { desk.close() }
        let session = desk.session
        let (bus, _) = try await NotificationTests.mailRunning(in: session)
        #expect(try await NotificationTests.app(Self.mail.id, in: session, bus, "Notify", "n1", Self.content(title: "Hello", body: "")) == "")
        try await desk.waitUntilShown(1)
        // A process waits in the bus's queue for the name; the server dies; it becomes the owner.
        let squatter = try await session.spawn(DesktopSession.python, [NotificationTests.notificationServer.path, "--queue"])
        try #require(await squatter.nextLine() == "ready")
        let heard = Mutex<[String]>([])
        try await desk.stopServer()
        try #require(await squatter.nextLine() == "owner")
        Task { for await line in squatter.lines { heard.withLock { $0.append(line) } } }

        let code = try await NotificationTests.app(
            Self.mail.id, in: session, bus, "Notify", "n2", Self.content(title: "Your code", body: "314159"))
        #expect(code == "io.waypost.Error.DeliveryFailed", "\(session.busLog)")
        // A round trip to the squatter after the post: had it been sent a Notify, it would have printed it by now.
        let owner = try #require(try await bus.nameOwner(of: "org.freedesktop.Notifications"))
        _ = try await bus.call(
            destination: owner, path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "GetServerInformation")
        #expect(heard.withLock { $0 }.filter { $0.hasPrefix("notified") }.isEmpty, "\(heard.withLock { $0 })")
        #expect(session.busLog.contains("nothing is posted to it"), "the log tells the user: \(session.busLog)")

        // The squatter goes; the desktop's server comes back: the same program as before, believed.
        squatter.kill()
        _ = try await squatter.status()
        try await desk.startServer()
        #expect(try await NotificationTests.app(Self.mail.id, in: session, bus, "Notify", "n3", Self.content(title: "Back", body: "")) == "")
        try await desk.waitUntilShown(1)
        #expect(session.received(Self.mail.id).isEmpty)
    }

    @Test("what reaches the screen: a body's markup as text, a title on one line")
    func markupAndLines() async throws {
        let desk = try await DunstDesk()
        defer { desk.close() }
        let session = desk.session
        let (bus, _) = try await NotificationTests.mailRunning(in: session)
        #expect(try await NotificationTests.app(
            Self.mail.id, in: session, bus, "Notify", "n1",
            Self.content(title: "Judy\nwrote\u{2028}From Bank\u{202E}", body: "<b>bold</b> & <a href=\"https://evil.example\">link</a>")) == "")
        // One at a time: on a loaded machine dunst answers a second Notify late while it draws the first.
        try await desk.waitUntilShown(1)
        let posted = try await session.waypost(["notify", "post", "Build done", "--body", "<i>main</i> passed", "--open", "mail://inbox"])
        #expect(posted.status == 0, "\(posted.stderr)")
        try await desk.waitUntilShown(2)
        #expect(try await desk.dunstctl(["close-all"]).status == 0)
        let shown = try await desk.history()
        let app = try #require(shown.first { $0.summary.hasPrefix("Judy") }, "\(shown)")
        #expect(!app.summary.unicodeScalars.contains { ["\n", "\u{2028}", "\u{202E}"].contains($0) }, "\(app.summary.debugDescription)")
        #expect(app.message.contains("&lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href=\"https://evil.example\"&gt;link&lt;/a&gt;"), "\(app.message)")
        let link = try #require(shown.first { $0.summary == "Build done" }, "\(shown)")
        #expect(link.message.contains("&lt;i&gt;main&lt;/i&gt; passed"), "\(link.message)")
    }

    @Test("one caller holds at most 8 link notifications; another caller's is posted while it holds them")
    func linkNotificationsPerCaller() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        _ = try await NotificationTests.testServer(in: session)
        try await session.installApp(Self.mail)
        let script = try await session.connect()
        func post(_ title: String) async throws -> String {
            do {
                return try await script.call(
                    destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                    member: Contract.Dispatcher1.postLinkNotification.name, title, "", "mail://inbox"
                ).decode(String.self)
            } catch let error as BusError { return "\(error.name.rawValue): \(error.message)" }
        }
        for number in 1...8 { #expect(try await post("Script \(number)").count == 32) }
        let refused = try await post("Script 9")
        #expect(refused.hasPrefix("io.waypost.Error.BudgetExceeded"), "\(refused)")
        #expect(refused.contains("over its budget of 8"), "\(refused)")
        // Another process, while the script holds all of its own.
        let other = try await session.waypost(["notify", "post", "From the terminal", "--open", "mail://inbox"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count == 32, "\(other.stdout)")
    }
}
