public import DBus
import Synchronization

/// A notification's id on the desktop's notification server (`Notify`'s answer).
public struct NotificationID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

/// What the notification server says of a notification it shows.
public enum NotificationEvent: Sendable, Hashable {
    /// The user chose an action (`default` is a click on the notification itself); the activation
    /// token is the one the server sent just before (`ActivationToken`, spec 1.2), else one obtained
    /// for the click from the compositor (`ShellActionTokens`: GNOME Shell 43 sends none), if any.
    case action(String, activationToken: String?)
    /// It left the screen (`NotificationClosed`; the spec's reason: 1 expired, 2 dismissed, 3 closed
    /// by a call, 4 other). Nothing more comes for it.
    case closed(reason: UInt32)
}

/// What a notification shows (`org.freedesktop.Notifications.Notify`'s arguments).
public struct NotificationContent: Sendable {
    /// The name the server shows as the sender.
    public var appName: String
    /// The sender's desktop-file id without `.desktop` (the `desktop-entry` hint), nil for none.
    public var desktopEntry: String?
    public var icon: String
    public var title: String
    public var body: String
    /// The buttons, as (action key, label), in order; a click on the notification itself is always
    /// the action `default`.
    public var buttons: [(key: String, label: String)]
    /// Milliseconds on screen; -1 for the server's default, 0 until dismissed.
    public var expireTimeout: Int32

    public init(
        appName: String, desktopEntry: String? = nil, icon: String = "", title: String, body: String = "",
        buttons: [(key: String, label: String)] = [], expireTimeout: Int32 = -1
    ) {
        (self.appName, self.desktopEntry, self.icon, self.title, self.body) = (appName, desktopEntry, icon, title, body)
        (self.buttons, self.expireTimeout) = (buttons, expireTimeout)
    }
}

/// Why a notification could not be posted.
public enum NotificationPostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No notification server owns `org.freedesktop.Notifications` on the session bus.
    case noServer
    /// The server refused `Notify` or answered wrongly: its error.
    case serverFailed(String)
    /// `limit` notifications are live already (across every sender); nothing was posted.
    case tooMany(limit: Int)

    public var description: String {
        switch self {
        case .noServer: "no notification server is on the session bus (org.freedesktop.Notifications has no owner)"
        case .serverFailed(let reason): "the notification server refused it: \(reason)"
        case .tooMany(let limit): "\(limit) notifications are on screen already; close some first"
        }
    }
}

/// Posts notifications to the desktop's notification server on the daemon's connection, and calls
/// each one's handler when the user acts on it (then it is closed: `.action`, then `.closed`) or it
/// closes.
///
/// Policy: a server sends its signals only to the connection that called `Notify`, so this must be
/// the daemon's own, which outlives the apps. A signal is believed only from the connection that
/// answered `Notify` for that notification (the name's owner then): a neighbour on the bus that
/// emits `ActionInvoked`, even addressed to the daemon, is ignored. When the server leaves the bus,
/// its notifications are closed (reason 4). Work per signal is a dictionary lookup.
public final class NotificationPoster: Sendable {
    public typealias Handler = @Sendable (NotificationEvent) -> Void

    /// The notification server's bus name, path and interface.
    public static let serverName: BusName = "org.freedesktop.Notifications"
    static let path: ObjectPath = "/org/freedesktop/Notifications"
    static let interface: InterfaceName = "org.freedesktop.Notifications"
    /// Notifications kept at once, whoever posted them (apps have smaller budgets of their own).
    public static let limit = 4096

    private struct Live {
        /// The unique name that answered `Notify`: only its signals count.
        var server: BusName
        var handler: Handler
        /// `ActivationToken` came for it, awaiting its `ActionInvoked`.
        var token: String?
    }

    private struct State {
        var live: [UInt32: Live] = [:]
        var listening: Task<Void, Never>?
        var watching = false
    }

    private let connection: Connection
    private let tokens: ShellActionTokens
    private let state = Mutex(State())

    public init(connection: Connection, tokens: ShellActionTokens = .none) {
        self.connection = connection
        self.tokens = tokens
    }

    deinit { state.withLock { $0.listening?.cancel() } }

    /// Shows `content`, replacing the notification `replacing` when given (and still shown);
    /// `handler` hears what the user does with it, until it closes.
    /// - Throws: `noServer` without a notification server, `serverFailed` when it refuses,
    ///   `tooMany` over `limit`.
    public func post(
        _ content: NotificationContent, replacing: NotificationID? = nil, handler: @escaping Handler
    ) async throws(NotificationPostError) -> NotificationID {
        if replacing == nil, state.withLock({ $0.live.count >= Self.limit }) { throw .tooMany(limit: Self.limit) }
        do { try await listen() } catch { throw .serverFailed("cannot subscribe to its signals: \(error)") }
        var actions = ["default", ""]
        for button in content.buttons { actions += [button.key, button.label] }
        var hints: [String: Variant] = [:]
        if let entry = content.desktopEntry { hints["desktop-entry"] = .string(entry) }
        let reply: Message
        do {
            reply = try await connection.call(
                destination: Self.serverName, path: Self.path, interface: Self.interface, member: "Notify",
                content.appName, replacing?.rawValue ?? 0, content.icon, content.title, content.body, actions, hints,
                content.expireTimeout, timeout: .seconds(5))
        } catch let error as BusError where error.name == .serviceUnknown || error.name == .nameHasNoOwner {
            throw .noServer
        } catch {
            throw .serverFailed("\(error)")
        }
        guard let server = reply.sender, let (id) = try? reply.decode(UInt32.self) else {
            throw .serverFailed("Notify answered with '\(reply.signature)', not 'u'")
        }
        state.withLock { state in
            if let replacing, replacing.rawValue != id { state.live[replacing.rawValue] = nil }
            state.live[id] = Live(server: server, handler: handler)
        }
        return NotificationID(id)
    }

    /// Takes the notification off the screen; its handler hears nothing more.
    public func withdraw(_ id: NotificationID) {
        guard state.withLock({ $0.live.removeValue(forKey: id.rawValue) }) != nil else { return }
        try? connection.send(
            destination: Self.serverName, path: Self.path, interface: Self.interface, member: "CloseNotification", id.rawValue)
    }

    /// How many notifications are on screen, as far as the poster knows.
    public var liveCount: Int { state.withLock { $0.live.count } }

    // MARK: Signals

    /// Subscribes once to the server's signals and to its name changing hands.
    private func listen() async throws {
        guard state.withLock({ state in
            guard !state.watching else { return false }
            state.watching = true
            return true
        }) else { return }
        let signals: AsyncThrowingStream<Message, any Error>
        let owners: AsyncThrowingStream<NameOwnerChange, any Error>
        do {
            signals = try await connection.signals(matching: MatchRule(sender: Self.serverName, path: Self.path, interface: Self.interface))
            owners = try await connection.nameOwnerChanges(for: Self.serverName)
        } catch {
            state.withLock { $0.watching = false }
            throw error
        }
        // Read on the connection's own thread, where the daemon lives: a click costs no thread hop.
        let task = Task(executorPreference: connection.executor) { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do { for try await message in signals { self?.received(message) } } catch {}
                }
                group.addTask {
                    do { for try await change in owners { self?.serverChanged(from: change.oldOwner) } } catch {}
                }
            }
        }
        state.withLock { $0.listening = task }
    }

    /// One signal of the server: believed only from the connection that holds that notification.
    func received(_ message: Message) {
        guard let sender = message.sender, let member = message.member else { return }
        enum Heard { case action(String), token(String), closed(UInt32) }
        let id: UInt32, heard: Heard
        switch member.rawValue {
        case "ActionInvoked":
            guard let (notification, key) = try? message.decode(UInt32.self, String.self) else { return }
            (id, heard) = (notification, .action(key))
        case "ActivationToken":
            guard let (notification, token) = try? message.decode(UInt32.self, String.self) else { return }
            (id, heard) = (notification, .token(token))
        case "NotificationClosed":
            guard let (notification, reason) = try? message.decode(UInt32.self, UInt32.self) else { return }
            (id, heard) = (notification, .closed(reason))
        default: return
        }
        let call: (Handler, NotificationEvent)? = state.withLock { state in
            guard let live = state.live[id], live.server == sender else { return nil }
            switch heard {
            case .token(let token):
                state.live[id]?.token = token
                return nil
            case .action(let key):
                state.live[id] = nil
                return (live.handler, .action(key, activationToken: live.token))
            case .closed(let reason):
                state.live[id] = nil
                return (live.handler, .closed(reason: reason))
            }
        }
        guard let (handler, event) = call else { return }
        guard case .action(let key, let token) = event else { return handler(event) }
        let (connection, tokens) = (connection, self.tokens)
        // Acted on, it is done (as a tapped notification leaves Notification Center): a server
        // that keeps it on screen (dunst after `dunstctl action`) is asked to close it, after
        // what the action started has run up to its first wait.
        func done() {
            try? connection.send(
                destination: sender, path: Self.path, interface: Self.interface, member: "CloseNotification", id)
            handler(.closed(reason: 2))
        }
        if token != nil || !tokens.mayObtain {
            handler(event)
            Task(executorPreference: connection.executor) { done() }
            return
        }
        // The server gave no token (GNOME Shell): one for this click, from the compositor, now.
        Task(executorPreference: connection.executor) {
            handler(.action(key, activationToken: await tokens.forReportedAction()))
            done()
        }
    }

    /// The server left (or changed hands): what it showed is gone with it.
    private func serverChanged(from old: BusName?) {
        guard let old else { return }
        let gone: [Handler] = state.withLock { state in
            let gone = state.live.filter { $0.value.server == old }
            for id in gone.keys { state.live[id] = nil }
            return gone.values.map(\.handler)
        }
        for handler in gone { handler(.closed(reason: 4)) }
    }
}
