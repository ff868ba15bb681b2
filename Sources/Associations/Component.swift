import FoundationEssentials
/// One entry of a `components` array, its settings resolved against the entry's and the file's
/// `defaults` and its patterns compiled. A class, so that walking a file's components retains
/// each once instead of each of its fields.
final class Component: Sendable {
    /// nil where the pattern is `*` (the default): nothing to check.
    let path: Pattern?
    let query: QueryRule?
    let fragment: Pattern?
    let exclude: Bool
    let spelling: PatternCompiler.Spelling
    /// The apps one of which must have opened the link (`"opener"`, Waypost's key); nil: any opener.
    let openers: Set<String>?
    /// The component's own keys, written into a reason when one is read: `{"/": "/buy/*"}`.
    let own: ComponentSettings

    init(
        path: Pattern?, query: QueryRule?, fragment: Pattern?, exclude: Bool, spelling: PatternCompiler.Spelling,
        openers: Set<String>?, own: ComponentSettings
    ) {
        self.openers = openers
        self.path = path
        self.query = query
        self.fragment = fragment
        self.exclude = exclude
        self.spelling = spelling
        self.own = own
    }

    /// A component matches when each of its parts does (Apple: "all the components that a
    /// components object specifies"). The opener is asked last, so that a link the other parts turn
    /// away never waits for it; while it is still being found, `link.awaitsOpener` is set.
    func matches(_ link: inout LinkSubject) -> Bool {
        if let path, !path.matches(path: link.path(spelling), steps: &link.steps, budget: link.budget) { return false }
        if let fragment, !fragment.matches(link.fragment(spelling), steps: &link.steps, budget: link.budget) { return false }
        guard matchesQuery(&link) else { return false }
        guard let openers else { return true }
        switch link.opener {
        case .pending:
            link.awaitsOpener = true
            return false
        case .known(let app):
            return app.map(openers.contains) ?? false
        }
    }

    private func matchesQuery(_ link: inout LinkSubject) -> Bool {
        switch query {
        case nil: return true
        case .whole(let pattern): return pattern.matches(link.query(spelling), steps: &link.steps, budget: link.budget)
        case .items(let rules):
            let items = link.queryItems(spelling)
            for rule in rules {
                var seen = false
                // Each item looked at is a step: rules × items could otherwise cost what no budget sees.
                link.steps += items.count
                if link.isOverBudget { return false }
                for item in items where item.name == rule.name {
                    seen = true
                    if !rule.value.matches(item.value, steps: &link.steps, budget: link.budget) { return false }
                }
                // An absent item is the empty string.
                if !seen, !rule.value.matches("", steps: &link.steps, budget: link.budget) { return false }
            }
            return true
        }
    }
}

/// The first bytes (up to 8) a component's path must start with, as one word: most components of
/// a file differ there, and this check touches no reference-counted value, so a link is turned
/// away from them for the cost of a compare each.
struct PathPrefixCheck: Sendable {
    let spelling: PatternCompiler.Spelling
    private let bits: UInt64
    private let mask: UInt64
    private let length: Int

    init(_ path: Pattern?, _ spelling: PatternCompiler.Spelling) {
        self.spelling = spelling
        var literal = path?.literalPrefix ?? []
        // `/buy/*` matches `/buy` too: its prefix is checked without the slash that may be absent.
        if path?.endsInDirectory == true, literal.last == UInt8(ascii: "/") { literal.removeLast() }
        let prefix = literal.prefix(8)
        length = prefix.count
        bits = Self.word(prefix)
        mask = length == 8 ? ~0 : (1 << UInt64(8 * length)) - 1
    }

    /// Whether a path whose first bytes are `word` (of `count` bytes, at most 8) may match.
    func admits(_ word: UInt64, count: Int) -> Bool { count >= length && word & mask == bits }

    static func word(_ bytes: some Collection<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for (offset, byte) in bytes.prefix(8).enumerated() { word |= UInt64(byte) << UInt64(8 * offset) }
        return word
    }
}

/// The `?` of a component: a pattern for the whole query, or patterns for named query items.
enum QueryRule: Sendable {
    case whole(Pattern)
    /// Every instance of a repeated item must match; items not named are ignored.
    case items([(name: String, value: Pattern)])
}

/// A component's keys as a file writes them, at any of the three levels (file defaults, entry
/// defaults, component); nil where the level does not say.
struct ComponentSettings: Sendable {
    enum Query: Sendable {
        case pattern(String)
        case items([String: String])
    }

    var path: String?
    var query: Query?
    var fragment: String?
    var exclude: Bool?
    var caseSensitive: Bool?
    var percentEncoded: Bool?
    var openers: [String]?

    /// These settings, with what they leave unsaid taken from the less specific `defaults`.
    func over(_ defaults: ComponentSettings) -> ComponentSettings {
        ComponentSettings(
            path: path ?? defaults.path, query: query ?? defaults.query, fragment: fragment ?? defaults.fragment,
            exclude: exclude ?? defaults.exclude, caseSensitive: caseSensitive ?? defaults.caseSensitive,
            percentEncoded: percentEncoded ?? defaults.percentEncoded, openers: openers ?? defaults.openers)
    }

    /// The keys this level sets, written back as JSON (by JSONEncoder) for a reason.
    var summary: String { Self.json(Summary(settings: self)) }

    /// `value` as JSON text, keys sorted: how reasons quote what a file said.
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    /// The keys as the file spells them.
    private struct Summary: Encodable {
        let settings: ComponentSettings

        struct Key: CodingKey {
            let stringValue: String
            init(_ name: String) { stringValue = name }
            init?(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encodeIfPresent(settings.path, forKey: Key("/"))
            switch settings.query {
            case .pattern(let pattern): try container.encode(pattern, forKey: Key("?"))
            case .items(let items): try container.encode(items, forKey: Key("?"))
            case nil: break
            }
            try container.encodeIfPresent(settings.fragment, forKey: Key("#"))
            try container.encodeIfPresent(settings.exclude, forKey: Key("exclude"))
            try container.encodeIfPresent(settings.caseSensitive, forKey: Key("caseSensitive"))
            try container.encodeIfPresent(settings.percentEncoded, forKey: Key("percentEncoded"))
            try container.encodeIfPresent(settings.openers, forKey: Key("opener"))
        }
    }
}

/// A link's parts in each spelling the components of a file ask for, each made at most once.
struct LinkSubject {
    struct QueryItem {
        let name: String
        let value: String
    }

    let link: WebLink
    /// Who opened the link, for components that name openers.
    let opener: OpenerFact
    /// Set when a component named openers while the opener was still `pending`: the match stops there.
    var awaitsOpener = false
    /// The work of the decision so far, over every pattern tried, and where it stops.
    var steps = 0
    let budget: Int
    private var paths = Spellings<String>()
    private var pathWords = Spellings<(word: UInt64, count: Int)>()
    private var queries = Spellings<String>()
    private var fragments = Spellings<String>()
    private var items = Spellings<[QueryItem]>()

    init(_ link: WebLink, opener: OpenerFact, budget: Int = AssociationFile.stepBudget) {
        self.link = link
        self.opener = opener
        self.budget = budget
    }

    var isOverBudget: Bool { steps > budget }

    /// The link's path as Apple's matcher compares it: a doubled leading slash made one and a
    /// trailing slash removed (`//buy/` is `/buy`), as path patterns are (`PatternCompiler.pathForm`).
    mutating func path(_ spelling: PatternCompiler.Spelling) -> String {
        if let made = paths[spelling] { return made }
        let made = Self.spell(PatternCompiler.pathForm(link.path), spelling)
        paths[spelling] = made
        return made
    }

    /// Whether the path, spelled as the check says, may match the component the check is for.
    mutating func admits(_ check: PathPrefixCheck) -> Bool {
        if let made = pathWords[check.spelling] { return check.admits(made.word, count: made.count) }
        let path = path(check.spelling)
        let made = (word: PathPrefixCheck.word(path.utf8), count: min(8, path.utf8.count))
        pathWords[check.spelling] = made
        return check.admits(made.word, count: made.count)
    }

    /// An absent query is the empty string, as is an absent fragment.
    mutating func query(_ spelling: PatternCompiler.Spelling) -> String {
        if let made = queries[spelling] { return made }
        let made = Self.spell(link.query ?? "", spelling)
        queries[spelling] = made
        return made
    }

    mutating func fragment(_ spelling: PatternCompiler.Spelling) -> String {
        if let made = fragments[spelling] { return made }
        let made = Self.spell(link.fragment ?? "", spelling)
        fragments[spelling] = made
        return made
    }

    /// The query split at `&`, each item at its first `=` (an item without one has the empty
    /// value). Names are decoded, as Foundation's `URLQueryItem` names are; values are spelled as
    /// the component asks. `+` is not a space: that is HTML forms' convention, not URLs'.
    mutating func queryItems(_ spelling: PatternCompiler.Spelling) -> [QueryItem] {
        if let made = items[spelling] { return made }
        var made: [QueryItem] = []
        for item in (link.query ?? "").utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = item.firstIndex(of: UInt8(ascii: "="))
            let name = String(decoding: item[..<(equals ?? item.endIndex)], as: UTF8.self)
            let value = equals.map { String(decoding: item[item.index(after: $0)...], as: UTF8.self) } ?? ""
            var decodedName = PercentEncoding.decoded(name)
            if !spelling.caseSensitive { decodedName = decodedName.lowercased() }
            made.append(QueryItem(name: decodedName, value: Self.spell(value, spelling)))
        }
        items[spelling] = made
        return made
    }

    private static func spell(_ encoded: String, _ spelling: PatternCompiler.Spelling) -> String {
        let text = spelling.percentEncoded ? encoded : PercentEncoding.decoded(encoded)
        return spelling.caseSensitive ? text : text.lowercased()
    }
}

/// One value per spelling, without a dictionary: four slots.
private struct Spellings<Value> {
    private var encodedCased, encodedFolded, decodedCased, decodedFolded: Value?

    subscript(spelling: PatternCompiler.Spelling) -> Value? {
        get {
            switch (spelling.percentEncoded, spelling.caseSensitive) {
            case (true, true): encodedCased
            case (true, false): encodedFolded
            case (false, true): decodedCased
            case (false, false): decodedFolded
            }
        }
        set {
            switch (spelling.percentEncoded, spelling.caseSensitive) {
            case (true, true): encodedCased = newValue
            case (true, false): encodedFolded = newValue
            case (false, true): decodedCased = newValue
            case (false, false): decodedFolded = newValue
            }
        }
    }
}
