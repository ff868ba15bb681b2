import DBus
import Desktop
import ExternalEvents
import Planning
import WaypostContract

/// An event on its way through the one pipeline (`Dispatcher.carry`): what the plan reads, what
/// the app is handed untouched, who sent it, and the name `Routed` and the log give it.
struct Event: Sendable {
    /// What the planner reads.
    var planned: PlannedEvent
    /// The activity dictionary as the opener sent it (`user-info` included), forwarded as is.
    var activity: [String: Variant] = [:]
    /// A response to one of the app's notifications: handed over as one (`ReceiveNotificationResponse`).
    var notification: Contract.NotificationResponse? = nil
    var platformData: LaunchPlatformData
    /// Who opened it, found in the background; nil when nobody asked (an event from the daemon itself).
    var opener: PendingOpener? = nil
    /// The connection that asked, for what any connection may hold (Handoff offers); nil for the daemon's own.
    var sender: BusName? = nil
    /// The caller is the browser, which shows a web link no app takes itself: no browser gets it.
    var callerShowsPages = false
    /// What the user picked in a chooser this event showed, answered after its caller was.
    var picked: NamedDestination? = nil
    /// Told the outcome while an open scene's app handles the event (see `Dispatcher.open`).
    var prepare: (@Sendable (Outcome) -> Void)? = nil

    /// What the app is handed: the link, or the activity routing reads.
    var routed: ExternalEvent { planned.routed }

    /// The event as errors name it.
    var label: String {
        if let notification { return "notification \(notification.notificationID)" }
        return Dispatcher.label(of: planned)
    }
}
