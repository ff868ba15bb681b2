import Handoff

// What NotificationPoster takes and gives: a notification's id, content, events and errors.

/// A notification's id on the desktop's notification server (`Notify`'s answer).
public struct NotificationID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

/// What the notification server says of a notification it shows.
public enum NotificationEvent: Sendable, Hashable {
    /// The user chose an action (`default` is a click on the notification itself); the activation
    /// token is the one the server sent just before (`ActivationToken`, spec 1.2), else one obtained
    /// for the click from the compositor (`ShellActionTokens`: GNOME Shell 43 sends none), if any.
    case action(String, activationToken: String?)
    /// It left the screen (`NotificationClosed`; the spec's reason: 1 expired, 2 dismissed, 3 closed
    /// by a call, 4 other). Nothing more comes for it.
    case closed(reason: UInt32)
}

/// What a notification shows (`org.freedesktop.Notifications.Notify`'s arguments).
public struct DesktopNotification: Sendable {
    /// The name the server shows as the sender.
    public var appName: String
    /// The sender's desktop-file id without `.desktop` (the `desktop-entry` hint), nil for none.
    public var desktopEntry: String?
    public var icon: String
    public var title: String
    public var body: String
    /// The buttons, as (action key, label), in order; a click on the notification itself is always
    /// the action `default`.
    public var buttons: [(key: String, label: String)]
    /// Milliseconds on screen; -1 for the server's default, 0 until dismissed.
    public var expireTimeout: Int32

    public init(
        appName: String, desktopEntry: String? = nil, icon: String = "", title: String, body: String = "",
        buttons: [(key: String, label: String)] = [], expireTimeout: Int32 = -1
    ) {
        (self.appName, self.desktopEntry, self.icon, self.title, self.body) = (appName, desktopEntry, icon, title, body)
        (self.buttons, self.expireTimeout) = (buttons, expireTimeout)
    }
}

/// Why a notification could not be posted.
public enum NotificationPostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No notification server owns `org.freedesktop.Notifications` on the session bus.
    case noServer
    /// The server refused `Notify` or answered wrongly: its error.
    case serverFailed(String)
    /// `limit` notifications are live already (across every sender); nothing was posted.
    case tooMany(limit: Int)
    /// The name changed hands to a process the daemon does not believe (`NotificationServers`).
    case untrustedServer(owner: String, pid: UInt32, program: String)

    public var description: String {
        switch self {
        case .noServer: "no notification server is on the session bus (org.freedesktop.Notifications has no owner)"
        case .serverFailed(let reason): "the notification server refused it: \(reason)"
        case .tooMany(let limit): "\(limit) notifications are on screen already; close some first"
        case .untrustedServer(let owner, let pid, let program):
            "org.freedesktop.Notifications changed hands to \(owner), pid \(pid) running \(OutsideText.shown(program, limit: 200)), "
                + "which is neither the program of a notification server before it nor one a D-Bus service file for the name "
                + "starts: nothing is posted to it (once it is the desktop's own, restart the daemon: the first server met is believed)"
        }
    }
}
