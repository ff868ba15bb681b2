/// A domain's association file in Apple's `applinks` format (apple-app-site-association), parsed
/// and compiled once; `match` says which apps a link belongs to by it.
///
/// Semantics as Apple documents them (applinks, applinks.Details, applinks.Details.Components,
/// applinks.Defaults, applinks.SubstitutionVariables):
/// - `details` entries are tried in order, and within each its `components` in order; the first
///   component that matches decides. A match names the entry's apps (`appIDs`, else `appID`;
///   `appIDs` wins even when empty); an `exclude` match means no app. A later entry is consulted
///   only when no earlier one matched.
/// - An entry without `components` uses the legacy `paths`: path only, case-sensitive, and a
///   `NOT ` prefix excludes.
/// - `caseSensitive` and `percentEncoded` (and every other component key) default at two levels,
///   `applinks.defaults` and the entry's `defaults` ("a subclass of components"); the more
///   specific level overrides.
/// - Unknown keys are ignored; a value of the wrong type is refused with its JSON path. A pattern
///   naming an undefined `$(variable)` matches nothing and is listed in `warnings`.
public struct AssociationFile: Sendable {
    /// At most this many bytes: what Waypost fetches from a domain, as Apple's CDN does.
    public static let maximumBytes = 128 * 1024
    /// At most this deep may arrays and objects nest, anywhere in the file: the format needs six
    /// levels (`applinks`, `details`, an entry, `components`, a component, its `"?"` items).
    public static let maximumNesting = 32
    /// At most this many values per substitution variable the file defines.
    public static let maximumVariableValues = 1024
    /// At most this many values of the file's own variables, summed over every reference to them:
    /// what a match may have to try at each position of a link.
    public static let maximumExpandedValues = 16 * 1024
    /// At most this many steps (bytes compared, positions tried, query items looked at) per decision, over every pattern
    /// tried: past it, the match stops and says so (`AssociationMatch.isOverBudget`).
    public static let stepBudget = 1_000_000

    struct Details: Sendable {
        let apps: [String]
        let rules: Rules
    }

    enum Rules: Sendable {
        /// With each component's path prefix check, in an array of its own: walked without
        /// retaining anything.
        case components([Component], checks: [PathPrefixCheck])
        /// The legacy form: each pattern with whether `NOT ` excludes it.
        case paths([(pattern: Pattern, exclude: Bool)])
        /// Neither: the entry matches nothing.
        case none
    }

    let details: [Details]
    let hasAppLinks: Bool

    /// Which links the file is for, when it says so itself (`"hosts"`, `"scheme"`: Waypost's keys
    /// for the user's rules); nil for a file that does not, whose name gives its hosts.
    public let scope: RuleScope?

    /// Every app any `details` entry names.
    public let appIDs: Set<String>
    /// Problems that do not stop the file from being used: patterns naming undefined variables.
    public let warnings: [AssociationFileError]

    /// - Throws: `AssociationFileError` with the JSON path of the first structural problem, or
    ///   at `$` for a file that is too large or not JSON.
    public init(json: some Collection<UInt8>) throws(AssociationFileError) {
        let parsed = try Parser.parse(json)
        details = parsed.details
        hasAppLinks = parsed.hasAppLinks
        scope = parsed.scope
        warnings = parsed.warnings
        appIDs = Set(parsed.details.flatMap(\.apps))
    }

    /// Which apps the link belongs to by this file, and the entry and component that decided.
    /// The link's host is not looked at: the file is the host's (or the caller chose it).
    /// - Parameter opener: the app that opened the link (nil: none known), for components naming
    ///   openers (`"opener"`, a key of Waypost's user rules).
    public func match(_ link: WebLink, opener: String? = nil) -> AssociationMatch {
        match(link, opener: .known(opener))
    }

    /// `match`, with the opener perhaps still being found: a component naming openers that the
    /// link reaches then stops the match, which `needsOpener` says.
    /// - Parameter budget: the steps the match may take (`stepBudget`); past them it stops, and
    ///   the match says so (`isOverBudget`) and names no app.
    public func match(_ link: WebLink, opener: OpenerFact, budget: Int = AssociationFile.stepBudget) -> AssociationMatch {
        var subject = LinkSubject(link, opener: opener, budget: budget)
        let overBudget = { (subject: LinkSubject) in
            AssociationMatch(apps: [], details: nil, component: nil, excluded: false, why: .overBudget(steps: subject.steps, budget: budget))
        }
        var tried = 0
        for (entryIndex, entry) in details.enumerated() {
            switch entry.rules {
            case .components(let components, let checks):
                for index in checks.indices where subject.admits(checks[index]) {
                    let component = components[index]
                    let matched = component.matches(&subject)
                    if subject.isOverBudget { return overBudget(subject) }
                    guard matched else {
                        if subject.awaitsOpener {
                            return AssociationMatch(apps: [], details: nil, component: nil, excluded: false, why: .awaitingOpener)
                        }
                        continue
                    }
                    return AssociationMatch(
                        entry: entry, details: entryIndex, component: index, excluded: component.exclude,
                        rule: .component(component.own))
                }
                tried += components.count
            case .paths(let paths):
                for (index, path) in paths.enumerated() {
                    let text = subject.path(PatternCompiler.Spelling())
                    let matched = path.pattern.matches(path: text, steps: &subject.steps, budget: subject.budget)
                    if subject.isOverBudget { return overBudget(subject) }
                    guard matched else { continue }
                    return AssociationMatch(
                        entry: entry, details: entryIndex, component: index, excluded: path.exclude, rule: .path(path.pattern.source))
                }
                tried += paths.count
            case .none:
                break
            }
        }
        return AssociationMatch(apps: [], details: nil, component: nil, excluded: false, why: hasAppLinks ? .noMatch(tried: tried, entries: details.count) : .noAppLinks)
    }
}

/// What an association file says of one link.
public struct AssociationMatch: Sendable, Equatable, CustomStringConvertible {
    /// The apps of the entry that matched; empty when nothing matched, when the match excludes the
    /// link, or when the entry names no app.
    public let apps: [String]
    /// The index of the `details` entry that decided; nil when none matched.
    public let details: Int?
    /// The index in that entry's `components` (or legacy `paths`) of the one that matched.
    public let component: Int?
    /// Whether the match was an `exclude` (or a `NOT ` path): no app may have the link.
    public let excluded: Bool
    /// Whether matching stopped at a component naming openers, the opener not known yet.
    public var needsOpener: Bool {
        if case .awaitingOpener = why { true } else { false }
    }
    /// Whether matching stopped at its step budget: the file's patterns cost more than a decision
    /// may, and no app has the link by it.
    public var isOverBudget: Bool {
        if case .overBudget = why { true } else { false }
    }
    /// What `reason` is written from, kept as parts: most decisions are never explained, and
    /// writing the text costs more than the matching.
    private let why: Why

    enum Why: Sendable {
        case matched(Rule, entryApps: [String])
        case noMatch(tried: Int, entries: Int)
        case noAppLinks
        case awaitingOpener
        case overBudget(steps: Int, budget: Int)
        case given(String)
    }

    enum Rule: Sendable {
        /// A component, by its own keys.
        case component(ComponentSettings)
        /// A legacy path, as written after any `NOT `.
        case path(String)
    }

    /// For people: which entry and component decided and what they say, or why none did.
    public var reason: String {
        switch why {
        case .given(let text):
            return text
        case .noAppLinks:
            return "the file has no applinks section"
        case .awaitingOpener:
            return "a component that names openers is reached before the opener is known"
        case .overBudget(let steps, let budget):
            return "matching stopped after \(steps) steps, over the \(budget) a decision may take"
        case .noMatch(let tried, let entries):
            return "no component matches (\(tried) tried in \(entries) details \(entries == 1 ? "entry" : "entries"))"
        case .matched(let rule, let entryApps):
            let place =
                switch rule {
                case .component(let own): "details[\(details ?? 0)].components[\(component ?? 0)] \(own.summary)"
                case .path(let source): "details[\(details ?? 0)].paths[\(component ?? 0)] \(ComponentSettings.json(source))"
                }
            return excluded ? "\(place) excludes the link"
                : entryApps.isEmpty ? "\(place) matches, but its entry names no app"
                : "\(place) matches; the entry names \(entryApps.joined(separator: ", "))"
        }
    }

    public var description: String { reason }

    /// Equal when everything a caller sees is: the apps, the indexes, the exclusion and the reason.
    public static func == (a: AssociationMatch, b: AssociationMatch) -> Bool {
        a.apps == b.apps && a.details == b.details && a.component == b.component && a.excluded == b.excluded
            && a.reason == b.reason
    }

    public init(apps: [String], details: Int?, component: Int?, excluded: Bool, reason: String) {
        self.init(apps: apps, details: details, component: component, excluded: excluded, why: .given(reason))
    }

    init(apps: [String], details: Int?, component: Int?, excluded: Bool, why: Why) {
        self.apps = apps
        self.details = details
        self.component = component
        self.excluded = excluded
        self.why = why
    }

    init(entry: AssociationFile.Details, details: Int, component: Int, excluded: Bool, rule: Rule) {
        self.init(
            apps: excluded ? [] : entry.apps, details: details, component: component, excluded: excluded,
            why: .matched(rule, entryApps: entry.apps))
    }
}

/// A structural problem of an association file, and where it is.
public struct AssociationFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// JSONPath of the offending value: `$.applinks.details[1].components[0]["?"]`.
    public let path: String
    public let problem: String
    /// The limit the file goes past, when that is the problem.
    public let exceeded: Limit?

    /// A limit on what a file may make Waypost do.
    public enum Limit: Sendable, Equatable {
        /// `AssociationFile.maximumBytes`.
        case size
        /// `AssociationFile.maximumNesting`.
        case nesting
        /// `maximumVariableValues` or `maximumExpandedValues`.
        case substitutions
    }

    public init(path: String, problem: String, exceeded: Limit? = nil) {
        self.path = path
        self.problem = problem
        self.exceeded = exceeded
    }

    public var description: String { "at \(path): \(problem)" }
}
