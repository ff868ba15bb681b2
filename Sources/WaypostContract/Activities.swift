public import DBus

// What openers read of user activities: the current one (GetCurrentActivity, CurrentActivityChanged)
// and the saved ones (SearchActivities, ListSavedActivities).

extension Contract {
    /// The current activity of the most recently active scene that has one; empty (`nil` here) when none.
    public struct CurrentActivity: Sendable, Hashable {
        public var appID: String
        public var sceneID: String
        public var activityType: String
        /// The activity's keys as `SetCurrentActivity` took them.
        public var activity: [String: Variant]

        public init(appID: String, sceneID: String, activityType: String, activity: [String: Variant]) {
            (self.appID, self.sceneID, self.activityType, self.activity) = (appID, sceneID, activityType, activity)
        }

        /// Nil for the empty dictionary that says no scene has a current activity.
        /// - Throws: `KeyError` for a missing key or a value of the wrong type.
        public static func decode(_ current: [String: Variant]) throws(KeyError) -> CurrentActivity? {
            if current.isEmpty { return nil }
            return CurrentActivity(
                appID: try current.required(Keys.appID), sceneID: try current.required(Keys.sceneID),
                activityType: try current.required(Keys.activityType), activity: try current.required(Keys.activity))
        }

        /// As it travels; `nil` is the empty dictionary.
        public static func variants(_ current: CurrentActivity?) -> [String: Variant] {
            guard let current else { return [:] }
            var fields: [String: Variant] = [:]
            fields.insert(Keys.appID, current.appID)
            fields.insert(Keys.sceneID, current.sceneID)
            fields.insert(Keys.activityType, current.activityType)
            fields.insert(Keys.activity, current.activity)
            return fields
        }
    }

    /// A saved (search-eligible) activity, as `SearchActivities` and `ListSavedActivities` return it.
    public struct SavedActivity: Sendable, Hashable {
        /// What `ContinueSavedActivity` and the desktop's search name it by.
        public var id: String
        public var appID: String
        /// The app's `Name=`, for people.
        public var appName: String
        public var activityType: String
        /// Unix seconds of the last `SetCurrentActivity` that saved it.
        public var lastUsed: Int64
        public var activity: [String: Variant]

        public init(id: String, appID: String, appName: String, activityType: String, lastUsed: Int64, activity: [String: Variant]) {
            (self.id, self.appID, self.appName, self.activityType, self.lastUsed, self.activity) =
                (id, appID, appName, activityType, lastUsed, activity)
        }

        /// - Throws: `KeyError` for a missing key or a value of the wrong type.
        public init(_ fields: [String: Variant]) throws(KeyError) {
            id = try fields.required(Keys.id)
            appID = try fields.required(Keys.appID)
            appName = try fields.required(Keys.appName)
            activityType = try fields.required(Keys.activityType)
            lastUsed = try fields.required(Keys.lastUsed)
            activity = try fields.required(Keys.activity)
        }

        public var variants: [String: Variant] {
            var fields: [String: Variant] = [:]
            fields.insert(Keys.id, id)
            fields.insert(Keys.appID, appID)
            fields.insert(Keys.appName, appName)
            fields.insert(Keys.activityType, activityType)
            fields.insert(Keys.lastUsed, lastUsed)
            fields.insert(Keys.activity, activity)
            return fields
        }
    }
}
