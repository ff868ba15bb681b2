public import DBus
import Desktop
import ExternalEvents
public import Logging
import Synchronization

/// The daemon on the bus: serves `io.waypost.Dispatcher1` and `org.freedesktop.Application` at
/// `/io/waypost/Dispatcher`, turns their arguments into `Dispatcher` calls, watches registered
/// connections so that their scenes vanish with them, and emits `Routed` after each event.
public final class DispatcherService: Sendable {
    public let dispatcher: Dispatcher
    let connection: Connection
    let logger: Logger
    /// Connections that called `MonitorRouted`; `Routed` is emitted only while there is one, so that
    /// the bus is not asked to route a signal per link that nobody reads.
    private let monitors = Mutex<Set<BusName>>([])
    /// Connections watched for leaving the bus: one subscription each, however often they register.
    private let watched = Mutex<Set<BusName>>([])

    public init(connection: Connection, dispatcher: Dispatcher, logger: Logger) {
        self.connection = connection
        self.dispatcher = dispatcher
        self.logger = logger
    }

    /// Exports the objects, then takes the bus name (so no call can arrive before they exist).
    /// - Throws: `BusError` when another process already owns `io.waypost.Dispatcher`.
    public func start() async throws {
        // Calls are answered on the connection's thread, where the dispatcher lives.
        try connection.export(
            Contract.objectPath, interfaces: [dispatcherInterface, freedesktopApplication],
            executor: connection.executor)
        let reply = try await connection.requestName(Contract.busName, flags: [.doNotQueue])
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            throw BusError(.failed, "another process owns \(Contract.busName); is a dispatcher already running?")
        }
    }

    // MARK: io.waypost.Dispatcher1

    private var dispatcherInterface: Interface {
        Interface(
            Contract.dispatcherInterface,
            methods: [
                method("RegisterApplication", in: [("app_id", "s"), ("object_path", "o"), ("options", "a{sv}")]) { call in
                    let (appID, path, options) = try call.arguments(String.self, ObjectPath.self, [String: Variant].self)
                    let singleScene = try Self.option(options, "single-scene", default: false)
                    let announcesReady = try Self.option(options, "announces-ready", default: false)
                    try await self.dispatcher.register(
                        caller: call.sender, appID: appID, objectPath: path, singleScene: singleScene,
                        announcesReady: announcesReady)
                    await self.forgetWhenGone(call.sender)
                    return try call.reply()
                },
                method("DeclareScenes", in: [("declarations", "a(sa{sv})")]) { call in
                    let (raw) = try call.arguments([Structure<String, [String: Variant]>].self)
                    let declarations = try raw.map { entry throws(DispatchError) in
                        let (id, properties) = entry.fields
                        return try Self.declaration(id, properties)
                    }
                    try await self.dispatcher.declare(caller: call.sender.rawValue, declarations)
                    return try call.reply()
                },
                method("Ready") { call in
                    try await self.dispatcher.ready(caller: call.sender.rawValue)
                    return try call.reply()
                },
                method("AddScene", in: [("scene_id", "s"), ("declaration_id", "s")]) { call in
                    let (scene, declaration) = try call.arguments(String.self, String.self)
                    try await self.dispatcher.addScene(caller: call.sender.rawValue, scene: scene, declaration: declaration)
                    return try call.reply()
                },
                method("RemoveScene", in: [("scene_id", "s")]) { call in
                    let (scene) = try call.arguments(String.self)
                    try await self.dispatcher.removeScene(caller: call.sender.rawValue, scene: scene)
                    return try call.reply()
                },
                method("ActivateScene", in: [("scene_id", "s")]) { call in
                    let (scene) = try call.arguments(String.self)
                    try await self.dispatcher.activateScene(caller: call.sender.rawValue, scene: scene)
                    return try call.reply()
                },
                method("SetExternalEvents", in: [("scene_id", "s"), ("modifiers", "a(asas)")]) { call in
                    let (scene, raw) = try call.arguments(String.self, [Structure<[String], [String]>].self)
                    let modifiers = raw.map { entry in
                        let (preferring, allowing) = entry.fields
                        return EventPreference(preferring: ConditionSet(preferring), allowing: ConditionSet(allowing))
                    }
                    try await self.dispatcher.setModifiers(caller: call.sender.rawValue, scene: scene, modifiers)
                    return try call.reply()
                },
                method("Open", in: [("uri", "s"), ("platform_data", "a{sv}")], out: [("outcome", "a{sv}")]) { call in
                    let (uri, platform) = try call.arguments(String.self, [String: Variant].self)
                    let answer = PreparedAnswer(call)
                    let outcome = try await self.routed(uri) { () async throws(DispatchError) in
                        try await self.dispatcher.open(uri, platformData: LaunchPlatformData(platform), prepare: answer.prepare)
                    }
                    return try answer.reply(to: outcome)
                },
                method(
                    "ContinueActivity", in: [("activity_type", "s"), ("activity", "a{sv}"), ("platform_data", "a{sv}")],
                    out: [("outcome", "a{sv}")]
                ) { call in
                    let (type, activity, platform) = try call.arguments(String.self, [String: Variant].self, [String: Variant].self)
                    let userActivity = try Self.activity(type, activity)
                    let outcome = try await self.routed("activity:\(type)") { () async throws(DispatchError) in
                        try await self.dispatcher.continueActivity(
                            userActivity, raw: activity, platformData: LaunchPlatformData(platform))
                    }
                    return try call.reply(Self.variants(outcome, reason: false))
                },
                method("Explain", in: [("uri", "s")], out: [("outcome", "a{sv}")]) { call in
                    let (uri) = try call.arguments(String.self)
                    do {
                        return try call.reply(Self.variants(try await self.dispatcher.explain(uri), reason: true))
                    } catch let error as DispatchError { throw error.busError }
                },
                method("MonitorRouted") { call in
                    let added = self.monitors.withLock { $0.insert(call.sender).inserted }
                    if added { await self.forgetWhenGone(call.sender) }
                    return try call.reply()
                },
                method("Status", out: [("processes", "aa{sv}"), ("scenes", "aa{sv}")]) { call in
                    let (processes, scenes) = await self.dispatcher.status
                    return try call.reply(processes.map(Self.variants), scenes.map(Self.variants))
                },
            ],
            signals: [SignalDeclaration("Routed", arguments: [Argument("event", "s"), Argument("outcome", "a{sv}")])])
    }

    // MARK: org.freedesktop.Application (how GIO openers reach a DBusActivatable entry)

    private var freedesktopApplication: Interface {
        Interface(
            Contract.freedesktopApplication,
            methods: [
                method("Activate", in: [("platform_data", "a{sv}")]) { call in
                    // Nothing to show: the dispatcher has no window. Activation only starts it.
                    try call.reply()
                },
                method("Open", in: [("uris", "as"), ("platform_data", "a{sv}")]) { call in
                    let (uris, platform) = try call.arguments([String].self, [String: Variant].self)
                    var failures: [String] = []
                    for uri in uris {
                        do {
                            _ = try await self.routed(uri) { () async throws(DispatchError) in
                                try await self.dispatcher.open(uri, platformData: LaunchPlatformData(platform))
                            }
                        } catch let error as BusError {
                            failures.append(error.message)
                        }
                    }
                    guard failures.isEmpty else {
                        // `gio open` prints this error, but browsers and file managers drop it: the
                        // log and a notification are where their users learn the link went nowhere.
                        self.logger.error("org.freedesktop.Application.Open from \(call.sender) failed: \(failures.joined(separator: "; "))")
                        await self.notifyUser("A link could not be opened", failures.joined(separator: "\n"))
                        throw BusError(.failed, failures.joined(separator: "\n"))
                    }
                    return try call.reply()
                },
                method("ActivateAction", in: [("action_name", "s"), ("parameter", "av"), ("platform_data", "a{sv}")]) { call in
                    let (action) = try call.arguments(String.self)
                    throw BusError(.notSupported, "the dispatcher has no action \"\(action)\"")
                },
            ])
    }

    // MARK: Helpers

    /// Shows a desktop notification when a notification server is on the bus; fire and forget.
    func notifyUser(_ summary: String, _ body: String) async {
        let server: BusName = "org.freedesktop.Notifications"
        guard (try? await connection.nameOwner(of: server)) != nil else { return }
        try? connection.send(
            destination: server, path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "Notify", "Waypost", UInt32(0), "dialog-warning", summary, body, [String](),
            [String: Variant](), Int32(-1))
    }

    private func method(
        _ name: MemberName, in arguments: [(String, Signature)] = [], out returns: [(String, Signature)] = [],
        _ handler: nonisolated(nonsending) @escaping @Sendable (MethodCall) async throws -> Reply
    ) -> Method {
        Method(
            name, arguments: arguments.map { Argument($0.0, $0.1) }, returns: returns.map { Argument($0.0, $0.1) }
        ) { call in
            do { return try await handler(call) } catch let error as DispatchError {
                self.logger.notice("\(call.member) from \(call.sender): \(error.busError.name): \(error)")
                throw error.busError
            }
        }
    }

    /// Runs one routing and reports it with `Routed` and in the log.
    nonisolated(nonsending) private func routed(
        _ event: String, _ route: nonisolated(nonsending) () async throws(DispatchError) -> Outcome
    ) async throws -> Outcome {
        let started = ContinuousClock.now
        let monitored = !monitors.withLock { $0.isEmpty }
        do {
            let outcome = try await route()
            if monitored {
                var report = Self.variants(outcome, reason: true)
                let elapsed = ContinuousClock.now - started
                report["micros"] = .uint64(UInt64(elapsed.components.seconds) * 1_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000_000))
                try? connection.emit(path: Contract.objectPath, interface: Contract.dispatcherInterface, member: "Routed", event, report)
            }
            logger.info("\(DispatchError.abbreviated(event)) → \(outcome.appID) \(outcome.sceneID ?? outcome.declarationID ?? "") [\(outcome.rule)]")
            return outcome
        } catch {
            if monitored {
                try? connection.emit(
                    path: Contract.objectPath, interface: Contract.dispatcherInterface, member: "Routed", event,
                    ["error": Variant.string(error.busError.name.rawValue), "reason": .string(error.description)])
            }
            logger.notice("\(DispatchError.abbreviated(event)) not delivered: \(error)")
            throw error.busError
        }
    }

    /// Watches a connection that registered or monitors: once it leaves the bus, its process and
    /// scenes go, and `Routed` is no longer emitted for it.
    private func forgetWhenGone(_ name: BusName) async {
        guard watched.withLock({ $0.insert(name).inserted }) else { return }
        let forget: @Sendable () async -> Void = {
            self.monitors.withLock { _ = $0.remove(name) }
            self.watched.withLock { _ = $0.remove(name) }
            await self.dispatcher.connectionVanished(name.rawValue)
        }
        let changes: AsyncThrowingStream<NameOwnerChange, any Error>
        do { changes = try await connection.nameOwnerChanges(for: name) } catch {
            watched.withLock { _ = $0.remove(name) }
            return
        }
        // It may have left before the watch was in place.
        let current: BusName?
        do { current = try await connection.nameOwner(of: name) } catch {
            logger.error("cannot ask the bus about \(name): \(error)")
            current = nil
        }
        guard current != nil else { return await forget() }
        Task {
            for try await change in changes where change.newOwner == nil {
                await forget()
                break
            }
        }
    }

    static func option<Value: BusValue>(_ options: [String: Variant], _ key: String, default value: Value) throws(DispatchError) -> Value {
        guard let variant = options[key] else { return value }
        do { return try variant.decode(as: Value.self) } catch {
            throw .invalidArgument(key, reason: "option \"\(key)\" must be of type \(Value.busSignature), not \(variant.signature)")
        }
    }

    static func declaration(_ id: String, _ properties: [String: Variant]) throws(DispatchError) -> SceneDeclaration {
        let kind: String = try option(properties, "kind", default: "")
        let matching: [String]? = try properties["matching"] == nil ? nil : option(properties, "matching", default: [String]())
        switch kind {
        case "window-group":
            return .windowGroup(id, matching: matching.map { ConditionSet($0) })
        case "document-group":
            let types: [String] = try option(properties, "content-types", default: [])
            return .documentGroup(id, contentTypes: types, matching: matching.map { ConditionSet($0) })
        default:
            throw .invalidArgument(kind, reason: "declaration \"\(id)\" has kind \"\(kind)\"; expected window-group or document-group")
        }
    }

    static func activity(_ type: String, _ activity: [String: Variant]) throws(DispatchError) -> UserActivity {
        let target: String? = try activity["target-content-identifier"] == nil ? nil : option(activity, "target-content-identifier", default: "")
        let webpage: String? = try activity["webpage-url"] == nil ? nil : option(activity, "webpage-url", default: "")
        let title: String? = try activity["title"] == nil ? nil : option(activity, "title", default: "")
        let userInfo: [String: Variant] = try option(activity, "user-info", default: [:])
        return UserActivity(
            type: type, targetContentIdentifier: target, webpageURL: webpage, title: title,
            userInfo: userInfo.mapValues(\.description))
    }

    static func variants(_ outcome: Outcome, reason: Bool) -> [String: Variant] {
        var result: [String: Variant] = [
            "action": .string(outcome.action.rawValue), "app-id": .string(outcome.appID), "rule": .string(outcome.rule),
        ]
        if reason { result["reason"] = .string(outcome.reason) }
        if let scene = outcome.sceneID { result["scene-id"] = .string(scene) }
        if let declaration = outcome.declarationID { result["declaration-id"] = .string(declaration) }
        return result
    }

    static func variants(_ process: AppProcess) -> [String: Variant] {
        [
            "app-id": .string(process.appID), "owner": .string(process.owner.rawValue), "pid": .uint32(process.pid),
            "object-path": .objectPath(process.objectPath),
            "single-scene": .boolean(process.singleScene),
            "declarations": Variant((process.declarations ?? []).map { Structure((($0.id), declarationProperties($0))) }),
        ]
    }

    static func variants(_ record: SceneRecord) -> [String: Variant] {
        [
            "app-id": .string(record.appID), "scene-id": .string(record.scene.id),
            "declaration-id": .string(record.scene.declaration), "owner": .string(record.owner),
            "modifiers": Variant(record.scene.modifiers.map { Structure(($0.preferring.conditions, $0.allowing.conditions)) }),
        ]
    }

    static func declarationProperties(_ declaration: SceneDeclaration) -> [String: Variant] {
        switch declaration.kind {
        case .windowGroup(let matching):
            var properties: [String: Variant] = ["kind": .string("window-group")]
            if let matching { properties["matching"] = Variant(matching.conditions) }
            return properties
        case .documentGroup(let types, let matching):
            var properties: [String: Variant] = ["kind": .string("document-group"), "content-types": Variant(types)]
            if let matching { properties["matching"] = Variant(matching.conditions) }
            return properties
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
        guard let reply = try? call.reply(DispatcherService.variants(outcome, reason: false)) else { return }
        prepared.withLock { $0 = (outcome, reply) }
    }

    /// The prepared reply when it was made for this very outcome, a new one otherwise.
    func reply(to outcome: Outcome) throws -> Reply {
        if let prepared = prepared.withLock({ $0 }), prepared.outcome == outcome { return prepared.reply }
        return try call.reply(DispatcherService.variants(outcome, reason: false))
    }
}
