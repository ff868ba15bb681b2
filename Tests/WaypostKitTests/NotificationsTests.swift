import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract
import WaypostKit

/// WaypostKit's notifications: `notify` posts through the dispatcher to a real server (the tests'
/// own spec-1.2 one, Tests/Apps/notification_server.py), and the user's response reaches the
/// `onNotificationResponse` handler of the scene that prefers its target.
@Suite("WaypostKit notifications")
struct NotificationsTests {
    static let server = KitSession.packageRoot.appendingPathComponent("Tests/Apps/notification_server.py")

    @Test("a button's response reaches the scene that prefers the target, with user info and the server's token")
    func response() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let notifications = try await ChildProcess.start("/usr/bin/python3", [Self.server.path], environment: session.environment)
        defer { notifications.kill() }
        #expect(try await notifications.nextLine("the notification server is ready") == "ready")
        try await session.installInProcessApp(LibraryOverTheBusTests.appID, schemes: [])
        let app = try Application(id: LibraryOverTheBusTests.appID, declarations: [.windowGroup("list")])
        let judy = try app.openScene("list", id: "judy")
        judy.handlesExternalEvents(preferring: ["contact/judy"], allowing: [])
        let other = try app.openScene("list", id: "other")
        other.handlesExternalEvents(preferring: [], allowing: ["*"])
        let (received, inbox) = AsyncStream.makeStream(of: (scene: String, response: NotificationResponse, token: String?).self)
        for scene in [judy, other] {
            scene.onNotificationResponse { response, context in inbox.yield((scene.id, response, context.activationToken)) }
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        try await app.notify(id: "judy-1", NotificationContent(
            title: "Judy wrote", body: "About Friday", targetContentIdentifier: "contact/judy", userInfo: ["message": "m-7"],
            buttons: [(action: "reply", label: "Reply")]))
        let notified = try #require(try await notifications.nextLine("the server shows the notification"))
        let id = try #require(UInt32(notified.split(separator: " ")[1]))
        let bus = try await session.connect()
        let owner = try #require(try await bus.nameOwner(of: "org.freedesktop.Notifications"))
        _ = try await bus.call(
            destination: owner, path: "/org/freedesktop/Notifications", interface: "io.waypost.test.NotificationServer",
            member: "Invoke", id, "reply", "token-1")
        let delivered = try await next(received, "the response reaches its scene")
        #expect(delivered.scene == "judy")
        #expect(delivered.response == NotificationResponse(
            notificationID: "judy-1", action: "reply", targetContentIdentifier: "contact/judy", userInfo: ["message": "m-7"]))
        #expect(delivered.token == "token-1")
    }
}
