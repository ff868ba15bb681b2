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
    /// Wakes the synchronizer (Application+Synchronization.swift) after a change.
    let wake: AsyncStream<Void>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Whose process may own the dispatcher's name (Application+Synchronization.swift checks it).
    let trustedDispatcher = Mutex(Contract.TrustedDispatcher.installed(environment: [:]))

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
    ///
    /// Only a dispatcher whose process runs the installed `waypost` (the program its D-Bus service
    /// file starts; `dispatcherProgram` when given) is registered with: scenes and events are never
    /// handed to another owner of its name.
    /// - Throws: `busUnavailable` when the bus cannot be reached; `untrustedDispatcher` when another
    ///   program owns the dispatcher's name; `dispatcherRefused` when the first registration fails
    ///   (in both cases the app keeps watching, and registers when a dispatcher appears).
    public func start(busAddress: String? = nil, dispatcherProgram: String? = nil) async throws(WaypostError) {
        trustedDispatcher.withLock {
            $0 = dispatcherProgram.map { Contract.TrustedDispatcher(program: $0, namedBy: "the app") } ?? .installed()
        }
        let connection: Connection
        do {
            if let busAddress { connection = try await Connection(address: busAddress) } else { connection = try await Connection.session() }
        } catch {
            throw .busUnavailable(address: busAddress ?? "DBUS_SESSION_BUS_ADDRESS", reason: "\(error)")
        }
        let changes: AsyncThrowingStream<NameOwnerChange, any Error>
        do {
            try connection.export(Self.objectPath, interfaces: [applicationInterface])
            await serveDesktopActivation(on: connection)
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
}
