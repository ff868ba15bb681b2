import ExternalEvents
import Testing

@Suite("Matching conditions")
struct ConditionTests {
    @Test("a condition matches when it occurs anywhere in the event's string")
    func containment() {
        #expect(ConditionSet(["photoIdentifier="]).firstMatch(in: .url("myphotos://show?photoIdentifier=42")) == "photoIdentifier=")
        #expect(ConditionSet(["photoIdentifier=43"]).firstMatch(in: .url("myphotos://show?photoIdentifier=42")) == nil)
    }

    @Test("comparison ignores case and diacritics", arguments: [
        ("Crème", "x://CREME"), ("CREME", "x://crème"), ("café", "x://CAFE/menu"), ("naïve", "x://NAIVE"),
        ("e\u{301}t\u{e9}", "x://ÉTÉ"), ("Straße", "x://STRASSE"), ("ÅNGSTRÖM", "x://angstrom"),
    ])
    func insensitive(condition: String, url: String) {
        #expect(ConditionSet([condition]).firstMatch(in: .url(url)) == condition)
    }

    @Test("different letters stay different")
    func stillDifferent() {
        #expect(ConditionSet(["crame"]).firstMatch(in: .url("x://crème")) == nil)
        #expect(ConditionSet(["ø"]).firstMatch(in: .url("x://o")) == nil, "ø has no decomposition: not a diacritic")
    }

    @Test("an empty set never matches")
    func emptySet() {
        #expect(ConditionSet.none.firstMatch(in: .url("x://y")) == nil)
        #expect(ConditionSet.none.isEmpty)
    }

    @Test("an empty string never matches, even an empty event")
    func emptyString() {
        #expect(ConditionSet([""]).firstMatch(in: .url("x://y")) == nil)
        #expect(ConditionSet([""]).firstMatch(in: .url("")) == nil)
    }

    @Test("\"*\" alone matches anything, even an event with no string")
    func star() {
        #expect(ConditionSet(["*"]).firstMatch(in: .url("x://y")) == "*")
        #expect(ConditionSet(["*"]).firstMatch(in: .activity(UserActivity(type: "t"))) == "*")
    }

    @Test("\"*\" is special only alone: within a condition it is a plain character")
    func starInside() {
        #expect(ConditionSet(["a*"]).firstMatch(in: .url("x://abc")) == nil)
        #expect(ConditionSet(["a*"]).firstMatch(in: .url("x://a*c")) == "a*")
        #expect(ConditionSet([" *"]).firstMatch(in: .url("x://y")) == nil)
    }

    @Test("a set's conditions keep one order however they were given, canonically equivalent ones included")
    func stableOrder() {
        // String's `<` finds neither "e\u{301}" nor "é=" smaller than the other.
        let given = ["é=", "e\u{301}", "*", "/é", "ea", "\u{e9}"]
        let expected = ConditionSet(given).conditions.map { Array($0.utf8) }
        #expect(expected.count == 6, "byte-distinct conditions are all kept")
        for rotation in 1..<given.count {
            let rotated = Array(given[rotation...] + given[..<rotation])
            #expect(ConditionSet(rotated).conditions.map { Array($0.utf8) } == expected)
            #expect(ConditionSet(rotated.reversed()).conditions.map { Array($0.utf8) } == expected)
        }
    }

    @Test("conditions that fold alike count once")
    func foldedDuplicates() {
        let set = ConditionSet(["Crème", "creme", "CREME"])
        #expect(set.conditions.count == 3)
        #expect(set.firstMatch(in: .url("x://creme")) != nil)
    }
}
