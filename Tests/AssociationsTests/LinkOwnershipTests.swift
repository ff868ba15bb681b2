import Associations
import Testing

/// The decision: user rules first, then universal links, which need both sides to agree.
@Suite("Link ownership")
struct LinkOwnershipTests {
    static let shopFile = #"""
        {"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [
          {"/": "/account/*", "exclude": true}, {"/": "/product/*"}, {"/": "/cart"}]}]}}
        """#

    func ownership(
        associations: [String: String] = ["shop.example": Self.shopFile],
        claims: [String: [String]] = ["org.example.Shop": ["shop.example"]],
        userRules: [(String, String)] = []
    ) throws -> LinkOwnership {
        LinkOwnership(
            userRules: try userRules.map { hosts, json in
                UserRule(hosts: try DomainClaim(hosts), file: try associationFile(json), source: "~/.config/waypost/associations/\(hosts).json")
            },
            associations: try associations.mapValues { try associationFile($0) },
            claims: try claims.mapValues { try $0.map { try DomainClaim($0) } })
    }

    @Test("both sides agree: the association names the app and the app claims the domain")
    func agreement() throws {
        let decision = try ownership().decide(try link("https://shop.example/product/42"))
        guard case .app(let id, let ownership) = decision else { Issue.record("\(decision)"); return }
        #expect(id == "org.example.Shop")
        #expect(ownership.source == .association(domain: "shop.example"))
        #expect(ownership.match.details == 0 && ownership.match.component == 1)
        #expect(decision.description.contains("the association of shop.example"))
        #expect(decision.description.contains("details[0].components[1]"))
    }

    @Test("the hijack: an app claims a domain whose association does not name it")
    func hijack() throws {
        let owner = try ownership(claims: ["org.evil.Phish": ["shop.example"]])
        let decision = owner.decide(try link("https://shop.example/product/42"))
        #expect(decision == .browser(because: .notNamed(domain: "shop.example", named: ["org.example.Shop"], claimants: ["org.evil.Phish"])))
        #expect(decision.description.contains("names org.example.Shop, not org.evil.Phish"))
    }

    @Test("an association naming an app that does not claim the domain gives it nothing")
    func notClaimed() throws {
        let decision = try ownership(claims: [:]).decide(try link("https://shop.example/product/42"))
        #expect(decision == .browser(because: .notClaimed(host: "shop.example")))
    }

    @Test("a claim without a usable association goes to the browser until one is verified")
    func noAssociation() throws {
        let decision = try ownership(associations: [:]).decide(try link("https://shop.example/product/42"))
        #expect(decision == .browser(because: .noAssociation(domain: "shop.example", claimants: ["org.example.Shop"])))
        #expect(decision.description.contains("no association of shop.example"))
    }

    @Test("an http link is never a universal link, though both sides agree")
    func plainHTTP() throws {
        #expect(try ownership().decide(try link("http://shop.example/product/42")) == .browser(because: .plainHTTP))
    }

    @Test("user-info is never handed to an app")
    func userInfo() throws {
        #expect(try ownership().decide(try link("https://me@shop.example/product/42")) == .browser(because: .userInfo))
        // The host is what follows the last @: this link is evil.example's, which nobody claims.
        #expect(try ownership().decide(try link("https://shop.example@evil.example/product/42")) == .browser(because: .userInfo))
    }

    @Test("a port other than the scheme's own goes to the browser; :443 is the default")
    func ports() throws {
        let owner = try ownership()
        #expect(owner.decide(try link("https://shop.example:8443/product/42")) == .browser(because: .port(8443)))
        guard case .app = owner.decide(try link("https://shop.example:443/product/42")) else { Issue.record("443"); return }
    }

    @Test("upper-case hosts and a trailing dot decide as the plain host")
    func hostSpellings() throws {
        guard case .app = try ownership().decide(try link("https://SHOP.Example./product/42")) else { Issue.record("spelling"); return }
    }

    @Test("a host is never covered by substring")
    func substring() throws {
        let owner = try ownership(associations: ["shop.example": Self.shopFile, "myshop.example": Self.shopFile])
        #expect(owner.decide(try link("https://myshop.example/product/1")) == .browser(because: .notClaimed(host: "myshop.example")))
        #expect(owner.decide(try link("https://shop.example.evil/product/1")) == .browser(because: .notClaimed(host: "shop.example.evil")))
    }

    @Test("an excluded link and an unmatched link go to the browser, saying which")
    func excludedAndUnmatched() throws {
        let owner = try ownership()
        guard case .browser(.excluded(.association(domain: "shop.example"), let match)) = owner.decide(try link("https://shop.example/account/me"))
        else { Issue.record("not excluded"); return }
        #expect(match.component == 0)
        guard case .browser(.noMatch(domain: "shop.example", _)) = owner.decide(try link("https://shop.example/about")) else {
            Issue.record("not unmatched"); return
        }
    }

    @Test("*.x is judged by x's association, and covers subdomains only")
    func wildcardClaim() throws {
        let owner = try ownership(claims: ["org.example.Shop": ["*.shop.example"]])
        guard case .app(_, let ownership) = owner.decide(try link("https://eu.shop.example/product/1")) else {
            Issue.record("subdomain"); return
        }
        #expect(ownership.source == .association(domain: "shop.example"))
        #expect(owner.decide(try link("https://shop.example/product/1")) == .browser(because: .notClaimed(host: "shop.example")))
    }

    @Test("an app is judged by its most specific claim: *.users.x by users.x's file, not x's")
    func mostSpecificClaim() throws {
        let users = #"{"applinks": {"details": [{"appIDs": ["App"], "components": [{"/": "/profile/*"}]}]}}"#
        let root = #"{"applinks": {"details": [{"appIDs": ["App"], "components": [{"/": "*"}]}]}}"#
        let owner = try ownership(
            associations: ["users.example": users, "example": root], claims: ["App": ["*.example", "*.users.example"]])
        guard case .app(_, let ownership) = owner.decide(try link("https://emily.users.example/profile/x")) else {
            Issue.record("profile"); return
        }
        #expect(ownership.source == .association(domain: "users.example"))
        guard case .browser(.noMatch(domain: "users.example", _)) = owner.decide(try link("https://emily.users.example/other")) else {
            Issue.record("users.example's file decides alone"); return
        }
        guard case .app = owner.decide(try link("https://www.example/other")) else { Issue.record("root"); return }
    }

    @Test("two apps under two association domains: each by its own domain's file, the most specific first")
    func twoDomains() throws {
        let exact = #"{"applinks": {"details": [{"appIDs": ["A"], "components": [{"/": "/a/*"}]}]}}"#
        let root = #"{"applinks": {"details": [{"appIDs": ["B"], "components": [{"/": "*"}]}]}}"#
        let owner = try ownership(associations: ["shop.example": exact, "example": root], claims: ["A": ["shop.example"], "B": ["*.example"]])
        #expect(owner.decide(try link("https://shop.example/a/1")).appID == "A")
        #expect(owner.decide(try link("https://shop.example/b/1")).appID == "B")
    }

    @Test("user rules come first and need no agreement: work links in the work browser")
    func userRuleFirst() throws {
        let work = #"{"applinks": {"details": [{"appIDs": ["firefox-work"], "components": [{}]}]}}"#
        let owner = try ownership(userRules: [("*.corp.example", work), ("shop.example", work)])
        guard case .app("firefox-work", let ownership) = owner.decide(try link("https://wiki.corp.example/page")) else {
            Issue.record("work link"); return
        }
        #expect(ownership.source == .userRule("~/.config/waypost/associations/*.corp.example.json"))
        // Over an agreed association, and for http links too.
        #expect(owner.decide(try link("https://shop.example/product/42")).appID == "firefox-work")
        #expect(owner.decide(try link("http://wiki.corp.example/")).appID == "firefox-work")
    }

    @Test("a user rule's exclude sends the link to the browser; a rule that matches nothing passes it on")
    func userRuleExcludeAndPass() throws {
        let rule = #"{"applinks": {"details": [{"appIDs": ["other"], "components": [{"/": "/product/1", "exclude": true}, {"/": "/x"}]}]}}"#
        let owner = try ownership(userRules: [("shop.example", rule)])
        guard case .browser(.excluded(.userRule, _)) = owner.decide(try link("https://shop.example/product/1")) else {
            Issue.record("exclude"); return
        }
        #expect(owner.decide(try link("https://shop.example/product/2")).appID == "org.example.Shop")
        #expect(owner.decide(try link("https://shop.example/x")).appID == "other")
    }

    @Test("a text that is not a web link goes to the browser, with the reason")
    func unparsable() throws {
        guard case .browser(.unparsable(let error)) = try ownership().decide(url: "https://bücher.example/") else {
            Issue.record("parsed"); return
        }
        #expect(error.reason.contains("xn--"))
    }

    @Test("claimedDomains lists each claim with whether its association agrees")
    func claimedDomains() throws {
        let owner = try ownership(
            associations: ["shop.example": Self.shopFile],
            claims: ["org.example.Shop": ["shop.example", "*.shop.example", "other.example"], "org.evil.Phish": ["shop.example"]])
        let listed = owner.claimedDomains.map { "\($0.claim) \($0.appID) \($0.agreement)" }
        #expect(listed == [
            "other.example org.example.Shop noAssociation",
            "*.shop.example org.example.Shop named",
            "shop.example org.evil.Phish notNamed",
            "shop.example org.example.Shop named",
        ])
    }

    @Test("ownedDomains: agreed claims and user rules naming an entry; not hijacks, unverified claims or rules naming no app")
    func ownedDomains() throws {
        let owner = try ownership(
            associations: ["shop.example": Self.shopFile],
            claims: ["org.example.Shop": ["shop.example", "*.shop.example", "other.example"], "org.evil.Phish": ["shop.example", "bank.example"]],
            userRules: [
                ("*.corp.example", #"{"applinks": {"details": [{"appIDs": ["org.example.WorkBrowser"], "components": [{"/": "*"}]}]}}"#),
                ("news.example", #"{"applinks": {"details": [{"appIDs": [], "components": [{"/": "*"}]}]}}"#),
            ])
        #expect(owner.ownedDomains == ["*.corp.example", "*.shop.example", "shop.example"])
    }
}

extension OwnershipDecision {
    /// The app a decision gives the link, if any.
    var appID: String? {
        if case .app(let id, _) = self { id } else { nil }
    }
}
