public import DBus

// What an app posts as a notification, and the response its scene receives when the user acts on it.

extension Contract {
    /// `PostNotification`'s `content`: what the notification shows and what its response carries.
    public struct NotificationContent: Sendable, Hashable {
        /// A button: the action its response names, and what it reads.
        public struct Button: Sendable, Hashable {
            public var action: String
            public var label: String
            public init(action: String, label: String) { (self.action, self.label) = (action, label) }
        }

        public var title: String
        public var body: String
        /// An icon name of the theme, or an absolute file path.
        public var icon: String
        public var targetContentIdentifier: String?
        public var userInfo: [String: Variant]
        /// In order, each an (action, label) on the bus; `default` is the notification's own click.
        public var buttons: [Button]

        public init(
            title: String, body: String = "", icon: String = "", targetContentIdentifier: String? = nil,
            userInfo: [String: Variant] = [:], buttons: [Button] = []
        ) {
            (self.title, self.body, self.icon) = (title, body, icon)
            (self.targetContentIdentifier, self.userInfo, self.buttons) = (targetContentIdentifier, userInfo, buttons)
        }

        /// - Throws: `KeyError.missing` without a title; `wrongType` for a value of another type.
        public init(_ content: [String: Variant]) throws(KeyError) {
            title = try content.required(Keys.title)
            body = try content.value(Keys.body) ?? ""
            icon = try content.value(Keys.icon) ?? ""
            targetContentIdentifier = try content.value(Keys.targetContentIdentifier)
            userInfo = try content.value(Keys.userInfo) ?? [:]
            buttons = (try content.value(Keys.buttons) ?? []).map { Button(action: $0.fields.0, label: $0.fields.1) }
        }

        public var variants: [String: Variant] {
            var content: [String: Variant] = [:]
            content.insert(Keys.title, title)
            if !body.isEmpty { content.insert(Keys.body, body) }
            if !icon.isEmpty { content.insert(Keys.icon, icon) }
            content.insert(Keys.targetContentIdentifier, targetContentIdentifier)
            if !userInfo.isEmpty { content.insert(Keys.userInfo, userInfo) }
            if !buttons.isEmpty { content.insert(Keys.buttons, buttons.map { Structure(($0.action, $0.label)) }) }
            return content
        }
    }

    /// `ReceiveNotificationResponse`'s `response` (and `CreateScene`'s event for one): which of the
    /// app's notifications, the action chosen, and the notification's target and user info.
    public struct NotificationResponse: Sendable, Hashable {
        /// A click on the notification itself.
        public static let defaultAction = "default"

        public var notificationID: String
        /// `default` for a click on the notification itself, else the button's action.
        public var action: String
        public var targetContentIdentifier: String?
        public var userInfo: [String: Variant]

        public init(notificationID: String, action: String, targetContentIdentifier: String? = nil, userInfo: [String: Variant] = [:]) {
            (self.notificationID, self.action) = (notificationID, action)
            (self.targetContentIdentifier, self.userInfo) = (targetContentIdentifier, userInfo)
        }

        /// - Throws: `KeyError.missing` without `notification-id` or `action`; `wrongType`.
        public init(_ response: [String: Variant]) throws(KeyError) {
            notificationID = try response.required(Keys.notificationID)
            action = try response.required(Keys.notificationAction)
            targetContentIdentifier = try response.value(Keys.targetContentIdentifier)
            userInfo = try response.value(Keys.userInfo) ?? [:]
        }

        public var variants: [String: Variant] {
            var response: [String: Variant] = [:]
            response.insert(Keys.notificationID, notificationID)
            response.insert(Keys.notificationAction, action)
            response.insert(Keys.targetContentIdentifier, targetContentIdentifier)
            if !userInfo.isEmpty { response.insert(Keys.userInfo, userInfo) }
            return response
        }
    }
}
