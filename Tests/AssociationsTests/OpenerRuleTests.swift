import Associations
import Testing

/// The user's rules by opener and by scheme: the README's two examples, word for word.
@Suite("User rules by opener and scheme")
struct OpenerRuleTests {
    /// "Links from Chat go to the work browser": `from-chat.json`.
    static let fromChat = #"""
        {"hosts": ["*"],
         "applinks": {"details": [
           {"appIDs": ["org.example.WorkBrowser"], "components": [{"opener": ["org.example.Chat"]}]}]}}
        """#

    /// "https Zoom links from anywhere but Zoom itself go to the Zoom app": `zoom.json`.
    static let zoom = #"""
        {"hosts": ["zoom.us", "*.zoom.us"],
         "applinks": {"details": [
           {"appIDs": ["us.zoom.Zoom"], "components": [
             {"opener": ["us.zoom.Zoom"], "exclude": true},
             {"/": "/j/*"}]}]}}
        """#

    /// Custom-scheme links to an app, whoever opened them: `zoommtg.json`.
    static let zoommtg = #"""
        {"scheme": "zoommtg",
         "applinks": {"details": [{"appIDs": ["us.zoom.Zoom"], "components": [{}]}]}}
        """#

    static let shopFile = #"{"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [{"/": "/product/*"}]}]}}"#

    func ownership(_ rules: [(name: String, json: String)]) throws -> LinkOwnership {
        LinkOwnership(
            userRules: try rules.map { rule in
                try UserRule(named: rule.name, file: try associationFile(rule.json), source: "\(rule.name).json")
            },
            associations: ["shop.example": try associationFile(Self.shopFile)],
            claims: ["org.example.Shop": [try DomainClaim("shop.example")]])
    }

    @Test("links from Chat go to the work browser, whatever their host; from elsewhere they are decided as always")
    func fromChatToWorkBrowser() throws {
        let owner = try ownership([("from-chat", Self.fromChat)])
        for url in ["https://news.example/story", "http://shop.example/product/1", "https://shop.example:8443/"] {
            #expect(owner.decide(try link(url), opener: "org.example.Chat").appID == "org.example.WorkBrowser", "\(url)")
        }
        #expect(owner.decide(try link("https://shop.example/product/1"), opener: "org.example.Mail").appID == "org.example.Shop")
        #expect(owner.decide(try link("https://shop.example/product/1")).appID == "org.example.Shop")
        guard case .browser(.notClaimed) = owner.decide(try link("https://news.example/story"), opener: nil) else {
            Issue.record("an unknown opener is not Chat"); return
        }
        guard case .app(_, let ownership) = owner.decide(try link("https://news.example/"), opener: "org.example.Chat") else { return }
        #expect(ownership.description == #"the user rule from-chat.json: details[0].components[0] {"opener":["org.example.Chat"]} matches; the entry names org.example.WorkBrowser"#)
    }

    @Test("Zoom links from anywhere but Zoom go to Zoom; from Zoom itself to the browser")
    func zoomLinksButFromZoom() throws {
        let owner = try ownership([("zoom", Self.zoom)])
        for host in ["zoom.us", "us02web.zoom.us"] {
            #expect(owner.decide(try link("https://\(host)/j/123"), opener: "org.example.Chat").appID == "us.zoom.Zoom")
            #expect(owner.decide(try link("https://\(host)/j/123"), opener: nil).appID == "us.zoom.Zoom")
            guard case .browser(.excluded(.userRule("zoom.json"), _)) = owner.decide(try link("https://\(host)/j/123"), opener: "us.zoom.Zoom")
            else { Issue.record("Zoom's own link went back to Zoom"); return }
        }
        // Not a meeting link, and not another host: the rule passes them on.
        guard case .browser(.notClaimed) = owner.decide(try link("https://zoom.us/pricing"), opener: "org.example.Chat") else {
            Issue.record("pricing"); return
        }
        guard case .browser(.notClaimed) = owner.decide(try link("https://notzoom.us/j/123")) else { Issue.record("host"); return }
    }

    @Test("the decision waits for the opener only when a rule naming openers is reached")
    func waitsOnlyWhenReached() throws {
        let owner = try ownership([("zoom", Self.zoom), ("from-chat", Self.fromChat)])
        // Every https link reaches from-chat's opener component, and zoom.us links zoom's.
        #expect(owner.decide(try link("https://zoom.us/j/1"), opener: .pending) == nil)
        #expect(owner.decide(try link("https://news.example/"), opener: .pending) == nil)
        #expect(owner.decide(try link("https://zoom.us/j/1"), opener: .known("us.zoom.Zoom")) != nil)
        // A rule that decides before its opener component does not wait.
        let first = #"{"hosts": ["*"], "applinks": {"details": [{"appIDs": ["B"], "components": [{"/": "/b/*"}, {"opener": ["C"]}]}]}}"#
        let early = try ownership([("first", first)])
        #expect(early.decide(try link("https://x.example/b/1"), opener: .pending)?.appID == "B")
        #expect(early.decide(try link("https://x.example/c"), opener: .pending) == nil)
        // Without such a rule, nothing waits.
        #expect(try ownership([]).decide(try link("https://shop.example/product/1"), opener: .pending)?.appID == "org.example.Shop")
    }

    @Test("opener at every level: component, entry defaults, file defaults; a string or a list")
    func openerLevels() throws {
        let levels = [
            #"{"applinks": {"details": [{"appIDs": ["A"], "components": [{"opener": "C"}]}]}}"#,
            #"{"applinks": {"details": [{"appIDs": ["A"], "defaults": {"opener": ["C", "D"]}, "components": [{}]}]}}"#,
            #"{"applinks": {"defaults": {"opener": ["C"]}, "details": [{"appIDs": ["A"], "components": [{"/": "/*"}]}]}}"#,
        ]
        for json in levels {
            let file = try associationFile(json)
            #expect(file.match(try link("https://x.example/"), opener: "C").apps == ["A"], "\(json)")
            #expect(file.match(try link("https://x.example/"), opener: "E").apps == [], "\(json)")
            #expect(file.match(try link("https://x.example/"), opener: nil).apps == [], "\(json)")
        }
        // A component's own opener overrides the defaults'.
        let over = try associationFile(#"{"applinks": {"defaults": {"opener": ["C"]}, "details": [{"appIDs": ["A"], "components": [{"opener": ["E"]}]}]}}"#)
        #expect(over.match(try link("https://x.example/"), opener: "E").apps == ["A"])
        #expect(over.match(try link("https://x.example/"), opener: "C").apps == [])
    }

    @Test("a rule naming a scheme sends that scheme's links; other schemes and web links are not its own")
    func schemeRule() throws {
        let owner = try ownership([("zoommtg", Self.zoommtg)])
        guard case .app("us.zoom.Zoom", let ownership) = owner.decide(schemeLink: "zoommtg://zoom.us/join?confno=123", opener: .pending) else {
            Issue.record("zoommtg"); return
        }
        #expect(ownership.source == .userRule("zoommtg.json"))
        #expect(owner.decide(schemeLink: "ZoomMtg:join", opener: .known(nil)) != .noRule)
        #expect(owner.decide(schemeLink: "slack://open", opener: .known(nil)) == .noRule)
        #expect(!owner.hasRules(forScheme: "https"))
        guard case .browser(.notClaimed) = owner.decide(try link("https://zoom.us/j/1")) else { Issue.record("web"); return }
    }

    @Test("a scheme rule matches the link's path, query and opener, and its exclude leaves the link to the scheme's handlers")
    func schemeRuleParts() throws {
        let json = #"""
            {"scheme": ["zoommtg", "zoomus"], "applinks": {"details": [{"appIDs": ["us.zoom.Zoom"], "components": [
              {"opener": ["org.example.Chat"], "exclude": true}, {"/": "/join", "?": {"confno": "?*"}}]}]}}
            """#
        let owner = try ownership([("meetings", json)])
        #expect(owner.decide(schemeLink: "zoomus://zoom.us/join?confno=1", opener: .known("org.example.Mail")).appID == "us.zoom.Zoom")
        #expect(owner.decide(schemeLink: "zoommtg://zoom.us/start", opener: .known(nil)) == .noRule)
        #expect(owner.decide(schemeLink: "zoommtg://zoom.us/join?confno=1", opener: .pending) == .needsOpener)
        guard case .handlers(.excluded) = owner.decide(schemeLink: "zoommtg://zoom.us/join?confno=1", opener: .known("org.example.Chat")) else {
            Issue.record("exclude"); return
        }
    }

    @Test("a rule's file name gives its hosts unless it names hosts or a scheme itself")
    func scope() throws {
        let plain = try associationFile(Self.shopFile)
        #expect(try UserRule(named: "*.corp.example", file: plain, source: "").scope == RuleScope(hosts: [DomainClaim("*.corp.example")]))
        #expect(throws: DomainClaimError.self) { try UserRule(named: "links from chat", file: plain, source: "") }
        #expect(try UserRule(named: "from-chat", file: associationFile(Self.fromChat), source: "").scope == RuleScope(everyHost: true))
        #expect(try UserRule(named: "x", file: associationFile(Self.zoommtg), source: "").scope == RuleScope(schemes: ["zoommtg"]))
    }

    @Test("mistakes are refused with their JSON path")
    func refusals() {
        #expect(refusal(#"{"applinks": {"details": [{"components": [{"opener": 3}]}]}}"#)
            == AssociationFileError(path: "$.applinks.details[0].components[0].opener", problem: "expected a string or an array of strings, found a number"))
        #expect(refusal(#"{"applinks": {"details": [{"components": [{"opener": ["a", 1]}]}]}}"#)?.path == "$.applinks.details[0].components[0].opener[1]")
        #expect(refusal(#"{"scheme": "https"}"#)?.problem.contains("\"hosts\"") == true)
        #expect(refusal(#"{"scheme": ["zoommtg", "no scheme"]}"#)?.path == "$.scheme[1]")
        #expect(refusal(#"{"hosts": ["zoom.us", "*zoom.us"]}"#)?.path == "$.hosts[1]")
        #expect(refusal(#"{"hosts": "zoom.us:443"}"#)?.path == "$.hosts")
    }

    @Test("custom-scheme links are split like web links: host after //, else all up to ? is the path")
    func customSchemeLinks() throws {
        let hierarchical = try #require(WebLink(customSchemeLink: "ZoomMtg://Zoom.US/join?confno=1#x"))
        #expect((hierarchical.scheme, hierarchical.host, hierarchical.path, hierarchical.query, hierarchical.fragment)
            == ("zoommtg", "zoom.us", "/join", "confno=1", "x"))
        let opaque = try #require(WebLink(customSchemeLink: "mailto:me@x.example?subject=hi"))
        #expect((opaque.host, opaque.path, opaque.query) == ("", "me@x.example", "subject=hi"))
        #expect(WebLink(customSchemeLink: "no scheme") == nil)
        #expect(WebLink(customSchemeLink: ":x") == nil)
    }
}

extension SchemeRuling {
    var appID: String? {
        if case .app(let id, _) = self { id } else { nil }
    }
}

extension Optional where Wrapped == OwnershipDecision {
    var appID: String? { self?.appID }
}
