public import ExternalEvents
import DBus
import Synchronization
import Glibc
import WaypostContract

/// This process's id, part of generated scene ids (they must be unique across the app's processes).
private let processID = getpid()

/// A participating app process: its scene declarations, its open scenes and their handlers, kept
/// in step with the Waypost dispatcher on the session bus.
///
/// Declare the scenes once, `start()`, then open and close scenes and set their modifiers as the
/// app's state changes. Changes are synchronous and cheap: they are coalesced and sent in the
/// background, only what differs from what the dispatcher last acknowledged, and nothing at all
/// when nothing changed; `synchronize()` waits until it has them. When the dispatcher restarts,
/// the app registers again with its current state.
public final class Application: Sendable {
    /// The desktop-file id without `.desktop`, such as `io.waypost.Contacts`.
    public let id: String
    /// The scene declarations, in order (what routing may create a new scene of).
    public let declarations: [SceneDeclaration]
    /// Whether the app shows one scene only: every event goes to it, modifiers are ignored.
    public let isSingleScene: Bool

    let state = Mutex(ApplicationState())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// - Parameters:
    ///   - id: the app's desktop-file id without `.desktop`; its installed entry must opt in with
    ///     `X-Waypost=true` and run this program.
    ///   - declarations: the scenes, in declaration order.
    ///   - singleScene: the app supports one scene only.
    /// - Throws: `invalidID` for an empty id, `duplicateDeclaration` when two declarations share one.
    public init(id: String, declarations: [SceneDeclaration], singleScene: Bool = false) throws(WaypostError) {
        try WaypostError.check(id, what: "application id")
        var seen: Set<String> = []
        for declaration in declarations {
            try WaypostError.check(declaration.id, what: "declaration id")
            if !seen.insert(declaration.id).inserted { throw .duplicateDeclaration(declaration.id) }
        }
        self.id = id
        self.declarations = declarations
        isSingleScene = singleScene
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit { stop() }

    // MARK: Life

    /// Connects to the session bus (or `busAddress`), serves the app's side of the contract, and
    /// registers with the dispatcher, starting it by D-Bus activation when it is not running.
    /// - Throws: `busUnavailable` when the bus cannot be reached; `dispatcherRefused` when the
    ///   first registration fails (the app keeps watching, and registers when a dispatcher appears).
    public func start(busAddress: String? = nil) async throws(WaypostError) {
        let connection: Connection
        do {
            if let busAddress { connection = try await Connection(address: busAddress) } else { connection = try await Connection.session() }
        } catch {
            throw .busUnavailable(address: busAddress ?? "DBUS_SESSION_BUS_ADDRESS", reason: "\(error)")
        }
        let changes: AsyncThrowingStream<NameOwnerChange, any Error>
        do {
            try connection.export(Self.objectPath, interfaces: [applicationInterface])
            changes = try await connection.nameOwnerChanges(for: Contract.busName)
        } catch {
            connection.close()
            throw .busUnavailable(address: busAddress ?? "DBUS_SESSION_BUS_ADDRESS", reason: "\(error)")
        }
        state.withLock {
            $0.connection = connection
            $0.generation += 1
        }
        let wakeups = self.wakeups
        let started = [
            Task { [weak self] in
                for await _ in wakeups { await self?.synchronizeOnce() }
            },
            Task { [weak self] in
                do { for try await change in changes { self?.dispatcherChanged(change) } } catch {}
            },
        ]
        tasks.withLock { $0 += started }
        wake.yield()
        try await synchronize()
    }

    /// Leaves the bus: the dispatcher forgets this process and its scenes. Idempotent.
    public func stop() {
        let connection = state.withLock { state in
            defer { state.connection = nil }
            state.finishWaiters(upTo: .max, error: .notStarted(appID: id))
            return state.connection
        }
        connection?.close()
        wake.finish()
        let running = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in running { task.cancel() }
    }

    /// Suspends until the application stops, or the session bus goes away.
    public func run() async {
        guard let connection = state.withLock({ $0.connection }) else { return }
        _ = try? await connection.waitUntilClosed()
    }

    // MARK: Scenes

    /// Opens a scene (a window) of `declaration`; it goes to the front of the search order.
    /// - Parameter id: unique among the app's scenes in every process; by default the declaration's
    ///   id, the process id and a counter.
    /// - Throws: `unknownDeclaration`, `sceneExists`, `invalidID`.
    public func openScene(_ declaration: String, id: String? = nil) throws(WaypostError) -> Scene {
        guard declarations.contains(where: { $0.id == declaration }) else { throw .unknownDeclaration(declaration) }
        if let id { try WaypostError.check(id, what: "scene id") }
        let sceneID: String = try state.withLock { state throws(WaypostError) in
            let sceneID = id ?? "\(declaration)-\(processID)-\(state.nextSceneNumber)"
            if id == nil { state.nextSceneNumber += 1 }
            guard state.scenes[sceneID] == nil else { throw .sceneExists(sceneID) }
            state.scenes[sceneID] = SceneState(declaration: declaration, recency: state.tick())
            state.generation += 1
            return sceneID
        }
        wake.yield()
        return Scene(application: self, id: sceneID, declaration: declaration)
    }

    /// The open scenes, most recently opened or activated first.
    public var openScenes: [Scene] {
        state.withLock { $0.scenes.sorted { $0.value.recency > $1.value.recency } }
            .map { Scene(application: self, id: $0.key, declaration: $0.value.declaration) }
    }

    /// The open scene with this id, if any.
    public func scene(id: String) -> Scene? {
        state.withLock { $0.scenes[id] }.map { Scene(application: self, id: id, declaration: $0.declaration) }
    }

    /// Sets what opens a new scene when the dispatcher asks for one: open a scene of the request's
    /// declaration, give it its handlers, and return it. The library then hands it the event.
    /// Without this handler, requests for new scenes are refused.
    public func onCreateScene(_ handler: @escaping @Sendable (SceneRequest) async throws -> Scene) {
        state.withLock { $0.createScene = handler }
    }

    /// The activities every open scene publishes now, the most recently active scene's first.
    public var publishedActivities: [PublishedActivity] {
        state.withLock { state in
            state.scenes.values.sorted { $0.recency > $1.recency }
                .flatMap { $0.activities.values.sorted { $0.type < $1.type } }
        }
    }

    // MARK: Keeping the dispatcher in step

    /// Waits until the dispatcher has every change made before this call.
    /// - Throws: `notStarted`; `dispatcherRefused` with the dispatcher's error when a call failed
    ///   (a later change, or a dispatcher restarting, makes the app try again).
    public func synchronize() async throws(WaypostError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: WaypostError?? = state.withLock { state in
                    guard state.connection != nil else { return .some(.notStarted(appID: id)) }
                    if state.syncedGeneration >= state.generation { return .some(nil) }
                    state.waiters[state.nextWaiter] = (state.generation, continuation)
                    state.nextWaiter += 1
                    return .none
                }
                switch ready {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } catch let error as WaypostError {
            throw error
        } catch {
            throw .dispatcherRefused(call: "synchronize", errorName: "", message: "\(error)")
        }
    }

    /// How many calls of each member the app made to the dispatcher (for tests of coalescing).
    package var dispatcherCalls: [String: Int] { state.withLock { $0.calls } }

    /// Holds (or lets go of) sending changes, so that a test can make the dispatcher's view of the
    /// app stale, as it is for a moment after every change in real use.
    package func holdSynchronization(_ held: Bool) {
        state.withLock { $0.held = held }
        if !held { wake.yield() }
    }

    /// Marks a change the dispatcher must hear of, and wakes the synchronizer.
    func changed(_ change: (inout ApplicationState) -> Void) {
        state.withLock { state in
            change(&state)
            state.generation += 1
        }
        wake.yield()
    }

    private func dispatcherChanged(_ change: NameOwnerChange) {
        let again = state.withLock { state in
            if let owner = change.newOwner, owner == state.dispatcher { return false }
            if change.newOwner == nil, state.dispatcher != nil, change.oldOwner != state.dispatcher { return false }
            // It went away (register again, which starts a new one), or a new one took the name.
            state.dispatcher = nil
            state.needsRegistration = true
            state.generation += 1
            return true
        }
        if again { wake.yield() }
    }

    /// One pass: register if needed, then send the differences one call at a time.
    private func synchronizeOnce() async {
        let (target, registering, failures, held) = state.withLock {
            ($0.generation, $0.needsRegistration, $0.registrationFailures, $0.held)
        }
        if held { return }
        do throws(WaypostError) {
            if registering {
                // A dispatcher that keeps failing is not hammered: back off up to five seconds.
                if failures > 0 { try? await Task.sleep(for: .milliseconds(min(50 << min(failures, 7), 5_000))) }
                try await register()
            }
            while let step = state.withLock({ $0.nextStep(singleScene: isSingleScene) }) {
                try await send(step)
                state.withLock { $0.acknowledge(step) }
            }
            // The scenes opened so far are known: a link held for this launch may take one of them.
            if state.withLock({ $0.needsReadyAnnouncement }) {
                try await call(Contract.Dispatcher1.ready)
                state.withLock { $0.needsReadyAnnouncement = false }
            }
            state.withLock { state in
                state.syncedGeneration = max(state.syncedGeneration, target)
                state.registrationFailures = 0
                state.finishWaiters(upTo: target, error: nil)
            }
        } catch {
            let retry = state.withLock { state in
                if registering || Self.isGone(error) {
                    state.needsRegistration = true
                    state.registrationFailures += 1
                }
                state.finishWaiters(upTo: .max, error: error)
                return state.needsRegistration && state.connection?.isConnected == true
            }
            // Try again (after the backoff above) rather than wait for the next change.
            if retry { wake.yield() }
        }
    }

    /// Finds (or starts) the dispatcher, then registers and declares the scenes; the scenes follow
    /// as differences from nothing.
    private func register() async throws(WaypostError) {
        guard let connection = state.withLock({ $0.connection }) else { throw .notStarted(appID: id) }
        let owner: BusName
        do {
            var found = try await connection.nameOwner(of: Contract.busName)
            if found == nil {
                // Activation: the bus starts the dispatcher from its service file.
                _ = try await connection.call(
                    destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "StartServiceByName", Contract.busName.rawValue, UInt32(0), timeout: .seconds(25))
                found = try await connection.nameOwner(of: Contract.busName)
            }
            guard let found else {
                throw BusError(.serviceUnknown, "\(Contract.busName) started but has no owner")
            }
            owner = found
        } catch {
            throw Self.refusal("finding \(Contract.busName)", error)
        }
        state.withLock { state in
            state.dispatcher = owner
            state.needsRegistration = false
            state.needsReadyAnnouncement = true
            state.sent = [:]
        }
        let options = Contract.RegistrationOptions(singleScene: isSingleScene, announcesReady: true)
        try await call(Contract.Dispatcher1.registerApplication, id, Self.objectPath, options.variants)
        try await call(Contract.Dispatcher1.declareScenes, declarations.map(\.contractDeclaration.structure))
    }

    private func send(_ step: SyncStep) async throws(WaypostError) {
        switch step {
        case .remove(let scene): try await call(Contract.Dispatcher1.removeScene, scene)
        case .add(let scene, let declaration, _): try await call(Contract.Dispatcher1.addScene, scene, declaration)
        case .activate(let scene, _): try await call(Contract.Dispatcher1.activateScene, scene)
        case .setModifiers(let scene, let modifiers):
            try await call(Contract.Dispatcher1.setExternalEvents, scene, modifiers.map(\.contractModifier.structure))
        }
    }

    /// Every call to the dispatcher goes through here, to the instance registered with.
    private func call<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws(WaypostError) {
        guard let (connection, owner) = state.withLock({ state in state.connection.flatMap { c in state.dispatcher.map { (c, $0) } } })
        else { throw .notStarted(appID: id) }
        do {
            _ = try await connection.call(
                destination: owner, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: member.name, repeat each arguments, timeout: .seconds(10))
        } catch {
            throw Self.refusal(member.name.rawValue, error)
        }
        state.withLock { $0.calls[member.name.rawValue, default: 0] += 1 }
    }

    private static func refusal(_ call: String, _ error: any Error) -> WaypostError {
        if let error = error as? BusError {
            return .dispatcherRefused(call: call, errorName: error.name.rawValue, message: error.message)
        }
        return .dispatcherRefused(call: call, errorName: "", message: "\(error)")
    }

    /// Whether the dispatcher instance is gone, so that only registering again can help.
    private static func isGone(_ error: WaypostError) -> Bool {
        guard case .dispatcherRefused(_, let name, _) = error else { return false }
        let gone: Set<String> = [
            ErrorName.serviceUnknown.rawValue, ErrorName.nameHasNoOwner.rawValue, ErrorName.noReply.rawValue,
            ErrorName.disconnected.rawValue, Contract.Failure.notRegistered.errorName.rawValue,
        ]
        return gone.contains(name)
    }
}
