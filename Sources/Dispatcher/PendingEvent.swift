import DBus
import Desktop
import ExternalEvents
import WaypostContract

/// An event on its way: what routing reads, and what is handed to the app untouched.
struct PendingEvent: Sendable {
    var event: ExternalEvent
    /// The activity dictionary as the opener sent it (`user-info` included), forwarded as is.
    var activity: [String: Variant]
    var platformData: LaunchPlatformData
    /// Told the outcome while an open scene's app handles the event (see `Dispatcher.open`).
    var prepare: (@Sendable (Outcome) -> Void)? = nil
    /// Who opened it, found in the background; nil when nobody asked (an event from the daemon itself).
    var opener: PendingOpener? = nil
    /// A response to one of the app's notifications: handed over as one (`ReceiveNotificationResponse`),
    /// `event` being what routing reads of it.
    var notification: Contract.NotificationResponse? = nil

    var label: String {
        if let notification { return "notification \(notification.notificationID)" }
        return switch event {
        case .url(let uri): uri
        case .activity(let activity): "activity \(activity.type)"
        }
    }
}
