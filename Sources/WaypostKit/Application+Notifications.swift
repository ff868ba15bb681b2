public import ExternalEvents
import DBus
import WaypostContract

/// A notification an app posts (`UNNotificationContent`): what it shows, and what its response
/// carries back to the scene the rules pick for `targetContentIdentifier`. It wraps the contract's
/// generated `NotificationContent`, so its fields and their defaults are the XML's.
public struct NotificationContent: Sendable, Equatable {
    /// What is posted; the properties below read and write it.
    var content: Contract.NotificationContent

    public var title: String {
        get { content.title }
        set { content.title = newValue }
    }
    public var body: String {
        get { content.body }
        set { content.body = newValue }
    }
    /// An icon name of the theme, or an absolute path; empty for the app's.
    public var icon: String {
        get { content.icon }
        set { content.icon = newValue }
    }
    /// Routes the response as an activity's target routes it (`handlesExternalEvents`).
    public var targetContentIdentifier: String? {
        get { content.targetContentIdentifier }
        set { content.targetContentIdentifier = newValue }
    }
    /// Travels back untouched in the response (keep it small: at most 16 KiB).
    public var userInfo: [String: UserInfoValue] {
        get { content.userInfo.mapValues(UserInfoValue.init) }
        set { content.userInfo = UserInfoValue.variants(newValue) }
    }
    /// (action, label) of up to 3 buttons; the notification's own click is the action `default`.
    public var buttons: [(action: String, label: String)] {
        get { content.buttons.map { ($0.action, $0.label) } }
        set { content.buttons = newValue.map { .init(action: $0.action, label: $0.label) } }
    }

    public init(
        title: String, body: String = "", icon: String = "", targetContentIdentifier: String? = nil,
        userInfo: [String: UserInfoValue] = [:], buttons: [(action: String, label: String)] = []
    ) {
        content = Contract.NotificationContent(
            title: title, body: body, icon: icon, targetContentIdentifier: targetContentIdentifier,
            userInfo: UserInfoValue.variants(userInfo), buttons: buttons.map { .init(action: $0.action, label: $0.label) })
    }

    public static func == (a: Self, b: Self) -> Bool { a.content == b.content }

    var variants: [String: Variant] { content.variants }
}

/// The user acted on one of the app's notifications (`UNNotificationResponse`); a scene's
/// `onNotificationResponse` handler receives it.
public struct NotificationResponse: Sendable, Hashable {
    /// What arrived; the properties below read and write it (the contract's generated type).
    var response: Contract.NotificationResponse

    /// The id the app posted it under.
    public var notificationID: String {
        get { response.notificationID }
        set { response.notificationID = newValue }
    }
    /// `NotificationResponse.defaultAction` for a click on the notification, else the button's action.
    public var action: String {
        get { response.action }
        set { response.action = newValue }
    }
    public var targetContentIdentifier: String? {
        get { response.targetContentIdentifier }
        set { response.targetContentIdentifier = newValue }
    }
    public var userInfo: [String: UserInfoValue] {
        get { response.userInfo.mapValues(UserInfoValue.init) }
        set { response.userInfo = UserInfoValue.variants(newValue) }
    }

    /// A click on the notification itself.
    public static let defaultAction = Contract.NotificationResponse.defaultAction

    public init(notificationID: String, action: String, targetContentIdentifier: String? = nil, userInfo: [String: UserInfoValue] = [:]) {
        response = Contract.NotificationResponse(
            notificationID: notificationID, action: action, targetContentIdentifier: targetContentIdentifier,
            userInfo: UserInfoValue.variants(userInfo))
    }

    init(_ response: Contract.NotificationResponse) { self.response = response }
}

// Posting and withdrawing the app's notifications (UNUserNotificationCenter's add and remove).
extension Application {
    /// Shows `notification` through the desktop's notification server, under this app's name;
    /// posting again with the same `id` replaces it. The user's response reaches the scene the
    /// rules pick for its target, even after this process exited (the app is launched for it).
    /// - Throws: `notStarted`; `dispatcherRefused` (`BudgetExceeded` over 32 live notifications
    ///   or 64 KiB; `InvalidArgument` for a value over its bound; `NoHandler` without a server).
    public func notify(id: String, _ notification: NotificationContent) async throws(WaypostError) {
        try WaypostError.check(id, what: "notification id")
        try await call(Contract.Dispatcher1.postNotification, id, notification.variants)
    }

    /// Takes the app's notifications with these ids off the screen; unknown ids are ignored.
    /// - Throws: `notStarted`; `dispatcherRefused`.
    public func withdrawNotifications(ids: [String]) async throws(WaypostError) {
        try await call(Contract.Dispatcher1.withdrawNotifications, ids)
    }
}
