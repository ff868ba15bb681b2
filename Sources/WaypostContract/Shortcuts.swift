public import DBus

extension Contract {
    /// A dynamic shortcut item (Apple's `UIApplicationShortcutItem`), as `SetShortcutItems` carries it:
    /// chosen in the dock, it arrives as a user activity of `type` with its target and user info.
    public struct ShortcutItem: Sendable, Hashable {
        public enum Keys {
            public static let type = Key<String>("type")
            public static let title = Key<String>("title")
            public static let subtitle = Key<String>("subtitle")
            /// A themed icon name or an absolute path.
            public static let icon = Key<String>("icon")
            public static let targetContentIdentifier = Key<String>("target-content-identifier")
            public static let userInfo = Key<[String: Variant]>("user-info")
            public static let all = [
                type.declaration, title.declaration, subtitle.declaration, icon.declaration,
                targetContentIdentifier.declaration, userInfo.declaration,
            ]
        }

        public var type: String
        public var title: String
        public var subtitle: String?
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

extension Contract {
    /// `com.canonical.dbusmenu`, as the daemon serves each app's dock quicklist and libdbusmenu's
    /// client (Dash to Dock, Ubuntu Dock, Plank) calls it; not Waypost's own contract, so no XML in `dbus/`.
    public enum DBusMenu {
        public static let interface: InterfaceName = "com.canonical.dbusmenu"

        public static let getLayout = Member.method(
            "GetLayout", in: [.init("parentId", "i"), .init("recursionDepth", "i"), .init("propertyNames", "as")],
            out: [.init("revision", "u"), .init("layout", "(ia{sv}av)")])
        public static let getGroupProperties = Member.method(
            "GetGroupProperties", in: [.init("ids", "ai"), .init("propertyNames", "as")], out: [.init("properties", "a(ia{sv})")])
        public static let getProperty = Member.method(
            "GetProperty", in: [.init("id", "i"), .init("name", "s")], out: [.init("value", "v")])
        public static let event = Member.method(
            "Event", in: [.init("id", "i"), .init("eventId", "s"), .init("data", "v"), .init("timestamp", "u")])
        public static let eventGroup = Member.method("EventGroup", in: [.init("events", "a(isvu)")], out: [.init("idErrors", "ai")])
        public static let aboutToShow = Member.method("AboutToShow", in: [.init("id", "i")], out: [.init("needUpdate", "b")])
        public static let aboutToShowGroup = Member.method(
            "AboutToShowGroup", in: [.init("ids", "ai")], out: [.init("updatesNeeded", "ai"), .init("idErrors", "ai")])
        public static let methods = [getLayout, getGroupProperties, getProperty, event, eventGroup, aboutToShow, aboutToShowGroup]
        public static let layoutUpdated = Member.signal("LayoutUpdated", [.init("revision", "u"), .init("parent", "i")])
        public static let itemsPropertiesUpdated = Member.signal(
            "ItemsPropertiesUpdated", [.init("updatedProps", "a(ia{sv})"), .init("removedProps", "a(ias)")])
        public static let itemActivationRequested = Member.signal(
            "ItemActivationRequested", [.init("id", "i"), .init("timestamp", "u")])
    }

    /// `com.canonical.Unity.LauncherEntry`: the broadcast `Update` that tells docks where an app's quicklist is.
    public enum LauncherEntry {
        public static let interface: InterfaceName = "com.canonical.Unity.LauncherEntry"
        public static let update = Member.signal("Update", [.init("app_uri", "s"), .init("properties", "a{sv}")])
    }
}
