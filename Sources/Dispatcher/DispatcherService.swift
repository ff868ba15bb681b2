// One file over 300 lines: io.waypost.Dispatcher1's and org.freedesktop.Application's export table,
// each member served through `MemberServing` as its policy in dbus/*.xml says, read together.
// Activities, desktop search, notifications and the bounds are in files of their own.
public import DBus
import Desktop
import ExternalEvents
import Handoff
public import Logging
import Glibc
import Synchronization
import WaypostContract

/// The daemon on the bus: serves `io.waypost.Dispatcher1` and `org.freedesktop.Application` at
/// `/io/waypost/Dispatcher`, turns their arguments into `Dispatcher` calls, watches registered
/// connections so that their scenes vanish with them, and emits `Routed` after each event.
public final class DispatcherService: Sendable {
    public let dispatcher: Dispatcher
    let connection: Connection
    let logger: Logger
    /// Connections watched for leaving the bus: one subscription each, however often they register.
    private let watched = Mutex<Set<BusName>>([])
    /// Calls answered so far: the daemon trims its heap once this stops moving (waypost/Daemon.swift).
    public var callsAnswered: UInt64 { serving.answered }
    /// How every exported member is served: its policy and budgets carried out (MemberServing.swift).
    let serving: MemberServing

    /// Apps' notifications, link notifications and the daemon's notices (Notifications/).
    public let notifications: NotificationService
    /// Each app's shortcut items and dock quicklist (Dock/).
    public let dock: DockMenuService
    /// Takes `waypost-handoff:` links as offers, once started (HandoffService.swift).
    let handoff = Mutex<HandoffService?>(nil)
    /// The links apps hand the OpenURI portal, for the opener and token of the one it passes on.
    let portalRequests = PortalRequests()
    /// KRunner's activation token for its next `Run` (DispatcherService+Search.swift).
    let runnerToken = Mutex<String?>(nil)
    /// Reads the user's rules again before `OwnedDomains` answers (`readsUserRules(with:)`).
    private let userRulesReader = Mutex<(@Sendable () async -> Void)?>(nil)

    /// Has `OwnedDomains` answer as the user's rules stand on disk now: a writer of a rule (the
    /// browser extension's "Keep opening … in the browser") asks after writing, and so knows the
    /// daemon holds the rule before it tells the user, for the next link whichever opener sends it.
    public func readsUserRules(with read: @escaping @Sendable () async -> Void) {
        userRulesReader.withLock { $0 = read }
    }

    public init(connection: Connection, dispatcher: Dispatcher, logger: Logger) {
        self.connection = connection
        self.dispatcher = dispatcher
        self.logger = logger
        serving = MemberServing(dispatcher: dispatcher, executor: connection.executor)
        notifications = NotificationService(
            routing: dispatcher, connection: connection, tokens: dispatcher.configuration.shellActionTokens, logger: logger)
        dock = DockMenuService(routing: dispatcher, connection: connection, serving: serving, logger: logger)
    }

    /// Exports the objects, then takes the bus name (so no call can arrive before they exist).
    /// - Throws: `BusError` when another process already owns `io.waypost.Dispatcher`, naming it.
    public func start() async throws {
        // Calls are answered on the connection's thread, where the dispatcher lives.
        try connection.export(
            Contract.objectPath, interfaces: [dispatcherInterface, freedesktopApplication],
            executor: connection.executor)
        try exportSearchProviders(on: connection)
        // Browser extensions keep a copy of the owned domains (waypost browser-host): tell them of a change.
        dispatcher.webLinks.onOwnedDomainsChange { [connection] domains in
            try? connection.emit(
                path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.ownedDomainsChanged.name, domains)
        }
        // Callers' pids are asked as they connect; without the subscription, when a link needs one.
        do { try await dispatcher.openers.watchConnections() } catch {
            logger.error("cannot watch connections come and go: \(error); the opener's pid is asked per link")
        }
        let reply = try await connection.requestName(Contract.busName, flags: [.doNotQueue])
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            throw BusError(.failed, "\(Contract.busName) is taken: \(await currentOwner())")
        }
        // After the name: the link that started the daemon waits for none of it.
        Task { [portalRequests, connection, logger, openers = dispatcher.openers] in
            do { try await portalRequests.watch(on: connection) { openers.start(throughPortal: $0) } } catch {
                logger.warning("cannot watch the portal's requests (\(error)): links apps open through it keep no token and name the portal as their opener")
            }
        }
    }

    /// Serves a process that talks to the dispatcher with no bus between (`Connection.pair`): the
    /// same members on the peer connection, answered on the dispatcher's thread, the dispatcher's
    /// name owned there, and everything for that process sent back through it. What tests give
    /// their in-process apps; the daemon itself serves the bus alone.
    /// - Throws: `BusError` when the peer connection is closed.
    public func serve(peer: Connection) async throws {
        dispatcher.callers.add(peer)
        try peer.export(
            Contract.objectPath, interfaces: [dispatcherInterface, freedesktopApplication], executor: connection.executor)
        try exportSearchProviders(on: peer)
        dock.serve(peer: peer)
        _ = try await peer.requestName(Contract.busName, flags: [.doNotQueue])
    }

    // MARK: io.waypost.Dispatcher1

    private var dispatcherInterface: Interface {
        typealias Members = Contract.Dispatcher1
        return Interface(
            Members.interface,
            methods: [
                serving.method(Members.registerApplication) { call in
                    let (appID, path, raw) = try call.arguments(String.self, ObjectPath.self, [String: Variant].self)
                    let options = try Self.decode("options") { () throws(Contract.KeyError) in try Contract.RegistrationOptions(raw) }
                    try await self.dispatcher.register(
                        caller: call.sender, appID: appID, objectPath: path, singleScene: options.singleScene,
                        announcesReady: options.announcesReady)
                    self.forgetWhenGone(call.sender)
                    return try call.reply()
                },
                serving.method(Members.declareScenes) { call in
                    let (raw) = try call.arguments([Structure<String, [String: Variant]>].self)
                    let declarations = try raw.map { entry throws(DispatchError) in
                        try Self.decode("declaration \"\(entry.fields.0)\"") { () throws(Contract.KeyError) in
                            try Contract.Declaration(entry)
                        }
                    }
                    try await self.dispatcher.declare(caller: call.sender.rawValue, declarations)
                    return try call.reply()
                },
                serving.method(Members.ready) { call in
                    try await self.dispatcher.ready(caller: call.sender.rawValue)
                    return try call.reply()
                },
                serving.method(Members.addScene) { call in
                    let (scene, declaration) = try call.arguments(String.self, String.self)
                    try await self.dispatcher.addScene(caller: call.sender.rawValue, scene: scene, declaration: declaration)
                    return try call.reply()
                },
                serving.method(Members.removeScene) { call in
                    let (scene) = try call.arguments(String.self)
                    try await self.dispatcher.removeScene(caller: call.sender.rawValue, scene: scene)
                    return try call.reply()
                },
                serving.method(Members.activateScene) { call in
                    let (scene) = try call.arguments(String.self)
                    try await self.dispatcher.activateScene(caller: call.sender.rawValue, scene: scene)
                    return try call.reply()
                },
                serving.method(Members.setExternalEvents) { call in
                    let (scene, raw) = try call.arguments(String.self, [Structure<[String], [String]>].self)
                    let modifiers = raw.map(Contract.Modifier.init)
                    try await self.dispatcher.setModifiers(caller: call.sender.rawValue, scene: scene, modifiers)
                    return try call.reply()
                },
                serving.method(Members.open) { call in
                    let (uri, platform) = try call.arguments(String.self, [String: Variant].self)
                    let answer = PreparedAnswer(call)
                    let opener = self.opener(of: call.sender, platform)
                    let showsPages = (try? platform.value(Contract.PlatformData.Keys.showsPages)) ?? false
                    let outcome = try await self.carried { () async throws(DispatchError) in
                        try await self.dispatcher.open(
                            uri, platformData: LaunchPlatformData(platform), opener: opener, sender: call.sender,
                            callerShowsPages: showsPages, prepare: answer.prepare)
                    }
                    return try answer.reply(to: outcome)
                },
                serving.method(Members.continueActivity) { call in
                    let (type, activity, platform) = try call.arguments(String.self, [String: Variant].self, [String: Variant].self)
                    let details = try Self.decode("activity") { () throws(Contract.KeyError) in try Contract.ActivityDetails(activity) }
                    let userActivity = UserActivity(type: type, details)
                    let opener = self.opener(of: call.sender, platform)
                    let outcome = try await self.carried { () async throws(DispatchError) in
                        try await self.dispatcher.continueActivity(
                            userActivity, raw: activity, platformData: LaunchPlatformData(platform), opener: opener)
                    }
                    return try call.reply(outcome.contractOutcome(reason: false).properties)
                },
                // As if the caller opened it, as Open would see it: the browser extension's host asks
                // with the browser as its opener, so a user rule naming the browser holds for clicks.
                serving.method(Members.explain) { call in
                    let (uri) = try call.arguments(String.self)
                    let opener = await self.opener(of: call.sender, [:]).value()
                    do {
                        var outcome = Outcome.explained(try await self.dispatcher.explain(uri, opener: opener))
                        outcome.opener = opener.appID
                        return try call.reply(outcome.variants)
                    } catch let error as DispatchError { throw error.busError }
                },
                serving.method(Members.explainOpenedBy) { call in
                    let (uri, opener) = try call.arguments(String.self, String.self)
                    do {
                        var outcome = Outcome.explained(try await self.dispatcher.explain(uri, opener: .app(id: opener, process: "given")))
                        outcome.opener = opener
                        return try call.reply(outcome.variants)
                    } catch let error as DispatchError { throw error.busError }
                },
                serving.method(Members.explainActivity) { call in
                    let (type, activity) = try call.arguments(String.self, [String: Variant].self)
                    let details = try Self.decode("activity") { () throws(Contract.KeyError) in try Contract.ActivityDetails(activity) }
                    do {
                        return try call.reply(Outcome.explained(try await self.dispatcher.explainActivity(UserActivity(type: type, details))).variants)
                    } catch let error as DispatchError { throw error.busError }
                },
                serving.method(Members.monitorRouted) { call in
                    let (raw) = try call.arguments([String: Variant].self)
                    let options = try Self.decode("options") { () throws(Contract.KeyError) in try Contract.MonitorOptions(raw) }
                    if self.dispatcher.reports.monitor(call.sender, options) { self.forgetWhenGone(call.sender) }
                    return try call.reply()
                },
                serving.method(Members.ownedDomains) { call in
                    await self.dispatcher.webLinks.whole()
                    if let read = self.userRulesReader.withLock({ $0 }) { await read() }
                    return try call.reply(self.dispatcher.webLinks.ownedDomains)
                },
                serving.method(Members.status) { call in
                    let (processes, scenes) = await self.dispatcher.status
                    return try call.reply(processes.map(\.status.variants), scenes.map(\.status.variants))
                },
            ] + activityMethods + notificationMethods + shortcutMethods,
            signals: [
                Members.routed.signalDeclaration, Members.currentActivityChanged.signalDeclaration,
                Members.ownedDomainsChanged.signalDeclaration,
            ])
    }

    // MARK: org.freedesktop.Application (how GIO openers reach a DBusActivatable entry)

    private var freedesktopApplication: Interface {
        typealias Members = Contract.FreedesktopApplication
        return Interface(
            Members.interface,
            methods: [
                serving.method(Members.activate) { call in
                    // Nothing to show: the dispatcher has no window. Activation only starts it.
                    try call.reply()
                },
                serving.method(Members.open) { call in
                    var (uris, platform) = try call.arguments([String].self, [String: Variant].self)
                    var failures: [(full: String, redacted: String)] = []
                    // The user closed the chooser: they know where the link went, and need no notification.
                    var cancelled = 0
                    let opener: PendingOpener
                    // The portal passes on one app's link: that app is its opener, and its token (which
                    // portal 1.16 drops) goes with it.
                    if uris.count == 1, let request = await self.portalRequests.claim(uris[0], from: call.sender) {
                        opener = request.opener
                        if platform[Contract.PlatformData.Keys.activationToken.name] == nil, let token = request.activationToken {
                            platform[Contract.PlatformData.Keys.activationToken.name] = Variant(token)
                        }
                    } else {
                        opener = self.opener(of: call.sender, platform)
                    }
                    for uri in uris {
                        do {
                            _ = try await self.carried { () async throws(DispatchError) in
                                try await self.dispatcher.open(
                                    uri, platformData: LaunchPlatformData(platform), opener: opener, sender: call.sender)
                            }
                        } catch let error as BusError {
                            failures.append((error.message, error.message.replacing(uri, with: Contract.redacted(uri))))
                            if error.name == Contract.Failure.choiceCancelled.errorName { cancelled += 1 }
                        }
                    }
                    guard failures.isEmpty else {
                        // `gio open` prints this error, but browsers and file managers drop it: the
                        // log and a notification are where their users learn the link went nowhere.
                        let redacted = failures.map(\.redacted)
                        self.logger.error("org.freedesktop.Application.Open from \(call.sender) failed: \(redacted.joined(separator: "; "))")
                        if cancelled < failures.count { await self.notifyUser("A link could not be opened", redacted.joined(separator: "\n")) }
                        throw BusError(.failed, failures.map(\.full).joined(separator: "\n"))
                    }
                    return try call.reply()
                },
                serving.method(Members.activateAction) { call in
                    let (action, _, _) = try call.arguments(String.self, [Variant].self, [String: Variant].self)
                    throw BusError(.notSupported, "the dispatcher has no action \"\(action)\"")
                },
            ])
    }

    // MARK: Helpers

    /// Shows a desktop notification when a notification server is on the bus; fire and forget. Through
    /// the poster (NotificationPoster.swift): only to a server it believes, its markup escaped.
    func notifyUser(_ summary: String, _ body: String) async {
        await notifications.notice(summary, body)
    }

    /// Reads a dictionary argument; one that breaks the contract is the caller's `InvalidArgument`.
    private static func decode<Value>(
        _ argument: @autoclosure () -> String, _ read: () throws(Contract.KeyError) -> Value
    ) throws(DispatchError) -> Value {
        do { return try read() } catch { throw DispatchError(error, in: argument()) }
    }

    /// Starts finding who sent an event (in the background); the portal's word on whose request it
    /// passes on is its `app-id` platform data, believed only when the caller is the portal.
    func opener(of caller: BusName, _ platform: [String: Variant]) -> PendingOpener {
        dispatcher.openers.start(caller: caller, portalAppID: try? platform["app-id"]?.decode(as: String.self))
    }

    /// What `Dispatcher.carry` answered: its refusal was reported (`Routed`, the log) already, so it
    /// goes back to the caller as the bus error alone.
    nonisolated(nonsending) func carried(
        _ body: nonisolated(nonsending) () async throws(DispatchError) -> Outcome
    ) async throws -> Outcome {
        do { return try await body() } catch { throw error.busError }
    }

    /// Who owns the dispatcher's name, for the error when it is taken: pid and program, as the bus
    /// and `/proc` tell them.
    private func currentOwner() async -> String {
        guard let owner = try? await connection.nameOwner(of: Contract.busName) else { return "its owner left the bus" }
        guard let pid = try? await connection.processID(of: owner) else { return "by \(owner), whose process the bus does not tell" }
        let program: String
        do { program = try RunningProgram.executable(ofProcess: Int32(bitPattern: pid)) } catch { program = "\(error)" }
        let own = try? RunningProgram.executable(ofProcess: getpid())
        return "by \(owner), pid \(pid) running \(program)"
            + (program == own ? " (another waypost daemon is already running)" : " (not this waypost: stop that process, then start the dispatcher again)")
    }

    /// Watches a connection that registered or monitors: once it leaves the bus, its process and
    /// scenes go, and `Routed` and `CurrentActivityChanged` are no longer emitted for it. The watch
    /// is set up in the background (a match rule, then the name's owner asked, two round trips to
    /// the bus): the call that started it is answered meanwhile, and a connection that left before
    /// the watch was in place is forgotten all the same.
    func forgetWhenGone(_ name: BusName) {
        guard watched.withLock({ $0.insert(name).inserted }) else { return }
        let forget: @Sendable () async -> Void = {
            self.dispatcher.reports.forget(name)
            self.watched.withLock { _ = $0.remove(name) }
            self.dispatcher.openers.forget(name)
            await self.dispatcher.connectionVanished(name.rawValue)
            self.dispatcher.callers.remove(name)
        }
        let connection = dispatcher.callers.connection(for: name)
        Task {
            let changes: AsyncThrowingStream<NameOwnerChange, any Error>
            do { changes = try await connection.nameOwnerChanges(for: name) } catch {
                self.watched.withLock { _ = $0.remove(name) }
                return
            }
            // It may have left before the watch was in place.
            let current: BusName?
            do { current = try await connection.nameOwner(of: name) } catch {
                self.logger.error("cannot ask the bus about \(name): \(error)")
                current = nil
            }
            guard current != nil else { return await forget() }
            for try await change in changes where change.newOwner == nil {
                await forget()
                break
            }
        }
    }
}

/// The reply to an `Open`, made while the app handles the link (`Dispatcher.open`'s `prepare`), so
/// that once the app acknowledges the dispatcher only has to send it.
private final class PreparedAnswer: Sendable {
    private let call: MethodCall
    private let prepared = Mutex<(outcome: Outcome, reply: Reply)?>(nil)

    init(_ call: MethodCall) { self.call = call }

    func prepare(_ outcome: Outcome) {
        guard let reply = try? call.reply(outcome.contractOutcome(reason: false).properties) else { return }
        prepared.withLock { $0 = (outcome, reply) }
    }

    /// The prepared reply when it says what this outcome says, a new one otherwise.
    func reply(to outcome: Outcome) throws -> Reply {
        if let prepared = prepared.withLock({ $0 }), prepared.outcome.answersAlike(outcome) { return prepared.reply }
        return try call.reply(outcome.contractOutcome(reason: false).properties)
    }
}
