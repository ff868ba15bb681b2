public import DBus

extension Contract {
    /// A dynamic shortcut item (Apple's `UIApplicationShortcutItem`), as `SetShortcutItems` carries it:
    /// chosen in the dock, it arrives as a user activity of `type` with its target and user info.
    public struct ShortcutItem: Sendable, Hashable {
        public var type: String
        public var title: String
        public var subtitle: String?
        /// A themed icon name or an absolute path.
        public var icon: String?
        public var targetContentIdentifier: String?
        public var userInfo: [String: Variant]

        public init(
            type: String, title: String, subtitle: String? = nil, icon: String? = nil, targetContentIdentifier: String? = nil,
            userInfo: [String: Variant] = [:]
        ) {
            (self.type, self.title, self.subtitle, self.icon) = (type, title, subtitle, icon)
            (self.targetContentIdentifier, self.userInfo) = (targetContentIdentifier, userInfo)
        }

        /// - Throws: `KeyError` for a missing type or title, or a value of the wrong type.
        public init(_ fields: [String: Variant]) throws(KeyError) {
            type = try fields.required(Keys.type)
            title = try fields.required(Keys.title)
            subtitle = try fields.value(Keys.subtitle)
            icon = try fields.value(Keys.icon)
            targetContentIdentifier = try fields.value(Keys.targetContentIdentifier)
            userInfo = try fields.value(Keys.userInfo) ?? [:]
        }

        public var variants: [String: Variant] {
            var fields: [String: Variant] = [:]
            fields.insert(Keys.type, type)
            fields.insert(Keys.title, title)
            fields.insert(Keys.subtitle, subtitle)
            fields.insert(Keys.icon, icon)
            fields.insert(Keys.targetContentIdentifier, targetContentIdentifier)
            if !userInfo.isEmpty { fields.insert(Keys.userInfo, userInfo) }
            return fields
        }

        /// The activity it arrives as (`ContinueUserActivity`'s dictionary): title, target, user info.
        public var activity: [String: Variant] {
            var fields: [String: Variant] = [:]
            fields.insert(ActivityDetails.Keys.title, title)
            fields.insert(ActivityDetails.Keys.targetContentIdentifier, targetContentIdentifier)
            if !userInfo.isEmpty { fields.insert(ActivityDetails.Keys.userInfo, userInfo) }
            return fields
        }
    }
}
