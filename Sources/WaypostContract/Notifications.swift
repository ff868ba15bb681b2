// What an app posts as a notification, and the response its scene receives when the user acts on it:
// NotificationContent and NotificationResponse are generated from dbus/ (Generated/).

extension Contract.NotificationResponse {
    /// A click on the notification itself: the `action` of its response.
    public static let defaultAction = "default"
}
