public import DBus

// What travels with an event: PlatformData and ActivityDetails are generated from dbus/ (Generated/);
// here are the activity's size rules, and CreateScene's event, which is one of three.

extension Contract.ActivityDetails {
    /// Bytes one text field may hold (title, target, webpage URL, persistent identifier, one keyword
    /// or required key), and all of them together; `user-info` has its own limit (the daemon's).
    public static let fieldBytes = 4096
    public static let textBytes = 16 * 1024

    /// A check on top of the generated codec, not a codec: text over `fieldBytes` or `textBytes` is
    /// refused (`KeyError.tooLarge`) before any key is read.
    static func checkRules(reading activity: inout [String: Variant]) throws(Contract.KeyError) {
        var total = 0
        func count(_ key: String, _ text: String) throws(Contract.KeyError) {
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

    /// Sizes are checked on the way in only: what is sent was built here.
    func applyRules(writing properties: inout PropertyList) {}

    /// `userInfo` as text: strings as they are, any other value as its description.
    public var userInfoText: [String: String] {
        userInfo.mapValues { value in
            if case .string(let text) = value { return text }
            return value.description
        }
    }
}

extension Contract {
    /// `CreateScene`'s `event`: a URI, or an activity type with the activity's keys beside it. Written
    /// by hand (`io.waypost.Swift.HandWritten`): which of three events it is depends on which keys it
    /// holds, and each case reads its keys with a generated codec or as the opener sent them.
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
