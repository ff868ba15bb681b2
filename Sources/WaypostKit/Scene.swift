import ExternalEvents
import Synchronization

/// An open scene (a window) of an `Application`: a handle to set its modifiers and handlers.
///
/// Handles are cheap values; two handles of the same scene are equal. Once the scene is closed,
/// every change through a handle is ignored and events for it are refused.
public struct Scene: Sendable, Hashable, Identifiable {
    let application: Application
    /// Unique among the app's open scenes.
    public let id: String
    /// The id of the declaration it is an instance of.
    public let declaration: String

    public static func == (a: Scene, b: Scene) -> Bool { a.application === b.application && a.id == b.id }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(application))
        hasher.combine(id)
    }

    /// Whether the scene is still open.
    public var isOpen: Bool { application.state.withLock { $0.scenes[id] != nil } }

    /// The `handlesExternalEvents(preferring:allowing:)` modifier of one of the scene's views.
    ///
    /// The scene uses the union of its views' modifiers. Call it again whenever the view's state
    /// changes (a selection, say); the dispatcher hears of it only when the sets differ.
    /// - Parameters:
    ///   - view: which view's modifier this is; setting it again replaces that view's sets only.
    ///   - preferring: events the scene prefers (an exact match of the selection, typically).
    ///   - allowing: events it can take when no scene prefers them (`["*"]` for anything).
    public func handlesExternalEvents(view: String = "", preferring: Set<String>, allowing: Set<String>) {
        let preference = EventPreference(preferring: ConditionSet(preferring), allowing: ConditionSet(allowing))
        application.changed { state in
            state.scenes[id]?.views[view] = preference
        }
    }

    /// Removes a view's modifier (the view went away).
    public func removeExternalEvents(view: String = "") {
        application.changed { $0.scenes[id]?.views[view] = nil }
    }

    /// The scene got focus: it goes to the front of the search order.
    public func activate() {
        application.changed { state in
            guard state.scenes[id] != nil else { return }
            let now = state.tick()
            state.scenes[id]?.recency = now
        }
    }

    /// Closes the scene: from now on no event is delivered to it, and the dispatcher forgets it.
    public func close() {
        application.changed { $0.scenes[id] = nil }
    }

    /// Sets the handler of URLs delivered to this scene (`onOpenURL`). The dispatcher hears that
    /// the URL arrived first, then the handler runs (after earlier events' handlers), so a slow
    /// handler never looks like a hung app; what it throws is the app's own to report. Without a
    /// handler the scene refuses URLs, and they go to the next scene the rules allow.
    public func onOpenURL(perform handler: @escaping @Sendable (_ url: String, _ context: EventContext) async throws -> Void) {
        application.state.withLock { $0.scenes[id]?.openURL = handler }
    }

    /// Sets the handler of user activities of `type` continued in this scene
    /// (`onContinueUserActivity`). Activities of types without a handler are refused.
    public func onContinueUserActivity(
        _ type: String, perform handler: @escaping @Sendable (_ activity: ContinuedActivity, _ context: EventContext) async throws -> Void
    ) {
        application.state.withLock { $0.scenes[id]?.continueActivity[type] = handler }
    }

    /// Sets the handler of the user's responses to the app's notifications routed to this scene
    /// (`Application.notify`): the dispatcher picks the scene by the notification's target, as for
    /// an activity. Without a handler the scene refuses them, and the next scene the rules allow gets them.
    public func onNotificationResponse(
        perform handler: @escaping @Sendable (_ response: NotificationResponse, _ context: EventContext) async throws -> Void
    ) {
        application.state.withLock { $0.scenes[id]?.notificationResponse = handler }
    }

    /// Publishes (or, with `isActive` false, withdraws) the scene's activity of `type`
    /// (`userActivity(_:isActive:_:)`): what the scene is showing, for others to continue.
    ///
    /// The scene's current activity is the one of the type made active most recently; the
    /// dispatcher hears of it only when what it would send changed (coalesced with every other
    /// change), and offers the current activity of the most recently activated scene to openers.
    /// Types the app's desktop entry does not list are refused: `synchronize()` throws the refusal.
    /// - Parameter update: fills in title, identifiers, user info and eligibility; it runs now, on
    ///   the activity as last published.
    public func userActivity(_ type: String, isActive: Bool = true, _ update: (inout PublishedActivity) -> Void = { _ in }) {
        application.changed { state in
            guard state.scenes[id] != nil else { return }
            guard isActive else {
                state.scenes[id]?.activities[type] = nil
                return
            }
            var activity = state.scenes[id]?.activities[type] ?? PublishedActivity(sceneID: id, type: type)
            update(&activity)
            activity.sceneID = id
            activity.type = type
            if state.scenes[id]?.activities[type] == nil {
                state.scenes[id]?.activationOrder.removeAll { $0 == type }
                state.scenes[id]?.activationOrder.append(type)
            }
            state.scenes[id]?.activities[type] = activity
        }
    }

    /// The activities this scene publishes now.
    public var publishedActivities: [PublishedActivity] {
        application.state.withLock { ($0.scenes[id]?.activities.values).map { $0.sorted { $0.type < $1.type } } ?? [] }
    }
}
