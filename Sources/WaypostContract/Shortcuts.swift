public import DBus

// ShortcutItem (a dynamic shortcut item, Apple's `UIApplicationShortcutItem`, as `SetShortcutItems`
// carries it) is generated from dbus/; chosen in the dock, it arrives as a user activity.

extension Contract.ShortcutItem {
    /// The activity it arrives as (`ContinueUserActivity`'s dictionary): title, target, user info.
    public var activity: [String: Variant] {
        Contract.ActivityDetails(targetContentIdentifier: targetContentIdentifier, title: title, userInfo: userInfo).variants
    }
}
