/// Which window of a browser a link opens in.
public enum BrowserWindow: Sendable, Hashable {
    /// The browser's own choice (its last used profile).
    case usual
    /// A profile of the browser, by the name it shows (Chromium's "Work") or its directory.
    case profile(String)
    /// A private (incognito) window.
    case privateWindow
}

/// A destination as a person names it, in rules, choices and on the command line: an installed
/// entry and, for a browser, which window. Written `APP`, `APP#profile=NAME` or `APP#private`
/// (`#` appears in no desktop-file id).
public struct NamedDestination: Sendable, Hashable, CustomStringConvertible {
    public var app: String
    public var window: BrowserWindow

    public init(app: String, window: BrowserWindow = .usual) {
        (self.app, self.window) = (app, window)
    }

    /// Reads `APP`, `APP#profile=NAME` or `APP#private`; nil for anything else (an empty app or
    /// profile, another suffix, control characters, over 255 bytes).
    public init?(_ text: String) {
        guard text.utf8.count <= 255, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        guard let hash = text.firstIndex(of: "#") else {
            guard !text.isEmpty else { return nil }
            self.init(app: text)
            return
        }
        let app = String(text[..<hash])
        let rest = text[text.index(after: hash)...]
        guard !app.isEmpty else { return nil }
        if rest == "private" {
            self.init(app: app, window: .privateWindow)
        } else if rest.hasPrefix("profile="), rest.count > "profile=".count {
            self.init(app: app, window: .profile(String(rest.dropFirst("profile=".count))))
        } else {
            return nil
        }
    }

    public var description: String {
        switch window {
        case .usual: app
        case .profile(let name): "\(app)#profile=\(name)"
        case .privateWindow: "\(app)#private"
        }
    }

    /// For people: "chromium, profile Work", "firefox-esr, a private window".
    public var spoken: String {
        switch window {
        case .usual: app
        case .profile(let name): "\(app), profile \(name)"
        case .privateWindow: "\(app), a private window"
        }
    }
}

/// What a remembered choice covers: the links of one site or one scheme, the activities of one
/// type, or the web links no app takes (the browser fallback).
public enum ChoiceScope: Sendable, Hashable, CustomStringConvertible {
    /// Web links of this host (lower case).
    case site(String)
    /// Links of this custom scheme (lower case).
    case scheme(String)
    case activityType(String)
    /// Web links that go to the browser.
    case browser

    /// Reads `site:HOST`, `scheme:NAME`, `activity-type:TYPE` or `browser`.
    public init?(_ text: String) {
        if text == "browser" { self = .browser; return }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let value = String(text[text.index(after: colon)...])
        guard !value.isEmpty, !value.contains(where: { $0 == "\t" || $0 == "\n" || $0 == " " }) else { return nil }
        switch text[..<colon] {
        case "site": self = .site(value.lowercased())
        case "scheme": self = .scheme(value.lowercased())
        case "activity-type": self = .activityType(value)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .site(let host): "site:\(host)"
        case .scheme(let scheme): "scheme:\(scheme)"
        case .activityType(let type): "activity-type:\(type)"
        case .browser: "browser"
        }
    }

    /// For people: "example.com", "zoommtg: links", "activities of type T", "links no app takes".
    public var spoken: String {
        switch self {
        case .site(let host): host
        case .scheme(let scheme): "\(scheme): links"
        case .activityType(let type): "activities of type \(type)"
        case .browser: "links no app takes"
        }
    }
}

/// A choice the user made ("always") and the dispatcher keeps: for this scope (and, when `opener`
/// is set, only for events that app opened), this destination.
public struct RememberedChoice: Sendable, Hashable {
    public var scope: ChoiceScope
    /// The app the choice is limited to as opener; nil: whoever opens it.
    public var opener: String?
    public var destination: NamedDestination
    /// The day it was made, `YYYY-MM-DD` (UTC).
    public var made: String

    public init(scope: ChoiceScope, opener: String? = nil, destination: NamedDestination, made: String) {
        (self.scope, self.opener, self.destination, self.made) = (scope, opener, destination, made)
    }

    /// The UTC day `seconds` after the epoch, `YYYY-MM-DD` (proleptic Gregorian, civil from days).
    public static func day(since seconds: Int) -> String {
        let days = (seconds >= 0 ? seconds : seconds - 86_399) / 86_400 + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}

/// The remembered choices a plan reads. An opener's own choice comes before one for every opener.
public struct ChoiceBook: Sendable {
    private var byKey: [Key: RememberedChoice] = [:]
    /// Apps whose web links are off ("open supported links" unset): their claims count for nothing.
    public var linksOff: Set<String> = []
    /// Lines of the file this was read from that could not be used.
    public var problems: [Problem] = []

    private struct Key: Hashable {
        var scope: ChoiceScope
        var opener: String?
    }

    public init(_ choices: [RememberedChoice] = [], linksOff: Set<String> = []) {
        for choice in choices { byKey[Key(scope: choice.scope, opener: choice.opener)] = choice }
        self.linksOff = linksOff
    }

    public var isEmpty: Bool { byKey.isEmpty && linksOff.isEmpty }

    /// Every choice, by scope then opener.
    public var all: [RememberedChoice] {
        byKey.values.sorted { ($0.scope.description, $0.opener ?? "") < ($1.scope.description, $1.opener ?? "") }
    }

    /// The choice that holds for `scope` when `opener` opened the event.
    public func choice(for scope: ChoiceScope, opener: String?) -> RememberedChoice? {
        if let opener, let own = byKey[Key(scope: scope, opener: opener)] { return own }
        return byKey[Key(scope: scope, opener: nil)]
    }

    /// Whether any choice limited to openers covers `scope`: then the opener must be known to decide.
    public func namesOpeners(for scope: ChoiceScope) -> Bool {
        byKey.keys.contains { $0.scope == scope && $0.opener != nil }
    }

    public mutating func remember(_ choice: RememberedChoice) {
        byKey[Key(scope: choice.scope, opener: choice.opener)] = choice
    }

    @discardableResult
    public mutating func forget(_ scope: ChoiceScope, opener: String?) -> RememberedChoice? {
        byKey.removeValue(forKey: Key(scope: scope, opener: opener))
    }
}
