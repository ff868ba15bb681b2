public import DBus

// What travels with an event: platform_data, a user activity's details, and CreateScene's event.

extension Contract {
    /// `platform_data`: what lets the receiving window raise itself, forwarded from the opener.
    ///
    /// Read leniently: a value of another type is dropped, since the event matters more than
    /// raising its window.
    /// `Open`'s also says `shows-pages`: the caller is the browser and shows a web link no app takes
    /// itself, so the daemon hands it to no browser (the browser extension's host, whose tab then navigates).
    public struct PlatformData: Sendable, Hashable {
        /// The Wayland activation token (`xdg_activation_v1`).
        public var activationToken: String?
        /// The X11 startup-notification id.
        public var desktopStartupID: String?

        public init(activationToken: String? = nil, desktopStartupID: String? = nil) {
            self.activationToken = activationToken
            self.desktopStartupID = desktopStartupID
        }

        public init(_ data: [String: Variant]) {
            activationToken = try? data.value(Keys.activationToken)
            desktopStartupID = try? data.value(Keys.desktopStartupID)
        }

        public var variants: [String: Variant] { properties.dictionary }

        /// As it travels with every event handed to an app (no dictionary is built for it).
        public var properties: PropertyList {
            var data = PropertyList(capacity: 2)
            data.insert(Keys.activationToken, activationToken)
            data.insert(Keys.desktopStartupID, desktopStartupID)
            return data
        }
    }

    /// `activity`: a user activity's details (its type travels beside them), as
    /// `SetCurrentActivity` takes them and `ContinueActivity`, `ContinueUserActivity` and
    /// `CreateScene` carry them (the daemon forwards the dictionary itself, unchanged).
    public struct ActivityDetails: Sendable, Hashable {
        public var targetContentIdentifier: String?
        public var webpageURL: String?
        public var title: String?
        public var userInfo: [String: Variant]
        public var keywords: [String]
        /// Saved, and found by the desktop's search, until deleted or expired.
        public var eligibleForSearch: Bool
        /// Offered as the current activity to openers (`GetCurrentActivity`); true when absent.
        public var eligibleForHandoff: Bool
        /// Unix seconds after which the activity is never returned.
        public var expirationDate: Int64?
        public var persistentIdentifier: String?
        public var requiredUserInfoKeys: [String]

        public init(
            targetContentIdentifier: String? = nil, webpageURL: String? = nil, title: String? = nil,
            userInfo: [String: Variant] = [:], keywords: [String] = [], eligibleForSearch: Bool = false,
            eligibleForHandoff: Bool = true, expirationDate: Int64? = nil, persistentIdentifier: String? = nil,
            requiredUserInfoKeys: [String] = []
        ) {
            (self.targetContentIdentifier, self.webpageURL, self.title, self.userInfo) =
                (targetContentIdentifier, webpageURL, title, userInfo)
            (self.keywords, self.eligibleForSearch, self.eligibleForHandoff) = (keywords, eligibleForSearch, eligibleForHandoff)
            (self.expirationDate, self.persistentIdentifier, self.requiredUserInfoKeys) =
                (expirationDate, persistentIdentifier, requiredUserInfoKeys)
        }

        /// Bytes one text field may hold (title, target, webpage URL, persistent identifier, one keyword
        /// or required key), and all of them together; `user-info` has its own limit (the daemon's).
        public static let fieldBytes = 4096
        public static let textBytes = 16 * 1024

        /// - Throws: `KeyError.wrongType` for a value of the wrong type; `KeyError.tooLarge` for text
        ///   over `fieldBytes` or `textBytes`, checked before anything else reads it.
        public init(_ activity: [String: Variant]) throws(KeyError) {
            try Self.checkSizes(activity)
            targetContentIdentifier = try activity.value(Keys.targetContentIdentifier)
            webpageURL = try activity.value(Keys.webpageURL)
            title = try activity.value(Keys.title)
            userInfo = try activity.value(Keys.userInfo) ?? [:]
            keywords = try activity.value(Keys.keywords) ?? []
            eligibleForSearch = try activity.value(Keys.eligibleForSearch) ?? false
            eligibleForHandoff = try activity.value(Keys.eligibleForHandoff) ?? true
            expirationDate = try activity.value(Keys.expirationDate)
            persistentIdentifier = try activity.value(Keys.persistentIdentifier)
            requiredUserInfoKeys = try activity.value(Keys.requiredUserInfoKeys) ?? []
        }

        private static func checkSizes(_ activity: [String: Variant]) throws(KeyError) {
            var total = 0
            func count(_ key: String, _ text: String) throws(KeyError) {
                let bytes = text.utf8.count
                total += bytes
                if bytes > fieldBytes {
                    throw .tooLarge(key: key, value: String(text.prefix(40)), bytes: bytes, limit: fieldBytes)
                }
                if total > textBytes {
                    throw .tooLarge(key: "the activity's text", value: String(text.prefix(40)), bytes: total, limit: textBytes)
                }
            }
            for key in [Keys.targetContentIdentifier, Keys.webpageURL, Keys.title, Keys.persistentIdentifier] {
                if case .string(let text)? = activity[key.name] { try count(key.name, text) }
            }
            for key in [Keys.keywords, Keys.requiredUserInfoKeys] {
                guard case .array(_, let items)? = activity[key.name] else { continue }
                for case .string(let text) in items { try count(key.name, text) }
            }
        }

        /// Defaults (no keywords, not for search, for handoff) are left out, as absent keys mean them.
        public var variants: [String: Variant] {
            var activity: [String: Variant] = [:]
            activity.insert(Keys.targetContentIdentifier, targetContentIdentifier)
            activity.insert(Keys.webpageURL, webpageURL)
            activity.insert(Keys.title, title)
            if !userInfo.isEmpty { activity.insert(Keys.userInfo, userInfo) }
            if !keywords.isEmpty { activity.insert(Keys.keywords, keywords) }
            if eligibleForSearch { activity.insert(Keys.eligibleForSearch, true) }
            if !eligibleForHandoff { activity.insert(Keys.eligibleForHandoff, false) }
            activity.insert(Keys.expirationDate, expirationDate)
            activity.insert(Keys.persistentIdentifier, persistentIdentifier)
            if !requiredUserInfoKeys.isEmpty { activity.insert(Keys.requiredUserInfoKeys, requiredUserInfoKeys) }
            return activity
        }

        /// `userInfo` as text: strings as they are, any other value as its description.
        public var userInfoText: [String: String] {
            userInfo.mapValues { value in
                if case .string(let text) = value { return text }
                return value.description
            }
        }
    }

    /// `CreateScene`'s `event`: a URI, or an activity type with the activity's keys beside it.
    public enum SceneEvent: Sendable, Hashable {
        case url(String)
        /// `activity` holds the activity's keys (`ActivityDetails`) as the opener sent them.
        case activity(type: String, activity: [String: Variant])
        /// The user acted on one of the app's notifications (`notification-id` and `action` present).
        case notificationResponse(NotificationResponse)

        /// - Throws: `KeyError` when the event has neither `uri` nor `activity-type`, or one of
        ///   another type.
        public init(_ event: [String: Variant]) throws(KeyError) {
            if let uri = try event.value(Keys.uri) {
                self = .url(uri)
                return
            }
            if event[Keys.notificationID.name] != nil {
                self = .notificationResponse(try NotificationResponse(event))
                return
            }
            guard let type = try event.value(Keys.activityType) else {
                throw .missing(keys: [Keys.uri.name, Keys.activityType.name])
            }
            var activity = event
            activity[Keys.activityType.name] = nil
            self = .activity(type: type, activity: activity)
        }

        public var variants: [String: Variant] {
            var event: [String: Variant]
            switch self {
            case .url(let uri):
                event = [:]
                event.insert(Keys.uri, uri)
            case .activity(let type, let activity):
                event = activity
                event.insert(Keys.activityType, type)
            case .notificationResponse(let response):
                event = response.variants
            }
            return event
        }
    }
}
