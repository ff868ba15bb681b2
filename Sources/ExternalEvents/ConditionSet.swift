/// A set of strings compared with an event: `handlesExternalEvents(matching:)`, or one side of
/// `handlesExternalEvents(preferring:allowing:)`.
///
/// A condition matches when it occurs in the event's string, ignoring case and diacritics (both
/// are folded, then searched: "ss" occurs in "Straße", which folds to "strasse"); the
/// condition `*` (exactly that, alone) matches any event. An empty set and an empty condition never
/// match. The set keeps the conditions as given; the router folds them once, into its index, so
/// that routing an event never folds them again and an open scene does not carry them twice.
public struct ConditionSet: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The conditions as given, each once, in the order of their UTF-8 bytes.
    public let conditions: [String]
    /// Whether the set contains the condition `*`.
    public let matchesEverything: Bool

    public init(_ conditions: some Sequence<String>) {
        // By bytes, not by `String`'s `<` and `Set`: those treat canonically equivalent strings
        // ("é" and "e\u{301}") as one, and do not order every such pair, so which original stood
        // for a condition, and where, changed from one set to the next.
        let sorted = conditions.sorted { compareBytes($0, $1) < 0 }
        var distinct: [String] = []
        distinct.reserveCapacity(sorted.count)
        for condition in sorted where distinct.last.map({ compareBytes($0, condition) != 0 }) ?? true {
            distinct.append(condition)
        }
        self.conditions = distinct
        self.matchesEverything = distinct.contains("*")
    }

    public init(arrayLiteral conditions: String...) { self.init(conditions) }

    /// The empty set, which never matches.
    public static let none = ConditionSet([String]())

    public var isEmpty: Bool { conditions.isEmpty }

    /// The union of two sets, as a scene with several modifiers uses.
    public func union(_ other: ConditionSet) -> ConditionSet {
        if other.isEmpty { return self }
        if isEmpty { return other }
        return ConditionSet(conditions + other.conditions)
    }

    /// The first condition (as given) that matches `event`, or nil; `*` when only `*` matches.
    public func firstMatch(in event: ExternalEvent) -> String? {
        FoldedConditions(self).firstMatch(in: FoldedText(event.matchedString ?? ""))
    }

    public static func == (a: ConditionSet, b: ConditionSet) -> Bool { a.conditions == b.conditions }
    public func hash(into hasher: inout Hasher) { hasher.combine(conditions) }
}

/// A set's conditions folded: the distinct non-empty ones other than `*`, each with the position
/// in the set of the first original (in sorted order) that folds to it, which is the one a
/// decision names.
struct FoldedConditions: Sendable {
    let originals: [String]
    let conditions: [(position: Int32, text: FoldedText)]
    let matchesEverything: Bool

    init(_ set: ConditionSet) {
        var seen = Set<FoldedText>()
        var conditions: [(position: Int32, text: FoldedText)] = []
        for (position, condition) in set.conditions.enumerated() where !condition.isEmpty && condition != "*" {
            let text = FoldedText(condition)
            if seen.insert(text).inserted { conditions.append((Int32(position), text)) }
        }
        self.originals = set.conditions
        self.conditions = conditions
        self.matchesEverything = set.matchesEverything
    }

    /// The first condition (as given) occurring in `text`, or nil; `*` when only `*` matches.
    func firstMatch(in text: FoldedText) -> String? {
        for condition in conditions where text.contains(condition.text) { return originals[Int(condition.position)] }
        return matchesEverything ? "*" : nil
    }
}
