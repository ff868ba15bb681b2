/// A set of strings compared with an event: `handlesExternalEvents(matching:)`, or one side of
/// `handlesExternalEvents(preferring:allowing:)`.
///
/// A condition matches when it occurs in the event's string, ignoring case and diacritics (both
/// are folded, then searched: "ss" occurs in "Straße", which folds to "strasse"); the
/// condition `*` (exactly that, alone) matches any event. An empty set and an empty condition never
/// match. Conditions are folded here, once, so that routing an event never folds them again.
public struct ConditionSet: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The conditions as given, in a stable (sorted) order.
    public let conditions: [String]
    /// Whether the set contains the condition `*`.
    public let matchesEverything: Bool
    /// Distinct non-empty folded conditions other than `*`, each with the first original that folds to it.
    let folded: [(original: String, text: FoldedText)]

    private init(conditions: [String], matchesEverything: Bool, folded: [(original: String, text: FoldedText)]) {
        self.conditions = conditions
        self.matchesEverything = matchesEverything
        self.folded = folded
    }

    public init(_ conditions: some Sequence<String>) {
        let sorted = Set(conditions).sorted()
        var seen = Set<FoldedText>()
        var folded: [(original: String, text: FoldedText)] = []
        for condition in sorted where !condition.isEmpty && condition != "*" {
            let text = FoldedText(condition)
            if seen.insert(text).inserted { folded.append((condition, text)) }
        }
        self.conditions = sorted
        self.matchesEverything = sorted.contains("*")
        self.folded = folded
    }

    public init(arrayLiteral conditions: String...) { self.init(conditions) }

    /// The empty set, which never matches.
    public static let none = ConditionSet([String]())

    public var isEmpty: Bool { conditions.isEmpty }

    /// The union of two sets, as a scene with several modifiers uses; nothing is folded again.
    public func union(_ other: ConditionSet) -> ConditionSet {
        if other.isEmpty { return self }
        if isEmpty { return other }
        var seen = Set(folded.map(\.text))
        let added = other.folded.filter { seen.insert($0.text).inserted }
        let all = Set(conditions).union(other.conditions).sorted()
        // Which original stands for a folded condition is a display choice; keep the sorted-first one.
        let merged = (folded + added).sorted { $0.original < $1.original }
        var kept = Set<FoldedText>()
        return ConditionSet(
            conditions: all, matchesEverything: matchesEverything || other.matchesEverything,
            folded: merged.filter { kept.insert($0.text).inserted })
    }

    /// The first condition (as given) that matches `event`, or nil; `*` when only `*` matches.
    public func firstMatch(in event: ExternalEvent) -> String? {
        firstMatch(in: FoldedText(event.matchedString ?? ""))
    }

    func firstMatch(in text: FoldedText) -> String? {
        for condition in folded where text.contains(condition.text) { return condition.original }
        return matchesEverything ? "*" : nil
    }

    public static func == (a: ConditionSet, b: ConditionSet) -> Bool { a.conditions == b.conditions }
    public func hash(into hasher: inout Hasher) { hasher.combine(conditions) }
}
