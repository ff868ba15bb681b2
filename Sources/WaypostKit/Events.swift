public import ExternalEvents
import DBus
import WaypostContract

/// What the opener told about an event, so that the receiving window can come to the front.
public struct EventContext: Sendable, Hashable {
    /// The token to present the scene's window with: the opener's xdg-activation token, else the
    /// startup id it gave (on X11 the same thing's name; GIO sends a Wayland token under it too). Hand
    /// it to the toolkit as it is (docs/windows.md: GTK 4 sets it on the display before presenting on
    /// Wayland and on the window on X11; Qt and GTK 3 read `XDG_ACTIVATION_TOKEN`). Nil when the
    /// opener gave none (`gio open` from a terminal): a Wayland compositor then leaves the window
    /// where it is.
    public var activationToken: String?
    /// The startup id alone, as the opener gave it (X11 startup notification): what
    /// `activationToken` falls back to. Kept for apps that read it before; read `activationToken`.
    public var desktopStartupID: String?

    public init(activationToken: String? = nil, desktopStartupID: String? = nil) {
        self.activationToken = activationToken ?? desktopStartupID
        self.desktopStartupID = desktopStartupID
    }
}

/// The dispatcher asks for a new scene: no open scene takes `event`, and `declaration` matches it.
public struct SceneRequest: Sendable, Hashable {
    /// The declaration to open a scene of.
    public var declaration: SceneDeclaration
    /// The event the new scene will receive, through its `onOpenURL` or `onContinueUserActivity`
    /// handler, once the request handler returns it.
    public var event: ExternalEvent
    public var context: EventContext
}

/// A user activity a scene publishes: what it is showing, for Handoff, search and shortcuts to
/// pick up later (`userActivity(_:isActive:_:)` in SwiftUI).
public struct PublishedActivity: Sendable, Hashable {
    /// The scene publishing it.
    public var sceneID: String
    public var type: String
    /// What the desktop's search shows, and matches with the keywords.
    public var title: String?
    /// What the activity is about; routing compares it first when the activity is continued.
    public var targetContentIdentifier: String?
    public var webpageURL: String?
    /// Travels with the activity, unchanged, to the scene that continues it (keep it small: the
    /// dispatcher refuses more than 16 KiB).
    public var userInfo: [String: UserInfoValue] = [:]
    /// Words beside the title that find it in the desktop's search.
    public var keywords: Set<String> = []
    /// Saved, and found by GNOME Shell's and KRunner's search, until deleted or expired.
    public var isEligibleForSearch = false
    /// Offered to openers as the current activity (`GetCurrentActivity`).
    public var isEligibleForHandoff = true
    /// Unix seconds after which it is never shown again.
    public var expirationDate: Int64?
    /// What `Application.deleteSavedActivities(withPersistentIdentifiers:)` names it by.
    public var persistentIdentifier: String?
    public var requiredUserInfoKeys: Set<String> = []

    public init(sceneID: String, type: String) {
        self.sceneID = sceneID
        self.type = type
    }

    /// As routing sees it when it is continued (user info as text).
    public var userActivity: UserActivity {
        UserActivity(
            type: type, targetContentIdentifier: targetContentIdentifier, webpageURL: webpageURL, title: title,
            userInfo: userInfo.mapValues { $0.stringValue ?? "\($0)" })
    }

    /// The dictionary `SetCurrentActivity` takes.
    var variants: [String: Variant] {
        Contract.ActivityDetails(
            targetContentIdentifier: targetContentIdentifier, webpageURL: webpageURL, title: title,
            userInfo: UserInfoValue.variants(userInfo), keywords: keywords.sorted(), eligibleForSearch: isEligibleForSearch,
            eligibleForHandoff: isEligibleForHandoff, expirationDate: expirationDate, persistentIdentifier: persistentIdentifier,
            requiredUserInfoKeys: requiredUserInfoKeys.sorted()
        ).variants
    }
}

/// A user activity handed to a scene (`onContinueUserActivity`): every field it was published or
/// sent with, user info as Swift values.
public struct ContinuedActivity: Sendable, Hashable {
    public var type: String
    public var title: String?
    public var targetContentIdentifier: String?
    public var webpageURL: String?
    public var userInfo: [String: UserInfoValue]
    public var keywords: Set<String>
    public var persistentIdentifier: String?
    /// Unix seconds.
    public var expirationDate: Int64?
    public var requiredUserInfoKeys: Set<String>

    public init(
        type: String, title: String? = nil, targetContentIdentifier: String? = nil, webpageURL: String? = nil,
        userInfo: [String: UserInfoValue] = [:], keywords: Set<String> = [], persistentIdentifier: String? = nil,
        expirationDate: Int64? = nil, requiredUserInfoKeys: Set<String> = []
    ) {
        (self.type, self.title, self.targetContentIdentifier, self.webpageURL) = (type, title, targetContentIdentifier, webpageURL)
        (self.userInfo, self.keywords, self.persistentIdentifier) = (userInfo, keywords, persistentIdentifier)
        (self.expirationDate, self.requiredUserInfoKeys) = (expirationDate, requiredUserInfoKeys)
    }

    init(type: String, _ details: Contract.ActivityDetails) {
        self.init(
            type: type, title: details.title, targetContentIdentifier: details.targetContentIdentifier,
            webpageURL: details.webpageURL, userInfo: details.userInfo.mapValues(UserInfoValue.init),
            keywords: Set(details.keywords), persistentIdentifier: details.persistentIdentifier,
            expirationDate: details.expirationDate, requiredUserInfoKeys: Set(details.requiredUserInfoKeys))
    }
}

/// What went wrong, with the offending value.
public enum WaypostError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An id (app, declaration, scene, view, activity type) is empty or holds a NUL.
    case invalidID(String, what: String)
    /// Two declarations share this id.
    case duplicateDeclaration(String)
    /// No declaration has this id.
    case unknownDeclaration(String)
    /// A scene with this id is already open in this process.
    case sceneExists(String)
    /// `start()` was not called, or the application stopped.
    case notStarted(appID: String)
    /// The session bus cannot be reached (the address, and the bus's error).
    case busUnavailable(address: String, reason: String)
    /// The dispatcher answered with an error: its name and message, and the call refused.
    case dispatcherRefused(call: String, errorName: String, message: String)
    /// The dispatcher's bus name is owned by process `pid` running `program`, not the installed
    /// dispatcher: nothing was sent to it.
    case untrustedDispatcher(pid: UInt32, program: String, reason: String)
    /// A URL the app was started with reached no scene (`openLaunchURL`): the URL, and why.
    case launchURLNotDelivered(String, reason: String)

    public var description: String {
        switch self {
        case .invalidID(let id, let what): "invalid \(what) \"\(id)\": it must be non-empty and hold no NUL"
        case .duplicateDeclaration(let id): "two scene declarations have the id \"\(id)\""
        case .unknownDeclaration(let id): "no scene declaration has the id \"\(id)\""
        case .sceneExists(let id): "a scene with the id \"\(id)\" is already open"
        case .notStarted(let app): "application \"\(app)\" is not started; call start() first"
        case .busUnavailable(let address, let reason): "cannot reach the session bus at \(address): \(reason)"
        case .dispatcherRefused(let call, let name, let message): "the dispatcher refused \(call): \(name): \(message)"
        case .untrustedDispatcher(_, _, let reason): reason
        case .launchURLNotDelivered(let url, let reason): "the link \(url) the app was started with reached no scene: \(reason)"
        }
    }

    static func check(_ id: String, what: String) throws(WaypostError) {
        if id.isEmpty || id.utf8.contains(0) { throw .invalidID(id, what: what) }
    }
}
