// One file over 300 lines: the registry's one invariant (a scene belongs to the process that
// added it, within its app's budgets) holds across registering, declaring, scenes and their
// owners, which change together.
public import DBus
public import ExternalEvents

/// A live process of a participating app, as it registered.
public struct AppProcess: Sendable, Hashable {
    /// The unique bus name of its connection: the identity every change is checked against.
    public let owner: BusName
    public let appID: String
    /// Where it serves `io.waypost.Application1`.
    public let objectPath: ObjectPath
    public let pid: UInt32
    public let singleScene: Bool
    /// Registered with `announces-ready`: events held for its launch wait for its `Ready` call, so
    /// that the scenes it opens at start (restored windows) are there to take them.
    public let announcesReady: Bool
    /// Nil until the process has called `DeclareScenes`.
    public internal(set) var declarations: [SceneDeclaration]?
    var announcedReady = false
    /// Whether events held for a launch may be routed to this process now.
    public var isReady: Bool { declarations != nil && (!announcesReady || announcedReady) }
    /// Larger is more recent: registering, declaring, adding or activating a scene counts.
    var lastActive: UInt64
}

/// An open scene as `Status` lists it.
public struct SceneRecord: Sendable, Hashable {
    public let appID: String
    public let scene: OpenScene
    public let owner: String
}

/// What participating apps have registered: live processes, their declarations, their open scenes.
/// (One file over 300 lines: every change and the bookkeeping it keeps consistent — owners, recency,
/// condition budgets, compaction — share the private per-app state.)
///
/// Pure state, no I/O. Every change names the connection asking for it and is refused when that
/// connection did not register, or when the scene is another connection's. Scene ids are unique
/// within an app, across its processes, so that one search order spans them all. Declarations are
/// app-wide: a process may not replace those another live process of its app declared
/// (`declarationMismatch`), so that one process cannot close another's scenes.
struct Registry: Sendable {
    /// An app's scenes, copied on write as a whole: reading one field out of `apps` (every event
    /// reads the router and a scene's owner) then copies one reference, not five.
    private struct AppScenes: Sendable {
        private final class Storage: @unchecked Sendable {  // mutated only when uniquely referenced
            var router: SceneRouter
            var owners: [String: String] = [:]
            var activated: [String: UInt64] = [:]
            var conditionBytes: [String: Int] = [:]
            var totalConditionBytes = 0

            init(router: SceneRouter) { self.router = router }

            func copy() -> Storage {
                let copy = Storage(router: router)
                (copy.owners, copy.activated, copy.conditionBytes) = (owners, activated, conditionBytes)
                copy.totalConditionBytes = totalConditionBytes
                return copy
            }
        }

        private var storage: Storage

        init(router: SceneRouter) { storage = Storage(router: router) }

        private mutating func unique() -> Storage {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }

        var router: SceneRouter {
            get { storage.router }
            _modify { yield &unique().router }
        }
        var owners: [String: String] {
            get { storage.owners }
            _modify { yield &unique().owners }
        }
        /// When each scene was last added or activated, on the registry's clock (which spans apps).
        var activated: [String: UInt64] {
            get { storage.activated }
            _modify { yield &unique().activated }
        }
        /// Condition bytes of each scene that has any, and their sum (`Budgets.conditionBytesPerApp`).
        var conditionBytes: [String: Int] {
            get { storage.conditionBytes }
            _modify { yield &unique().conditionBytes }
        }
        var totalConditionBytes: Int {
            get { storage.totalConditionBytes }
            _modify { yield &unique().totalConditionBytes }
        }

        mutating func forget(_ scene: String) {
            owners[scene] = nil
            activated[scene] = nil
            totalConditionBytes -= conditionBytes.removeValue(forKey: scene) ?? 0
            try? router.removeScene(scene)
        }
    }

    private(set) var processes: [String: AppProcess] = [:]
    private var apps: [String: AppScenes] = [:]
    private var clock: UInt64 = 0
    let contentTypes: (any ContentTypeResolving)?

    init(contentTypes: (any ContentTypeResolving)?) {
        self.contentTypes = contentTypes
    }

    // MARK: Changes, each checked against the caller

    /// Makes `owner` a live process of `appID`; registering again replaces the earlier registration.
    mutating func register(
        owner: BusName, appID: String, objectPath: ObjectPath, pid: UInt32, singleScene: Bool, announcesReady: Bool = false
    ) {
        if processes[owner.rawValue] != nil { _ = removeProcess(owner.rawValue) }
        processes[owner.rawValue] = AppProcess(
            owner: owner, appID: appID, objectPath: objectPath, pid: pid, singleScene: singleScene,
            announcesReady: announcesReady, declarations: nil, lastActive: tick())
    }

    /// The process has opened the scenes it starts with: events held for its launch may go now.
    /// - Throws: `notRegistered`; `invalidArgument` before `DeclareScenes`.
    mutating func markReady(owner: String) throws(DispatchError) {
        let process = try registered(owner)
        guard process.declarations != nil else {
            throw .invalidArgument("Ready", reason: "call DeclareScenes before Ready")
        }
        processes[owner]!.announcedReady = true
    }

    /// Sets the app's declarations: replaces them when no other live process of the app has
    /// declared (open scenes of declarations that are gone close), else accepts the very same ones.
    /// - Throws: `declarationMismatch` when another live process declared different ones;
    ///   `invalidArgument` for a bad id or a duplicate.
    mutating func declare(owner: String, _ declarations: [SceneDeclaration]) throws(DispatchError) {
        var process = try registered(owner)
        for declaration in declarations { try Self.check(id: declaration.id, what: "declaration id") }
        let sibling = processes.values.first {
            $0.appID == process.appID && $0.owner != process.owner && $0.declarations != nil
        }
        if let sibling, let theirs = apps[process.appID]?.router.declarations {
            guard theirs == declarations else {
                let differing = zip(theirs, declarations).first { $0 != $1 }.map { $1.id }
                    ?? (declarations.count > theirs.count ? declarations[theirs.count].id : theirs[declarations.count].id)
                throw .declarationMismatch(app: process.appID, differing: differing, declaredBy: sibling.owner.rawValue)
            }
        } else if let router = apps[process.appID]?.router, router.declarations == declarations,
            router.supportsMultipleScenes != process.singleScene {
            // The same ones again (a restart's, a retry's) cost nothing: no rebuild.
        } else {
            var kept: [OpenScene] = []
            var app = apps[process.appID]
            if let old = app {
                let known = Set(declarations.map(\.id))
                kept = old.router.openScenes.filter { known.contains($0.declaration) }
                for scene in old.router.openScenes where !known.contains(scene.declaration) { app!.forget(scene.id) }
            }
            do {
                var router = try SceneRouter(
                    declarations: declarations, openScenes: kept, supportsMultipleScenes: !process.singleScene,
                    contentTypes: contentTypes)
                router.defersMerges = true  // the dispatcher builds merges off its thread (Dispatcher+Merges.swift)
                if app == nil { app = AppScenes(router: router) } else { app!.router = router }
                apps[process.appID] = app
            } catch {
                throw .invalidArgument(Self.offendingID(error), reason: error.description)
            }
        }
        process.declarations = declarations
        process.lastActive = tick()
        processes[owner] = process
    }

    mutating func addScene(owner: String, scene: String, declaration: String) throws(DispatchError) {
        var process = try registered(owner)
        try Self.check(id: scene, what: "scene id")
        guard var app = apps[process.appID], process.declarations?.contains(where: { $0.id == declaration }) == true
        else { throw .unknownDeclaration(declaration, app: process.appID) }
        guard app.owners[scene] == nil else { throw .sceneExists(scene, app: process.appID) }
        guard app.router.openSceneCount < Budgets.scenesPerApplication else {
            throw .invalidArgument(scene, reason: "an application may have at most \(Budgets.scenesPerApplication) open scenes")
        }
        apps[process.appID] = nil  // keep the router uniquely referenced while it changes
        do throws(RoutingError) {
            try app.router.addScene(scene, declaration: declaration)
        } catch {
            apps[process.appID] = app
            throw .unknownDeclaration(declaration, app: process.appID)
        }
        app.owners[scene] = owner
        process.lastActive = tick()
        app.activated[scene] = process.lastActive
        apps[process.appID] = app
        processes[owner] = process
    }

    mutating func removeScene(owner: String, scene: String) throws(DispatchError) {
        let appID = try ownedScene(scene, by: owner)
        apps[appID]!.forget(scene)
        compactIfSparse(appID)
    }

    /// Builds an app's routing state again once it holds under a quarter of the scenes its tables
    /// were sized for: Swift's dictionaries and arrays keep their largest capacity, and 100,000
    /// scenes opened and closed would otherwise stay resident (Benchmarks/stress/memory.py).
    private mutating func compactIfSparse(_ appID: String) {
        guard let old = apps[appID], old.router.capacity > 1024, old.router.openSceneCount * 4 < old.router.capacity,
            var router = try? SceneRouter(
                declarations: old.router.declarations, openScenes: old.router.openScenes,
                supportsMultipleScenes: old.router.supportsMultipleScenes, contentTypes: contentTypes)
        else { return }
        router.defersMerges = true
        var compact = AppScenes(router: router)
        compact.owners = Dictionary(uniqueKeysWithValues: old.owners.map { ($0.key, $0.value) })
        compact.activated = Dictionary(uniqueKeysWithValues: old.activated.map { ($0.key, $0.value) })
        compact.conditionBytes = Dictionary(uniqueKeysWithValues: old.conditionBytes.map { ($0.key, $0.value) })
        compact.totalConditionBytes = old.totalConditionBytes
        apps[appID] = compact
    }

    mutating func activateScene(owner: String, scene: String) throws(DispatchError) {
        let appID = try ownedScene(scene, by: owner)
        try? apps[appID]!.router.activateScene(scene)
        processes[owner]!.lastActive = tick()
        apps[appID]!.activated[scene] = processes[owner]!.lastActive
    }

    /// Replaces a scene's modifiers, `bytes` of conditions as they arrived (`Budgets.conditionBytes`).
    /// - Throws: `budgetExceeded` when the app's scenes would hold over `Budgets.conditionBytesPerApp`.
    mutating func setModifiers(owner: String, scene: String, _ modifiers: [EventPreference], bytes: Int) throws(DispatchError) {
        let (appID, total) = try conditionBytes(ifScene: scene, of: owner, held: bytes)
        apps[appID]!.totalConditionBytes = total
        apps[appID]!.conditionBytes[scene] = bytes == 0 ? nil : bytes
        try? apps[appID]!.router.setModifiers(modifiers, ofScene: scene)
    }

    /// A due merge of the app's condition index, to build off the serving thread.
    mutating func takeMergeJob(of appID: String) -> MergeJob? { apps[appID]?.router.takeMergeJob() }

    /// A merge of the levels the app's last changes left searched one by one, once its sets are quiet.
    mutating func takeQuietMergeJob(of appID: String) -> MergeJob? {
        apps[appID]?.router.mergeLevelsSearchedOneByOne()
        return takeMergeJob(of: appID)
    }

    /// Installs a merge built from `takeMergeJob(of:)`; ignored when the app's index changed since.
    mutating func finishMerge(of appID: String, _ merged: MergedIndex) { apps[appID]?.router.finishMerge(merged) }

    /// The app, and the condition bytes its scenes would hold with `scene` holding `bytes`.
    /// - Throws: `budgetExceeded` over `Budgets.conditionBytesPerApp`; what `ownedScene` throws.
    func conditionBytes(ifScene scene: String, of owner: String, held bytes: Int) throws(DispatchError) -> (String, Int) {
        let appID = try ownedScene(scene, by: owner)
        let total = apps[appID]!.totalConditionBytes - (apps[appID]!.conditionBytes[scene] ?? 0) + bytes
        guard total <= Budgets.conditionBytesPerApp else {
            throw .budgetExceeded(
                what: "the condition bytes of all open scenes", app: appID, amount: total, limit: Budgets.conditionBytesPerApp)
        }
        return (appID, total)
    }

    /// The condition bytes the app's open scenes hold (what `Budgets.conditionBytesPerApp` bounds).
    func conditionBytes(of appID: String) -> Int { apps[appID]?.totalConditionBytes ?? 0 }

    /// Forgets a process whose connection went away, with every scene it owned.
    /// - Returns: the process, or nil when it was not registered.
    @discardableResult
    mutating func removeProcess(_ owner: String) -> AppProcess? {
        guard let process = processes.removeValue(forKey: owner) else { return nil }
        guard var app = apps.removeValue(forKey: process.appID) else { return process }
        if !processes.values.contains(where: { $0.appID == process.appID }) { return process }
        for (scene, sceneOwner) in app.owners where sceneOwner == owner { app.forget(scene) }
        apps[process.appID] = app
        compactIfSparse(process.appID)
        return process
    }

    // MARK: Reading

    // Both read one field of the app's state in place: `apps[appID]?.router` copies the whole
    // `AppScenes` first (its four dictionaries retained and released), on every `Open`.

    /// The app's routing state: its declarations and open scenes across its processes.
    func router(of appID: String) -> SceneRouter? {
        apps.index(forKey: appID).map { apps.values[$0].router }
    }

    /// The process that owns an open scene of the app.
    func owner(ofScene scene: String, in appID: String) -> AppProcess? {
        guard let app = apps.index(forKey: appID), let owner = apps.values[app].owners[scene] else { return nil }
        return processes[owner]
    }

    /// When the app's open scene was last added or activated (larger is more recent, across apps);
    /// nil when no such scene is open.
    func lastActivated(scene: String, in appID: String) -> UInt64? {
        apps[appID]?.activated[scene]
    }

    /// The app's live processes, most recently active first.
    func processes(of appID: String) -> [AppProcess] {
        processes.values.filter { $0.appID == appID }.sorted { $0.lastActive > $1.lastActive }
    }

    /// Whether a process of the app is ready (declared, and announced `Ready` when it said it
    /// would): events for it can be routed.
    func isReady(_ appID: String) -> Bool {
        processes.values.contains { $0.appID == appID && $0.isReady }
    }

    /// Every open scene, app by app (ordered by id), each app's in search order.
    var scenes: [SceneRecord] {
        apps.keys.sorted().flatMap { appID in
            let app = apps[appID]!
            return app.router.openScenes.map { SceneRecord(appID: appID, scene: $0, owner: app.owners[$0.id] ?? "") }
        }
    }

    // MARK: Helpers

    private mutating func tick() -> UInt64 {
        clock += 1
        return clock
    }

    func registered(_ owner: String) throws(DispatchError) -> AppProcess {
        guard let process = processes[owner] else { throw .notRegistered(caller: owner) }
        return process
    }

    /// The app id of `scene` when `owner` may change it.
    func ownedScene(_ scene: String, by owner: String) throws(DispatchError) -> String {
        let process = try registered(owner)
        if let sceneOwner = apps[process.appID]?.owners[scene] {
            guard sceneOwner == owner else { throw .notOwner(scene: scene, app: process.appID) }
            return process.appID
        }
        // Not in the caller's app: say it is not theirs when another app has it, without naming that app.
        if apps.values.contains(where: { $0.owners[scene] != nil }) {
            throw .notOwner(scene: scene, app: "another application")
        }
        throw .unknownScene(scene, app: process.appID)
    }

    static func check(id: String, what: String) throws(DispatchError) {
        if id.isEmpty { throw .invalidArgument(id, reason: "a \(what) may not be empty") }
        if id.utf8.count > Budgets.idBytes {
            throw .invalidArgument(id, reason: "a \(what) may be at most \(Budgets.idBytes) bytes")
        }
    }

    private static func offendingID(_ error: RoutingError) -> String {
        switch error {
        case .duplicateDeclaration(let id), .duplicateScene(let id), .unknownScene(let id): id
        case .unknownDeclaration(let id, _): id
        }
    }
}
