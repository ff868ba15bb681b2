public import DBus
public import Desktop
import Dispatch
public import ExternalEvents
public import Logging
public import WaypostContract

/// Where an event went, as `Open`, `ContinueActivity` and `Explain` report it.
public struct Outcome: Sendable, Hashable {
    public typealias Action = Contract.RoutingOutcome.Action

    public var action: Action
    public var appID: String
    public var sceneID: String?
    public var declarationID: String?
    /// The routing rule (`preferring`, `default`, …), or `fallback`.
    public var rule: String
    /// Said before the routing decision's own reason (which app, and why).
    var preface: String?
    /// The decision, whose reason is rendered only when someone reads it.
    var decision: Decision?

    init(
        action: Action, appID: String, sceneID: String? = nil, declarationID: String? = nil, rule: String,
        preface: String? = nil, decision: Decision? = nil
    ) {
        (self.action, self.appID, self.sceneID, self.declarationID, self.rule) = (action, appID, sceneID, declarationID, rule)
        (self.preface, self.decision) = (preface, decision)
    }

    /// Why, for people: built on demand, since `Open` does not send it.
    public var reason: String {
        [preface, decision?.reason].compactMap { $0 }.joined(separator: " ")
    }
}

/// An event on its way: what routing reads, and what is handed to the app untouched.
struct PendingEvent: Sendable {
    var event: ExternalEvent
    /// The activity dictionary as the opener sent it (`user-info` included), forwarded as is.
    var activity: [String: Variant]
    var platformData: LaunchPlatformData
    /// Told the outcome while an open scene's app handles the event (see `Dispatcher.open`).
    var prepare: (@Sendable (Outcome) -> Void)? = nil

    var label: String {
        switch event {
        case .url(let uri): uri
        case .activity(let activity): "activity \(activity.type)"
        }
    }
}

/// The dispatcher's logic: who is registered, where each event goes, and handing it over exactly once.
///
/// An actor, so registrations and routing see one consistent registry; while it awaits an app's
/// answer it keeps serving others, including that app calling back (`AddScene` inside `CreateScene`).
/// An app that fails, vanishes or does not answer within `deliveryTimeout` is skipped for that
/// event, which falls through to the next destination the rules allow; the caller hears of every
/// failure when no destination is left.
///
/// It lives on its connection's thread (`ConnectionExecutor`): a call arrives, is routed, handed to
/// the app and answered with no thread hop. So nothing here blocks: launches run on a thread of
/// their own, and every wait is an `await`.
public actor Dispatcher {
    public struct Configuration: Sendable {
        /// How long a launched app has to register and declare its scenes.
        public var launchTimeout: Duration = .seconds(10)
        /// How long an app has to acknowledge an event.
        public var deliveryTimeout: Duration = .seconds(5)
        /// The dispatcher's own desktop entry, never a fallback handler.
        public var ownEntryID = Contract.busName.rawValue
        public init() {}
    }

    let configuration: Configuration
    let connection: Connection
    let directory: any ApplicationDirectory
    let launcher: any ApplicationLauncher
    let logger: Logger
    let contentTypes: (any ContentTypeResolving)?
    private(set) var registry: Registry
    private var readyWaiters: [String: [Int: CheckedContinuation<Void, any Error>]] = [:]
    private var nextWaiter = 0
    private var launching: Set<String> = []

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        connection.executor.serial.asUnownedSerialExecutor()
    }

    public init(
        connection: Connection, directory: any ApplicationDirectory, launcher: any ApplicationLauncher,
        contentTypes: (any ContentTypeResolving)?, configuration: Configuration = .init(), logger: Logger
    ) {
        self.connection = connection
        self.directory = directory
        self.launcher = launcher
        self.configuration = configuration
        self.logger = logger
        self.contentTypes = contentTypes
        registry = Registry(contentTypes: contentTypes)
    }

    // MARK: Registration

    /// Registers the caller as a live process of `appID`, after checking that an installed,
    /// participating entry has that id and that the caller runs the program it names.
    func register(
        caller: BusName, appID: String, objectPath: ObjectPath, singleScene: Bool, announcesReady: Bool = false
    ) async throws(DispatchError) {
        try Registry.check(id: appID, what: "app id")
        let entry: ApplicationEntry
        do { entry = try directory.entry(id: appID) } catch {
            throw .unknownApplication(appID, reason: error.description)
        }
        guard entry.participates else {
            throw .unknownApplication(appID, reason: "its desktop entry \(entry.filePath) does not opt in with X-Waypost=true")
        }
        let pid: UInt32
        do { pid = try await connection.processID(of: caller) } catch {
            throw .invalidArgument(caller.rawValue, reason: "the bus does not tell this connection's process: \(error)")
        }
        let running: String
        do { running = try RunningProgram.executable(ofProcess: Int32(bitPattern: pid)) } catch {
            throw .programMismatch(app: appID, expected: entry.executablePath ?? "?", running: error.description)
        }
        guard let expected = entry.executablePath, expected == running else {
            throw .programMismatch(
                app: appID, expected: entry.executablePath ?? "a program that is not installed", running: running)
        }
        registry.register(
            owner: caller, appID: appID, objectPath: objectPath, pid: pid, singleScene: singleScene,
            announcesReady: announcesReady)
        logger.info("registered \(appID) as \(caller) (pid \(pid))")
    }

    func declare(caller: String, _ declarations: [SceneDeclaration]) throws(DispatchError) {
        try registry.declare(owner: caller, declarations)
        if let process = registry.processes[caller], process.isReady { wakeLaunchWaiters(of: process.appID) }
    }

    func ready(caller: String) throws(DispatchError) {
        try registry.markReady(owner: caller)
        if let appID = registry.processes[caller]?.appID { wakeLaunchWaiters(of: appID) }
    }

    func addScene(caller: String, scene: String, declaration: String) throws(DispatchError) {
        try registry.addScene(owner: caller, scene: scene, declaration: declaration)
    }

    func removeScene(caller: String, scene: String) throws(DispatchError) {
        try registry.removeScene(owner: caller, scene: scene)
    }

    func activateScene(caller: String, scene: String) throws(DispatchError) {
        try registry.activateScene(owner: caller, scene: scene)
    }

    func setModifiers(caller: String, scene: String, _ modifiers: [EventPreference]) throws(DispatchError) {
        try registry.setModifiers(owner: caller, scene: scene, modifiers)
    }

    /// The connection went away: its scenes vanish with it.
    func connectionVanished(_ owner: String) {
        if let process = registry.removeProcess(owner) {
            logger.info("\(process.appID) (\(owner)) went away")
        }
    }

    var status: (processes: [AppProcess], scenes: [SceneRecord]) {
        (registry.processes.values.sorted { $0.lastActive > $1.lastActive }, registry.scenes)
    }

    // MARK: Routing and delivery

    /// Routes a URI to its app's scene and delivers it; returns once the app acknowledged.
    /// - Parameter prepare: called while an open scene's app handles the event, with the outcome
    ///   that acknowledgement will bring (again for each scene tried), so the caller can make its
    ///   answer ready off the path between the app's reply and its own.
    public func open(
        _ uri: String, platformData: LaunchPlatformData, prepare: (@Sendable (Outcome) -> Void)? = nil
    ) async throws(DispatchError) -> Outcome {
        let scheme = try URIGrammar.scheme(of: uri)
        let pending = PendingEvent(event: .url(uri), activity: [:], platformData: platformData, prepare: prepare)
        if scheme == "file" { return try await openDocument(pending, uri: uri) }
        let handlers: [ApplicationEntry]
        do { handlers = try directory.handlers(forScheme: scheme) } catch {
            throw .invalidURI(uri, reason: error.description)
        }
        guard let app = handlers.first else { return try await fallback(uri, scheme: scheme, platformData) }
        return try await deliver(pending, to: app)
    }

    /// Routes a user activity to the app that lists its type, and delivers it.
    func continueActivity(
        _ activity: UserActivity, raw: [String: Variant], platformData: LaunchPlatformData
    ) async throws(DispatchError) -> Outcome {
        try Registry.check(id: activity.type, what: "activity type")
        guard let app = directory.application(forActivityType: activity.type) else {
            throw .noHandler(activity.type, reason: "no installed app lists it in X-Waypost-Activity-Types")
        }
        return try await deliver(PendingEvent(event: .activity(activity), activity: raw, platformData: platformData), to: app)
    }

    /// The decision `open` would take now, delivering nothing.
    public func explain(_ uri: String) throws(DispatchError) -> Outcome {
        let scheme = try URIGrammar.scheme(of: uri)
        var handlers: [ApplicationEntry]
        do { handlers = try directory.handlers(forScheme: scheme) } catch {
            throw .invalidURI(uri, reason: error.description)
        }
        if scheme == "file" {
            let document = try documentHandler(for: uri)
            guard document.participates else {
                return Outcome(
                    action: .fallback, appID: document.id, rule: "fallback",
                    preface: "\(document.id) opens this file type and does not take part in Waypost; it would be started with the file")
            }
            handlers = [document]
        }
        guard let app = handlers.first else {
            let fallback = try? fallbackHandler(forScheme: scheme)
            guard let fallback else {
                throw .noHandler(uri, reason: "no installed application declares x-scheme-handler/\(scheme)")
            }
            return Outcome(
                action: .fallback, appID: fallback.id, rule: "fallback",
                preface: "no participating app declares x-scheme-handler/\(scheme); \(fallback.id), which does not take part in Waypost, would get it")
        }
        let others = handlers.dropFirst().map(\.id)
        let choice = "\(app.id) is the preferred participating handler of \(scheme):"
            + (others.isEmpty ? "" : " (also declared by \(others.joined(separator: ", ")))")
        guard registry.isReady(app.id), let router = registry.router(of: app.id) else {
            return Outcome(
                action: .launch, appID: app.id, rule: "none",
                preface: "\(choice) it is not running; it would be started and the link routed once it declares its scenes")
        }
        let decision = router.route(.url(uri))
        var outcome = outcome(of: decision, app: app.id, launched: false)
        outcome.preface = choice
        if case .unhandled = decision.action { outcome.action = .deliver }
        return outcome
    }

    /// Starts the app if no process of it is ready, then routes the event over its live scenes,
    /// falling through past every destination that fails until one acknowledges.
    private func deliver(_ pending: PendingEvent, to app: ApplicationEntry) async throws(DispatchError) -> Outcome {
        var launched = false
        if !registry.isReady(app.id) {
            try await launchAndWait(app, platformData: pending.platformData)
            launched = true
        }
        var failures: [String] = []
        var failedScenes: Set<String> = []
        var failedProcesses: Set<String> = []
        while true {
            guard var router = registry.router(of: app.id) else {
                failures.append("every process of \(app.id) went away")
                throw .deliveryFailed(pending.label, attempts: failures)
            }
            for scene in failedScenes { try? router.removeScene(scene) }
            let decision = router.route(pending.event)
            switch decision.action {
            case .deliver(let scene):
                guard let process = registry.owner(ofScene: scene, in: app.id) else {
                    failedScenes.insert(scene)
                    continue
                }
                let outcome = outcome(of: decision, app: app.id, launched: launched)
                do {
                    try await handOver(pending, toScene: scene, of: process) { pending.prepare?(outcome) }
                    return outcome
                } catch {
                    failures.append("scene \"\(scene)\" (\(process.owner)): \(error)")
                    failedScenes.insert(scene)
                    forgetIfGone(process.owner.rawValue, error)
                }
            case .create(let declaration):
                let candidates = registry.processes(of: app.id).filter {
                    !failedProcesses.contains($0.owner.rawValue) && $0.declarations?.contains { $0.id == declaration } == true
                }
                for process in candidates {
                    do {
                        let scene = try await createScene(declaration, for: pending, in: process)
                        var result = outcome(of: decision, app: app.id, launched: launched)
                        result.sceneID = scene
                        return result
                    } catch {
                        failures.append("creating \"\(declaration)\" in \(process.owner): \(error)")
                        failedProcesses.insert(process.owner.rawValue)
                        forgetIfGone(process.owner.rawValue, error)
                    }
                }
                if failures.isEmpty { failures.append("no process of \(app.id) declares \"\(declaration)\"") }
                throw .deliveryFailed(pending.label, attempts: failures)
            case .unhandled:
                if failures.isEmpty { throw .noHandler(pending.label, reason: "\(app.id) has no scene for it: \(decision.reason)") }
                throw .deliveryFailed(pending.label, attempts: failures)
            }
        }
    }

    private func outcome(of decision: Decision, app: String, launched: Bool) -> Outcome {
        switch decision.action {
        case .deliver(let scene):
            Outcome(action: launched ? .launch : .deliver, appID: app, sceneID: scene, rule: decision.rule.rawValue, decision: decision)
        case .create(let declaration):
            Outcome(action: launched ? .launch : .create, appID: app, declarationID: declaration, rule: decision.rule.rawValue, decision: decision)
        case .unhandled:
            Outcome(action: .deliver, appID: app, rule: decision.rule.rawValue, decision: decision)
        }
    }

    /// An app whose connection is gone will not answer again: drop it now rather than when the
    /// bus's NameOwnerChanged arrives, so the next attempt does not try it.
    private func forgetIfGone(_ owner: String, _ error: any Error) {
        guard let error = error as? BusError else { return }
        let gone: Set<ErrorName> = [.serviceUnknown, .nameHasNoOwner, .disconnected]
        if gone.contains(error.name) { connectionVanished(owner) }
    }

    private func handOver(
        _ pending: PendingEvent, toScene scene: String, of process: AppProcess, whileAwaiting: () -> Void
    ) async throws {
        let platform = pending.platformData.variants
        switch pending.event {
        case .url(let uri):
            _ = try await connection.call(
                destination: process.owner, path: process.objectPath, interface: Contract.Application1.interface,
                member: Contract.Application1.openURL.name, scene, uri, platform, timeout: configuration.deliveryTimeout,
                whileAwaiting: whileAwaiting)
        case .activity(let activity):
            _ = try await connection.call(
                destination: process.owner, path: process.objectPath, interface: Contract.Application1.interface,
                member: Contract.Application1.continueUserActivity.name, scene, activity.type, pending.activity, platform,
                timeout: configuration.deliveryTimeout, whileAwaiting: whileAwaiting)
        }
    }

    private func createScene(_ declaration: String, for pending: PendingEvent, in process: AppProcess) async throws -> String {
        let event: Contract.SceneEvent = switch pending.event {
        case .url(let uri): .url(uri)
        case .activity(let activity): .activity(type: activity.type, activity: pending.activity)
        }
        let reply = try await connection.call(
            destination: process.owner, path: process.objectPath,
            interface: Contract.Application1.interface, member: Contract.Application1.createScene.name,
            declaration, event.variants, pending.platformData.variants, timeout: configuration.deliveryTimeout)
        return try reply.decode(String.self)
    }

    // MARK: Launching

    /// Starts the app without the event on its command line (it arrives over D-Bus, once) and waits
    /// until one of its processes has registered and declared its scenes.
    private func launchAndWait(_ app: ApplicationEntry, platformData: LaunchPlatformData) async throws(DispatchError) {
        if !launching.contains(app.id) {
            launching.insert(app.id)
            do {
                let pids = try await launch(app, uris: [], platformData: platformData)
                logger.info("launched \(app.id)\(pids.isEmpty ? " by D-Bus activation" : " as pid \(pids.map(String.init).joined(separator: ", "))")")
            } catch {
                launching.remove(app.id)
                throw .launchFailed(app: app.id, reason: error.description)
            }
        }
        let seconds = Double(configuration.launchTimeout.components.seconds)
            + Double(configuration.launchTimeout.components.attoseconds) / 1e18
        do {
            try await waitUntilReady(app.id)
        } catch is LaunchTimedOut {
            launching.remove(app.id)
            throw .timeout(app: app.id, waitedFor: "register and declare its scenes after being started", seconds: seconds)
        } catch {
            launching.remove(app.id)
            throw .launchFailed(app: app.id, reason: "waiting for it was cancelled")
        }
        launching.remove(app.id)
    }

    private struct LaunchTimedOut: Error {}

    /// `launcher.launch` on a thread outside the cooperative pool: GIO spawns synchronously, and for a
    /// DBusActivatable entry first connects to the session bus synchronously.
    private func launch(
        _ entry: ApplicationEntry, uris: [String], platformData: LaunchPlatformData
    ) async throws(LaunchError) -> [Int32] {
        let launcher = launcher
        let result: Result<[Int32], LaunchError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(LaunchError) in
                    try launcher.launch(entry, uris: uris, platformData: platformData)
                })
            }
        }
        return try result.get()
    }

    /// Races the app's readiness against the launch timeout.
    private func waitUntilReady(_ appID: String) async throws {
        if registry.isReady(appID) { return }
        let timeout = configuration.launchTimeout
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.readiness(of: appID) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw LaunchTimedOut()
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func readiness(of appID: String) async throws {
        let id = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if registry.isReady(appID) { continuation.resume() } else { readyWaiters[appID, default: [:]][id] = continuation }
            }
        } onCancel: {
            Task { await self.cancelWaiter(appID, id) }
        }
    }

    private func cancelWaiter(_ appID: String, _ id: Int) {
        readyWaiters[appID]?.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    private func wakeLaunchWaiters(of appID: String) {
        guard let waiters = readyWaiters.removeValue(forKey: appID) else { return }
        for waiter in waiters.values { waiter.resume() }
    }

    // MARK: Apps that do not take part

    /// Hands the URI to the scheme's non-participating handler: `org.freedesktop.Application.Open`
    /// when it is a running DBusActivatable app, else a launch from its desktop entry with the URI.
    private func fallback(_ uri: String, scheme: String, _ platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        let entry: ApplicationEntry?
        do { entry = try fallbackHandler(forScheme: scheme) } catch {
            throw .invalidURI(uri, reason: error.description)
        }
        guard let entry else {
            throw .noHandler(uri, reason: "no installed application declares x-scheme-handler/\(scheme)")
        }
        return try await handOverToNonParticipant(uri, entry, platformData)
    }

    /// The scheme's default from before `waypost install` (the user chose it), else GIO's choice;
    /// never a participating app or the dispatcher itself.
    private func fallbackHandler(forScheme scheme: String) throws(CatalogError) -> ApplicationEntry? {
        if let previous = directory.previousDefault(forType: "x-scheme-handler/" + scheme, excluding: configuration.ownEntryID),
           !previous.participates {
            return previous
        }
        return try directory.fallbackHandler(forScheme: scheme, excluding: configuration.ownEntryID)
    }

    /// A `file://` URI: the app that opened its type before Waypost took the type over (recorded
    /// by `waypost install`) gets it when it participates, and its document-type rule picks the
    /// scene; otherwise that app, or GIO's choice, is launched with it as before.
    private func openDocument(_ pending: PendingEvent, uri: String) async throws(DispatchError) -> Outcome {
        let app = try documentHandler(for: uri)
        if app.participates { return try await deliver(pending, to: app) }
        return try await handOverToNonParticipant(uri, app, pending.platformData)
    }

    /// The app that opened the file's type before Waypost took it over, else GIO's choice.
    private func documentHandler(for uri: String) throws(DispatchError) -> ApplicationEntry {
        guard let type = contentTypes?.contentType(ofFileURL: uri) else {
            throw .noHandler(uri, reason: "the file's type cannot be told from its name")
        }
        let app = directory.previousDefault(forType: type, excluding: configuration.ownEntryID)
            ?? directory.fallbackHandler(forContentType: type, excluding: configuration.ownEntryID)
        guard let app else { throw .noHandler(uri, reason: "no installed application opens \(type) files") }
        return app
    }

    private func handOverToNonParticipant(
        _ uri: String, _ entry: ApplicationEntry, _ platformData: LaunchPlatformData
    ) async throws(DispatchError) -> Outcome {
        if entry.isDBusActivatable, let name = try? BusName(entry.id),
           (try? await connection.nameOwner(of: name)) != nil {
            do {
                _ = try await connection.call(
                    destination: name, path: Contract.FreedesktopApplication.objectPath(forApplicationID: entry.id),
                    interface: Contract.FreedesktopApplication.interface, member: Contract.FreedesktopApplication.open.name,
                    [uri], platformData.variants, timeout: configuration.deliveryTimeout)
                return Outcome(action: .fallback, appID: entry.id, rule: "fallback", preface: "\(entry.id) does not take part in Waypost; it was sent org.freedesktop.Application.Open")
            } catch {
                throw .deliveryFailed(uri, attempts: ["\(entry.id) refused org.freedesktop.Application.Open: \(error)"])
            }
        }
        do {
            _ = try await launch(entry, uris: [uri], platformData: platformData)
        } catch {
            throw .launchFailed(app: entry.id, reason: error.description)
        }
        return Outcome(action: .fallback, appID: entry.id, rule: "fallback", preface: "\(entry.id) does not take part in Waypost; it was started with the link")
    }
}
