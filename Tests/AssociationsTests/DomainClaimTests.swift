import Associations
import Testing

/// `X-Waypost-Associated-Domains=` entries: what they cover, and whose file decides.
@Suite("Domain claims")
struct DomainClaimTests {
    @Test("a plain claim covers exactly its host, never by substring")
    func exact() throws {
        let claim = try DomainClaim("shop.example")
        #expect(!claim.includesSubdomains)
        #expect(claim.covers(host: "shop.example"))
        for other in ["www.shop.example", "myshop.example", "shop.example.evil", "hop.example", "example", "shop.exampl"] {
            #expect(!claim.covers(host: other), "\(other)")
        }
    }

    @Test("*. covers subdomains at any depth, and not the domain itself (Apple: the period after the asterisk)")
    func wildcard() throws {
        let claim = try DomainClaim("*.shop.example")
        #expect(claim.includesSubdomains && claim.domain == "shop.example")
        #expect(claim.covers(host: "www.shop.example"))
        #expect(claim.covers(host: "a.b.shop.example"))
        for other in ["shop.example", "myshop.example", ".shop.example", "shop.example.evil", "wwwshop.example"] {
            #expect(!claim.covers(host: other), "\(other)")
        }
    }

    @Test("the association domain of *.x is x: the root domain's file decides (TN3155)")
    func associationDomain() throws {
        #expect(try DomainClaim("*.shop.example").associationDomain == "shop.example")
        #expect(try DomainClaim("shop.example").associationDomain == "shop.example")
    }

    @Test("claims are lower-cased and lose one trailing dot; hosts are compared the same way")
    func normalised() throws {
        let claim = try DomainClaim("Shop.Example.")
        #expect(claim.domain == "shop.example")
        #expect(claim.description == "shop.example")
        #expect(claim.covers(host: "SHOP.example."))
        #expect(try DomainClaim("*.Shop.Example").description == "*.shop.example")
    }

    @Test("refused with a reason", arguments: [
        ("", "names no domain"),
        ("*.", "names no domain"),
        ("bücher.example", "xn--"),
        ("shop.example:8443", "without a port"),
        ("shop.example?mode=developer", "?mode="),
        ("*shop.example", "only open the claim"),
        ("shop.*.example", "only open the claim"),
        ("shop..example", "empty label"),
        ("shop example", "holds a character"),
        ("-shop.example", "starts or ends with -"),
        ("192.168.0.1", "not an IP address"),
        ("https://shop.example", "without a port"),
    ])
    func refused(text: String, reason: String) {
        do {
            _ = try DomainClaim(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.claim == text)
            #expect(error.reason.contains(reason), "\(error)")
        }
    }
}
