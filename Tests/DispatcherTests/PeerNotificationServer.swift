import DBus
import Synchronization

/// A notification server in this test process, on the other side of the dispatcher's own peer
/// connection (`PeerDesktop.notificationServer()`), as `notification_server.py` is on a bus: it
/// owns `org.freedesktop.Notifications`, answers `Notify` with a new id, and tells each one.
final class PeerNotificationServer: Sendable {
    static let path: ObjectPath = "/org/freedesktop/Notifications"
    static let interface: InterfaceName = "org.freedesktop.Notifications"

    /// Each `Notify`: its id and summary, in order.
    let notified: AsyncStream<(id: UInt32, summary: String)>
    private let tell: AsyncStream<(id: UInt32, summary: String)>.Continuation
    private let shown = Mutex<(next: UInt32, live: Set<UInt32>)>((1, []))

    init(on connection: Connection) async throws {
        (notified, tell) = AsyncStream.makeStream()
        try connection.export(Self.path, interfaces: [interface])
        _ = try await connection.requestName("org.freedesktop.Notifications", flags: [.doNotQueue])
    }

    /// The notifications on the screen now.
    var live: Set<UInt32> { shown.withLock { $0.live } }

    private var interface: Interface {
        Interface(Self.interface, methods: [
            .answeringAtOnce("Notify", arguments: [
                Argument("app_name", "s"), Argument("replaces_id", "u"), Argument("app_icon", "s"), Argument("summary", "s"),
                Argument("body", "s"), Argument("actions", "as"), Argument("hints", "a{sv}"), Argument("expire_timeout", "i"),
            ], returns: [Argument("id", "u")]) { call in
                let (_, replaces, _, summary, _, _, _, _) = try call.arguments(
                    String.self, UInt32.self, String.self, String.self, String.self, [String].self, [String: Variant].self, Int32.self)
                let id = self.shown.withLock { shown in
                    let id = replaces != 0 && shown.live.contains(replaces) ? replaces : shown.next
                    if id == shown.next { shown.next += 1 }
                    shown.live.insert(id)
                    return id
                }
                self.tell.yield((id, summary))
                return try call.reply(id)
            },
            .answeringAtOnce("CloseNotification", arguments: [Argument("id", "u")]) { call in
                let id = try call.arguments(UInt32.self)
                _ = self.shown.withLock { $0.live.remove(id) }
                return try call.reply()
            },
            .answeringAtOnce("GetCapabilities", returns: [Argument("capabilities", "as")]) { call in
                try call.reply(["actions", "body"])
            },
            .answeringAtOnce("GetServerInformation", returns: [
                Argument("name", "s"), Argument("vendor", "s"), Argument("version", "s"), Argument("spec_version", "s"),
            ]) { call in
                try call.reply("waypost-peer-server", "waypost", "1", "1.2")
            },
        ])
    }
}
