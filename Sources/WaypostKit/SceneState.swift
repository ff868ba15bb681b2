import DBus
import ExternalEvents

typealias URLHandler = @Sendable (String, EventContext) async throws -> Void
typealias ActivityHandler = @Sendable (ContinuedActivity, EventContext) async throws -> Void
typealias NotificationResponseHandler = @Sendable (NotificationResponse, EventContext) async throws -> Void
typealias SceneFactory = @Sendable (SceneRequest) async throws -> Scene

/// An open scene as the app holds it: its handlers, its views' modifiers, what it publishes.
struct SceneState: Sendable {
    let declaration: String
    /// The `handlesExternalEvents(preferring:allowing:)` modifier of each view, by view name.
    var views: [String: EventPreference] = [:]
    /// Larger is more recent: opened or activated later.
    var recency: UInt64
    var openURL: URLHandler?
    var continueActivity: [String: ActivityHandler] = [:]
    var notificationResponse: NotificationResponseHandler?
    /// Active published activities, by type.
    var activities: [String: PublishedActivity] = [:]
    /// The types made active, least recently first: the last one still active is the scene's
    /// current activity, the one the dispatcher is told of.
    var activationOrder: [String] = []

    /// The activity the dispatcher should have as the scene's current one.
    var currentActivity: PublishedActivity? {
        activationOrder.last { activities[$0] != nil }.flatMap { activities[$0] }
    }

    /// What the dispatcher gets: every view's modifier, in view-name order (it unites them).
    var modifiers: [EventPreference] {
        views.sorted { $0.key < $1.key }.map(\.value)
    }
}

/// A scene as the dispatcher last acknowledged it.
struct SentScene: Sendable, Hashable {
    var declaration: String
    var modifiers: [EventPreference]
    var recency: UInt64
    /// The current activity's type and dictionary; nil when it has none.
    var activity: SentActivity? = nil
}

struct SentActivity: Sendable, Hashable {
    var type: String
    var variants: [String: Variant]
}

/// One call that brings the dispatcher closer to the app's state.
enum SyncStep: Sendable {
    case remove(String)
    case add(String, declaration: String, recency: UInt64)
    case activate(String, recency: UInt64)
    case setModifiers(String, [EventPreference])
    case setActivity(String, SentActivity)
    case clearActivity(String)

    /// A step the dispatcher may refuse for the app's own reasons (an unlisted type, oversized user
    /// info): the refusal is reported, and does not hold back the steps after it.
    var isActivity: Bool {
        switch self {
        case .setActivity, .clearActivity: true
        default: false
        }
    }
}

/// Everything an `Application` keeps, behind one lock.
struct ApplicationState: Sendable {
    var scenes: [String: SceneState] = [:]
    var clock: UInt64 = 0
    var nextSceneNumber = 1
    var createScene: SceneFactory?
    /// The last acknowledged event's handler run; the next one starts after it (Serving.swift).
    var lastHandler: Task<Void, Never>?

    /// Bumped by every change the dispatcher must hear of; `syncedGeneration` is the last one it has.
    var generation: UInt64 = 0
    var syncedGeneration: UInt64 = 0
    var waiters: [Int: (target: UInt64, continuation: CheckedContinuation<Void, any Error>)] = [:]
    var nextWaiter = 0

    var connection: Connection?
    /// The dispatcher instance (unique name) registered with; only it may call the app.
    var dispatcher: BusName?
    var needsRegistration = true
    /// Registered, but `Ready` not yet sent: the dispatcher holds a launch's events until then.
    var needsReadyAnnouncement = false
    var registrationFailures = 0
    /// What that instance knows of the scenes.
    var sent: [String: SentScene] = [:]
    /// Calls made to the dispatcher, by member: how tests see that unchanged state costs nothing.
    var calls: [String: Int] = [:]
    /// Tests hold synchronization to make the dispatcher's view stale on purpose.
    var held = false

    mutating func tick() -> UInt64 {
        clock += 1
        return clock
    }

    /// The next call to make so that the dispatcher's view matches the app's, or nil when it does.
    ///
    /// Closed scenes go first; then scenes opened or activated since, least recent first, so the
    /// dispatcher's search order ends up as the app's; then changed modifiers.
    func nextStep(singleScene: Bool) -> SyncStep? {
        for (id, sentScene) in sent.sorted(by: { $0.key < $1.key })
        where scenes[id] == nil || scenes[id]?.declaration != sentScene.declaration {
            return .remove(id)
        }
        let stale = scenes.filter { id, scene in sent[id].map { $0.recency < scene.recency } ?? true }
        if let (id, scene) = stale.min(by: { $0.value.recency < $1.value.recency }) {
            return sent[id] == nil
                ? .add(id, declaration: scene.declaration, recency: scene.recency)
                : .activate(id, recency: scene.recency)
        }
        // A single-scene app's modifiers are ignored by the rules: sending them would cost for nothing.
        if !singleScene {
            for (id, scene) in scenes.sorted(by: { $0.key < $1.key }) {
                let modifiers = scene.modifiers
                if let sentScene = sent[id], sentScene.modifiers != modifiers { return .setModifiers(id, modifiers) }
            }
        }
        for (id, scene) in scenes.sorted(by: { $0.key < $1.key }) {
            guard let sentScene = sent[id] else { continue }
            let wanted = scene.currentActivity.map { SentActivity(type: $0.type, variants: $0.variants) }
            if wanted != sentScene.activity { return wanted.map { .setActivity(id, $0) } ?? .clearActivity(id) }
        }
        return nil
    }

    /// Records that the dispatcher acknowledged `step`.
    mutating func acknowledge(_ step: SyncStep) {
        switch step {
        case .remove(let id): sent[id] = nil
        case .add(let id, let declaration, let recency): sent[id] = SentScene(declaration: declaration, modifiers: [], recency: recency)
        case .activate(let id, let recency): sent[id]?.recency = recency
        case .setModifiers(let id, let modifiers): sent[id]?.modifiers = modifiers
        case .setActivity(let id, let activity): sent[id]?.activity = activity
        case .clearActivity(let id): sent[id]?.activity = nil
        }
    }

    /// Resumes the `synchronize()` callers waiting for `generation` or less.
    mutating func finishWaiters(upTo generation: UInt64, error: WaypostError?) {
        for (key, waiter) in waiters where error != nil || waiter.target <= generation {
            waiters[key] = nil
            if let error { waiter.continuation.resume(throwing: error) } else { waiter.continuation.resume() }
        }
    }
}
