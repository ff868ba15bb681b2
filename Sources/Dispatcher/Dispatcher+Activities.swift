import ActivityStore
import DBus
import Desktop
import ExternalEvents
import FoundationEssentials
import Glibc
import Logging
import WaypostContract

/// What the daemon keeps of user activities besides the store: each scene's current activity, and
/// the current activity openers were last told of (`CurrentActivityChanged` is sent on a change only).
struct ActivityState: Sendable {
    struct SceneKey: Hashable, Sendable {
        var app: String
        var scene: String
    }

    struct Current: Sendable {
        var type: String
        /// The dictionary as the app sent it: what openers read and what a continuation forwards.
        var activity: [String: Variant]
        var details: Contract.ActivityDetails
    }

    var current: [SceneKey: Current] = [:]
    var announced: Contract.CurrentActivity?
    /// Who asked for `CurrentActivityChanged` (`MonitorCurrentActivity`): it carries webpage URLs
    /// and user info, so it goes to each of them alone, never as a broadcast.
    var subscribers: Set<BusName> = []
    /// An announcement is scheduled: it runs after the reply of the change that scheduled it, once
    /// for every change made until then.
    var announcing = false
    /// When `CurrentActivityChanged` was last sent: the next waits out `Budgets.Activities.announcementInterval`.
    var lastAnnouncement: ContinuousClock.Instant?
}

// Publishing, clearing and deleting activities; what openers read of them.
extension Dispatcher {
    // MARK: What scenes publish

    /// Makes `activity` the scene's current one; a search-eligible one is queued for the store's next commit.
    /// - Throws: `notRegistered`, `notOwner`, `unknownScene`, `unlistedActivityType`,
    ///   `userInfoTooLarge`, `invalidArgument`; `storeFailed` when it could not be saved.
    func setCurrentActivity(
        caller: String, scene: String, type: String, activity: [String: Variant], details: Contract.ActivityDetails
    ) async throws(DispatchError) {
        let appID = try registry.ownedScene(scene, by: caller)
        try Registry.check(id: type, what: "activity type")
        let entry: ApplicationEntry
        do { entry = try directory.entry(id: appID) } catch { throw .unknownApplication(appID, reason: error.description) }
        guard entry.activityTypes.contains(type) else { throw .unlistedActivityType(type, app: appID) }
        try Self.check(details, userInfo: activity[Contract.ActivityDetails.Keys.userInfo.name], type: type)
        let store = details.eligibleForSearch && !Self.hasExpired(details.expirationDate) ? saved?.store : nil
        // Checked before the activity becomes current: one the store cannot keep changes nothing.
        let save = try store.map { store throws(DispatchError) in
            try Self.save(of: activity, type: type, details: details, app: appID, within: store.limits.payloadBytes)
        }
        // Queued for the store's next commit, which starts at once on its own thread; the reply
        // does not wait for it unless too many saves wait already (see ActivityStore's policy).
        var full = false
        if let store, let save { full = try await keep(save, in: store, type: type) }
        activities.current[.init(app: appID, scene: scene)] = .init(type: type, activity: activity, details: details)
        scheduleAnnouncement()
        guard let store else { return }
        appChanges.tell(.savedActivitiesChanged(appID))
        if full { await store.committed() }
    }

    /// Queues a publish for the store; while its last commit failed, saves it now instead, so that
    /// a publish fails by name until the store can write again, and succeeds as soon as it can.
    /// - Returns: whether the caller should wait for the commit (`ActivityStore.enqueue`).
    /// - Throws: `userInfoTooLarge`; `storeFailed` naming why it cannot be written, nothing changed.
    private func keep(
        _ save: (activity: ActivityToSave, payload: DeferredPayload?), in store: ActivityStore, type: String
    ) async throws(DispatchError) -> Bool {
        do {
            if let payload = save.payload { return try store.enqueue(save.activity, payload: payload) }
            return try store.enqueue(save.activity)
        } catch {
            if case .payloadTooLarge(_, let bytes, let limit) = error {
                throw .userInfoTooLarge(activityType: type, reason: "the activity takes \(bytes) bytes stored; at most \(limit)")
            }
            guard case .cannotWrite = error else { throw .storeFailed(error.description) }
        }
        var whole = save.activity
        do { if let payload = save.payload { whole.payload = try payload.make() } } catch {
            throw .invalidArgument(type, reason: "the activity cannot be stored: \(error)")
        }
        do { try await store.saveAgain(whole) } catch { throw .storeFailed(error.description) }
        return false
    }

    /// The scene no longer has a current activity; what was saved stays saved.
    func clearCurrentActivity(caller: String, scene: String) throws(DispatchError) {
        let appID = try registry.ownedScene(scene, by: caller)
        activities.current[.init(app: appID, scene: scene)] = nil
        scheduleAnnouncement()
    }

    // MARK: What openers read

    /// The current activity of the most recently added or activated scene that has one for handoff.
    var currentActivity: Contract.CurrentActivity? {
        var best: (stamp: UInt64, current: Contract.CurrentActivity)?
        for (key, current) in activities.current where current.details.eligibleForHandoff {
            guard let stamp = registry.lastActivated(scene: key.scene, in: key.app), stamp > (best?.stamp ?? 0),
                  !Self.hasExpired(current.details.expirationDate)
            else { continue }
            best = (stamp, Contract.CurrentActivity(appID: key.app, sceneID: key.scene, activityType: current.type, activity: current.activity))
        }
        return best?.current
    }

    /// Scenes were added, activated or removed: forgets the activities of scenes that are gone, and
    /// tells openers when the current activity is another one now.
    func currentActivityMayHaveChanged() {
        guard !activities.current.isEmpty || activities.announced != nil else { return }
        activities.current = activities.current.filter { key, _ in registry.lastActivated(scene: key.scene, in: key.app) != nil }
        scheduleAnnouncement()
    }

    /// Announces after the current call's reply, so that `CurrentActivityChanged` costs the
    /// publishing app's round trip nothing, and no sooner than `announcementInterval` after the
    /// last one, so that a scene changing its activity 1,000 times a second costs the bus ten signals.
    private func scheduleAnnouncement() {
        guard !activities.announcing else { return }
        activities.announcing = true
        let wait = activities.lastAnnouncement.map { $0 + Budgets.Activities.announcementInterval - .now } ?? .zero
        Task {
            if wait > .zero { try? await Task.sleep(for: wait) }
            self.announceCurrentActivity()
        }
    }

    private func announceCurrentActivity() {
        activities.announcing = false
        let now = currentActivity
        guard now != activities.announced else { return }
        activities.announced = now
        activities.lastAnnouncement = .now
        guard !activities.subscribers.isEmpty else { return }
        let current = Contract.CurrentActivity.variants(now)
        for subscriber in activities.subscribers {
            try? callers.connection(for: subscriber).emit(
                path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.currentActivityChanged.name, current, destination: subscriber)
        }
    }

    /// Sends `CurrentActivityChanged` to `subscriber` from now on, until it leaves the bus.
    /// - Returns: whether it is new (the caller then watches for it to leave).
    func announceCurrentActivity(to subscriber: BusName) -> Bool {
        activities.subscribers.insert(subscriber).inserted
    }

    func stopAnnouncingCurrentActivity(to owner: String) {
        guard let name = try? BusName(owner) else { return }
        activities.subscribers.remove(name)
    }

    // MARK: Helpers

    static func hasExpired(_ expiration: Int64?) -> Bool {
        guard let expiration else { return false }
        return expiration <= Int64(time(nil))
    }

    /// Each field within its bound; user info (as it came, `userInfo`) by its size and nesting.
    private static func check(_ details: Contract.ActivityDetails, userInfo: Variant?, type: String) throws(DispatchError) {
        for id in [details.targetContentIdentifier, details.persistentIdentifier].compactMap({ $0 }) {
            try Registry.check(id: id, what: "activity identifier")
        }
        if let url = details.webpageURL, url.utf8.count > Budgets.Activities.webpageURLBytes {
            throw .invalidArgument(url, reason: "a webpage URL may be at most \(Budgets.Activities.webpageURLBytes) bytes")
        }
        if let title = details.title, title.utf8.count > Budgets.Activities.titleBytes {
            throw .invalidArgument(title, reason: "a title may be at most \(Budgets.Activities.titleBytes) bytes")
        }
        let words = details.keywords + details.requiredUserInfoKeys
        if words.count > Budgets.Activities.keywords {
            throw .invalidArgument("\(words.count) keywords", reason: "an activity may have at most \(Budgets.Activities.keywords) keywords and required keys")
        }
        if let long = words.first(where: { $0.utf8.count > Budgets.Activities.keywordBytes }) {
            throw .invalidArgument(long, reason: "a keyword may be at most \(Budgets.Activities.keywordBytes) bytes")
        }
        guard let userInfo else { return }
        let nesting = userInfo.nesting
        if nesting > Budgets.Activities.userInfoNesting {
            throw .userInfoTooLarge(activityType: type, reason: "it is \(nesting) containers deep; at most \(Budgets.Activities.userInfoNesting)")
        }
        let bytes = userInfo.size
        if bytes > Budgets.Activities.userInfoBytes {
            throw .userInfoTooLarge(activityType: type, reason: "it holds \(bytes) bytes; at most \(Budgets.Activities.userInfoBytes)")
        }
    }
}

extension SavedRecord {
    /// What the store's columns hold of the activity, beside its payload.
    var columns: ActivityPayload.Columns {
        .init(title: title, keywords: keywords, persistentIdentifier: persistentIdentifier, expirationDate: expirationDate)
    }
}

// A saved activity continued: an opener's ContinueSavedActivity, a search result, an
// `x-waypost-activity:` link, a dock's recent item.
extension Dispatcher {
    /// Continues a saved activity (a search result) as `ContinueActivity` would, with the
    /// dictionary it was published with.
    /// - Throws: `unknownActivity` for an id that is not (or no longer) saved; what routing throws.
    func continueSavedActivity(id: String, platformData: LaunchPlatformData, opener: PendingOpener? = nil) async throws(DispatchError) -> Outcome {
        try await carry("saved-activity:\(id)", opener: opener) { () async throws(DispatchError) in
            try await self.savedActivity(id, platformData: platformData, opener: opener)
        }
    }

    /// The saved activity `id` as an event, its publisher known (`SavedActivities.event`).
    func savedActivity(_ id: String, platformData: LaunchPlatformData, opener: PendingOpener?) async throws(DispatchError) -> Event {
        guard let saved else { throw .unknownActivity(id, reason: "no activity store is open") }
        return try await saved.event(id, platformData: platformData, opener: opener)
    }
}
