import Associations
import Testing

/// Files a domain's owner could serve to make deciding that domain's links cost the daemon time:
/// each is refused with a named limit, or its decision stops at the step budget. Work is what the
/// tests bound (limits, steps), never time.
@Suite struct HostileFileTests {
    /// A file of one component whose path names `references` times a variable of `values` values.
    static func expansion(values: Int, references: Int, short: Bool = false) -> String {
        // "a", then "a1", "a2"…: the first matches every "a", the others are tried at each.
        let list = (0..<values).map { $0 == 0 ? #""a""# : short ? #""a""# : #""a\#($0)""# }.joined(separator: ",")
        let pattern = "/" + String(repeating: "$(v)*", count: references) + "x"
        return #"{"applinks": {"substitutionVariables": {"v": [\#(list)]}, "details": [{"appIDs": ["A"], "components": [{"/": "\#(pattern)"}]}]}}"#
    }

    @Test("a variable of 16,000 values is refused, naming the limit")
    func tooManyValues() {
        let error = refusal(Self.expansion(values: 16_000, references: 1, short: true))
        #expect(error?.exceeded == .substitutions)
        #expect(error?.path == "$.applinks.substitutionVariables.v")
    }

    @Test("values times references past the limit are refused at the component that passes it")
    func tooManyExpansions() {
        let error = refusal(Self.expansion(values: 1000, references: 17))
        #expect(error?.exceeded == .substitutions)
        #expect(error?.path == "$.applinks.details[0].components[0]")
        #expect(refusal(Self.expansion(values: 1000, references: 16)) == nil)
    }

    @Test("the costliest file within the limits stops at the step budget, and its link goes to the browser")
    func overBudget() throws {
        let file = try associationFile(Self.expansion(values: 1000, references: 16))
        let path = "/" + String(repeating: "a", count: 60_000) + "x"
        let match = file.match(try WebLink("https://shop.example" + path), opener: .known(nil), budget: 50_000)
        #expect(match.isOverBudget)
        #expect(match.apps.isEmpty)
        #expect(match.reason.contains("over the 50000 a decision may take"), "\(match.reason)")

        let ownership = LinkOwnership(
            userRules: [], associations: ["shop.example": file], claims: ["A": [try DomainClaim("shop.example")]])
        guard case .browser(.overBudget(.association(domain: "shop.example"), let decided)) = ownership.decide(url: "https://shop.example" + path)
        else {
            Issue.record("the decision did not stop at its budget")
            return
        }
        #expect(decided.isOverBudget)
        // Links it matches cheaply are still the app's.
        guard case .app(id: "A", _) = ownership.decide(url: "https://shop.example/" + String(repeating: "a", count: 16) + "x") else {
            Issue.record("a cheap link of the same file was not decided")
            return
        }
    }

    @Test("thousands of query item rules against thousands of items stop at the budget")
    func queryItemsOverBudget() throws {
        let rules = (0..<5000).map { #""k\#($0)": "*""# }.joined(separator: ",")
        let file = try components(#"[{"/": "/s", "?": {\#(rules)}}]"#)
        let query = (0..<5000).map { "k\($0)=v" }.joined(separator: "&")
        let match = file.match(try WebLink("https://x.example/s?" + query), opener: .known(nil))
        #expect(match.isOverBudget, "\(match.reason)")
        // The same rules against a short query are decided.
        #expect(file.match(try WebLink("https://x.example/s?k1=v"), opener: .known(nil)).apps == ["A"])
    }

    @Test("a usual file's decision stays far inside the budget")
    func usualFileWithinBudget() throws {
        let file = try components(#"[{"/": "/$(lang)_$(region)/buy/*"}, {"/": "/help/*", "?": {"id": "?*"}}]"#)
        let match = file.match(try WebLink("https://x.example/fr_CA/buy/" + String(repeating: "b", count: 60_000)), opener: .known(nil), budget: 300_000)
        #expect(!match.isOverBudget)
        #expect(match.apps == ["A"])
    }

    @Test("arrays 500 deep in a key Waypost ignores are refused by the nesting limit, not decoded")
    func deepIgnored() {
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let error = refusal(#"{"applinks": {"details": [{"appIDs": ["A"], "comment": \#(deep), "components": [{"/": "*"}]}]}}"#)
        #expect(error?.exceeded == .nesting)
        #expect(error?.path == "$")
    }

    @Test("what an ignored key holds is never decoded: values no decoder could read pass there")
    func ignoredNeverDecoded() throws {
        let nested = String(repeating: "[", count: 20) + #"1e400, "\ud800""# + String(repeating: "]", count: 20)
        let file = try associationFile(
            #"{"applinks": {"details": [{"appIDs": ["A"], "comment": \#(nested), "future": {"x": 1e999}, "components": [{"/": "/a", "comment": \#(nested)}]}]}, "webcredentials": \#(nested)}"#)
        #expect(try apps(file, "https://x.example/a") == ["A"])
    }

    @Test("brackets inside strings are text, not nesting")
    func bracketsInStrings() throws {
        let text = String(repeating: "[{", count: 100)
        let file = try associationFile(#"{"applinks": {"details": [{"appIDs": ["A"], "comment": "\#(text)\"]", "components": [{"/": "/a"}]}]}}"#)
        #expect(try apps(file, "https://x.example/a") == ["A"])
    }

    @Test("a host over 253 bytes is refused, so a *. claim never walks 30,000 labels")
    func longHost() throws {
        let host = String(repeating: "a.", count: 30_000) + "shop.example"
        #expect(throws: WebLinkError.self) { try WebLink("https://\(host)/") }
        do { _ = try WebLink("https://\(host)/") } catch { #expect(error.reason.contains("at most 253"), "\(error)") }
        let longest = String(repeating: "a.", count: 120) + "shop.example"  // 252 bytes
        #expect(try WebLink("https://\(longest)/").host == longest)

        let ownership = LinkOwnership(userRules: [], associations: [:], claims: ["A": [try DomainClaim("*.shop.example")]])
        guard case .browser(.unparsable) = ownership.decide(url: "https://\(host)/") else {
            Issue.record("a host of 30,000 labels was decided as a link")
            return
        }
    }

    @Test("an association is compiled before a table holding it exists: no decision compiles")
    func compiledBeforePublished() throws {
        let association = DeferredAssociation(
            bytes: Array(#"{"applinks": {"details": [{"appIDs": ["A"], "components": [{"/": "/a"}]}]}}"#.utf8), source: "x.json")
        #expect(!association.isCompiled)
        let ownership = LinkOwnership(
            userRules: [], deferredAssociations: ["x.example": association], claims: ["A": [try DomainClaim("x.example")]])
        #expect(association.isCompiled)
        guard case .app(id: "A", _) = ownership.decide(url: "https://x.example/a") else {
            Issue.record("the compiled association did not decide")
            return
        }
    }
}
