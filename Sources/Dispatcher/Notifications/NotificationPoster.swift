public import DBus
import Handoff
public import Logging
import Synchronization
import WaypostContract

/// Posts notifications to the desktop's notification server on the daemon's connection, and calls
/// each one's handler when the user acts on it (then it is closed: `.action`, then `.closed`) or it
/// closes.
///
/// Policy: a server sends its signals only to the connection that called `Notify`, so this must be
/// the daemon's own, which outlives the apps. Calls go to the owner's unique name once
/// `NotificationServers` believes it (a later owner must run a server's program), and a signal is
/// believed only from the unique name that answered `Notify` for that notification. When the server
/// leaves the bus, its notifications are closed (reason 4). What is shown is one line of title and a
/// body of lines (controls, separators and bidi controls replaced), the body's markup escaped where
/// the server reads markup. Work per signal is a dictionary lookup.
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
        /// Per server (unique name): whether it reads bodies as markup.
        var readsMarkup: [BusName: Bool] = [:]
    }

    private let connection: Connection
    private let tokens: ShellActionTokens
    private let servers: NotificationServers
    private let state = Mutex(State())

    public init(connection: Connection, tokens: ShellActionTokens = .none, logger: Logger? = nil) {
        self.connection = connection
        self.tokens = tokens
        servers = NotificationServers(logger: logger)
    }

    deinit { state.withLock { $0.listening?.cancel() } }

    /// Shows `content`, replacing the notification `replacing` when given (and still shown by the
    /// same server); `handler` hears what the user does with it, until it closes.
    /// - Throws: `noServer` without a notification server, `untrustedServer` for an owner not
    ///   believed, `serverFailed` when it refuses, `tooMany` over `limit`.
    public func post(
        _ content: DesktopNotification, replacing: NotificationID? = nil, handler: @escaping Handler
    ) async throws(NotificationPostError) -> NotificationID {
        if replacing == nil, state.withLock({ $0.live.count >= Self.limit }) { throw .tooMany(limit: Self.limit) }
        do { try await listen() } catch { throw .serverFailed("cannot subscribe to its signals: \(error)") }
        let server = try await believedServer()
        let replaced = replacing.flatMap { id in state.withLock { $0.live[id.rawValue]?.server == server } ? id : nil }
        var actions = ["default", ""]
        for button in content.buttons { actions += [button.key, button.label] }
        var hints: [String: Variant] = [:]
        if let entry = content.desktopEntry { hints["desktop-entry"] = .string(entry) }
        let (title, body) = await shown(content, on: server)
        let reply: Message
        do {
            reply = try await connection.call(
                destination: server, path: Self.path, interface: Self.interface, member: "Notify",
                content.appName, replaced?.rawValue ?? 0, content.icon, title, body, actions, hints,
                content.expireTimeout, timeout: .seconds(5))
        } catch let error as BusError where error.name == .serviceUnknown || error.name == .nameHasNoOwner {
            throw .noServer
        } catch {
            throw .serverFailed("\(error)")
        }
        guard let (id) = try? reply.decode(UInt32.self) else {
            throw .serverFailed("Notify answered with '\(reply.signature)', not 'u'")
        }
        state.withLock { state in
            if let replacing, replacing.rawValue != id || replaced == nil { state.live[replacing.rawValue] = nil }
            state.live[id] = Live(server: server, handler: handler)
        }
        return NotificationID(id)
    }

    /// Shows a notice of the daemon's own that nobody answers (a link that failed): to a believed
    /// server already on the bus (none is started for it), as `post` shows it, kept nowhere.
    public func notice(_ content: DesktopNotification) async {
        guard let server = try? await believedServer(starting: false) else { return }
        let (title, body) = await shown(content, on: server)
        try? connection.send(
            destination: server, path: Self.path, interface: Self.interface, member: "Notify", content.appName, UInt32(0),
            content.icon, title, body, [String](), [String: Variant](), content.expireTimeout)
    }

    /// Takes the notification off the screen (of the server that shows it); its handler hears nothing more.
    public func withdraw(_ id: NotificationID) {
        guard let live = state.withLock({ $0.live.removeValue(forKey: id.rawValue) }) else { return }
        try? connection.send(
            destination: live.server, path: Self.path, interface: Self.interface, member: "CloseNotification", id.rawValue)
    }

    /// The owner of the server's name, once believed; started by the bus when nobody owns it and
    /// `starting`.
    private func believedServer(starting: Bool = true) async throws(NotificationPostError) -> BusName {
        var owner = try? await connection.nameOwner(of: Self.serverName)
        if owner == nil, starting {
            do {
                _ = try await connection.call(
                    destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "StartServiceByName",
                    Self.serverName.rawValue, UInt32(0), timeout: .seconds(10))
            } catch { throw .noServer }
            owner = try? await connection.nameOwner(of: Self.serverName)
        }
        guard let owner else { throw .noServer }
        switch await servers.check(owner, on: connection) {
        case .trusted: return owner
        case .untrusted(_, let pid, let program): throw .untrustedServer(owner: owner.rawValue, pid: pid, program: program)
        case .unknown: throw .noServer
        }
    }

    /// Title and body as `server` is sent them: the title on one line, the body's own lines kept,
    /// each bounded; the body's markup escaped when the server reads markup (it lists `body-markup`,
    /// or `body-hyperlinks`, as dunst does, which renders markup and lists only that).
    private func shown(_ content: DesktopNotification, on server: BusName) async -> (title: String, body: String) {
        let title = OutsideText.shown(content.title, limit: 1024)
        let body = OutsideText.shown(content.body, limit: 4096, lines: true)
        return (title, await readsMarkup(server) ? OutsideText.escapingMarkup(body) : body)
    }

    private func readsMarkup(_ server: BusName) async -> Bool {
        if let known = state.withLock({ $0.readsMarkup[server] }) { return known }
        // Unanswered: escaped, which at worst shows an entity as it is written.
        let capabilities = (try? await connection.call(
            destination: server, path: Self.path, interface: Self.interface, member: "GetCapabilities", timeout: .seconds(2)
        ).decode([String].self)) ?? ["body-markup"]
        let markup = capabilities.contains("body-markup") || capabilities.contains("body-hyperlinks")
        state.withLock { state in
            if state.readsMarkup.count >= 16 { state.readsMarkup = [:] }
            state.readsMarkup[server] = markup
        }
        return markup
    }

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
