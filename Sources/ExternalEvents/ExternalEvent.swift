/// Something opened from outside the app: a URL, or a user activity handed over to it.
public enum ExternalEvent: Sendable, Hashable {
    /// A URL, by its absolute string (`myphotos://show?photoIdentifier=42`, `file:///tmp/a.md`).
    case url(String)
    /// A user activity, such as a handed-off piece of work or a search result.
    case activity(UserActivity)

    /// The string conditions are compared with: the URL's absolute string; for an activity its
    /// `targetContentIdentifier`, or when that is nil its `webpageURL`. Nil when an activity has neither.
    public var matchedString: String? {
        switch self {
        case .url(let url): url
        case .activity(let activity): activity.targetContentIdentifier ?? activity.webpageURL
        }
    }

    /// The URL a document group examines: the URL itself, or the activity's `webpageURL`.
    public var documentURL: String? {
        switch self {
        case .url(let url): url
        case .activity(let activity): activity.webpageURL
        }
    }
}

/// A user activity, as much of it as routing and the receiving scene need.
public struct UserActivity: Sendable, Hashable {
    /// The activity type, such as `com.example.contact.show`.
    public var type: String
    /// What the activity is about; the string routing compares first.
    public var targetContentIdentifier: String?
    /// A web page showing the same content, as an absolute URL string.
    public var webpageURL: String?
    public var title: String?
    /// The activity's payload; routing never looks at it.
    public var userInfo: [String: String]

    public init(
        type: String, targetContentIdentifier: String? = nil, webpageURL: String? = nil,
        title: String? = nil, userInfo: [String: String] = [:]
    ) {
        self.type = type
        self.targetContentIdentifier = targetContentIdentifier
        self.webpageURL = webpageURL
        self.title = title
        self.userInfo = userInfo
    }
}
