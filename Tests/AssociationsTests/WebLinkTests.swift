import Associations
import Testing

/// How a link is split, and the bad input each part refuses or normalises.
@Suite("Web links")
struct WebLinkTests {
    @Test("a link is split into scheme, host, port, path, query and fragment")
    func parts() throws {
        let link = try WebLink("https://shop.example:8443/a/b?x=1&y#top")
        #expect(link.scheme == "https")
        #expect(link.host == "shop.example")
        #expect(link.port == 8443)
        #expect(!link.hasUserInfo)
        #expect(link.path == "/a/b")
        #expect(link.query == "x=1&y")
        #expect(link.fragment == "top")
    }

    @Test("no ? or # means no query or fragment; an empty one is empty")
    func absentAndEmpty() throws {
        let bare = try WebLink("https://shop.example/a")
        #expect(bare.query == nil && bare.fragment == nil)
        let empty = try WebLink("https://shop.example/a?#")
        #expect(empty.query == "" && empty.fragment == "")
        #expect(try WebLink("https://shop.example/a#f?not-a-query").query == nil)
    }

    @Test("an empty path is /, as browsers write it")
    func emptyPath() throws {
        #expect(try WebLink("https://shop.example").path == "/")
        #expect(try WebLink("https://shop.example?q").path == "/")
    }

    @Test("upper-case schemes and hosts are lower-cased; the path keeps its case")
    func upperCase() throws {
        let link = try WebLink("HTTPS://Shop.EXAMPLE/Cart")
        #expect(link.scheme == "https" && link.host == "shop.example" && link.path == "/Cart")
    }

    @Test("one trailing dot of the host is removed; two leave an empty label, refused")
    func trailingDot() throws {
        #expect(try WebLink("https://shop.example./").host == "shop.example")
        #expect(throws: WebLinkError.self) { try WebLink("https://shop.example../") }
    }

    @Test("user-info is kept as a fact, and the host is what follows the last @")
    func userInfo() throws {
        let link = try WebLink("https://bank.example@evil.example/login")
        #expect(link.hasUserInfo)
        #expect(link.host == "evil.example")
        #expect(try WebLink("https://user:pass@shop.example:443/").host == "shop.example")
    }

    @Test("ports: the scheme's own counts as the default; others are kept; bad ones refused")
    func ports() throws {
        #expect(try WebLink("https://shop.example:443/").hasDefaultPort)
        #expect(try WebLink("http://shop.example:80/").hasDefaultPort)
        #expect(try WebLink("https://shop.example:/").port == nil)
        #expect(try !WebLink("https://shop.example:8443/").hasDefaultPort)
        #expect(try !WebLink("https://shop.example:80/").hasDefaultPort)
        for bad in ["https://shop.example:65536/", "https://shop.example:-1/", "https://shop.example:8a/"] {
            #expect(throws: WebLinkError.self, "\(bad)") { try WebLink(bad) }
        }
    }

    @Test("the path, query and fragment are kept encoded, non-ASCII encoded and escapes upper case")
    func encoding() throws {
        let link = try WebLink("https://shop.example/caf%c3%a9/thé?q=ü#ß")
        #expect(link.path == "/caf%C3%A9/th%C3%A9")
        #expect(link.query == "q=%C3%BC")
        #expect(link.fragment == "%C3%9F")
        #expect(try WebLink("https://shop.example/100%").path == "/100%")
    }

    @Test("refused with a reason that names the link", arguments: [
        ("", "empty"),
        ("shop.example/a", "no scheme"),
        ("mailto:someone@shop.example", "not a web link"),
        ("myapp://shop.example/", "not a web link"),
        ("https:shop.example", "not followed by //"),
        ("https:///path", "no host"),
        ("https://bücher.example/", "xn--"),
        ("https://shop%2Eexample/", "percent-encoded"),
        ("https://shop.example/a b", "space"),
        ("https://shop..example/", "empty label"),
        ("https://.shop.example/", "empty label"),
        ("https://shop!.example/", "\"!\""),
        ("https://shop.example\\@evil.example/", "backslash"),
        ("https://[::1/", "no closing ]"),
        ("https://[nothex]/", "not an IPv6 address"),
    ])
    func refused(url: String, reason: String) {
        do {
            _ = try WebLink(url)
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.url == url)
            #expect(error.reason.contains(reason), "\(error)")
        }
    }

    @Test("an IPv6 host keeps its brackets; its port is read after them")
    func ipv6() throws {
        let link = try WebLink("https://[2001:DB8::1]:8443/x")
        #expect(link.host == "[2001:db8::1]" && link.port == 8443)
    }

    @Test("an xn-- host is an ordinary ASCII host")
    func punycode() throws {
        #expect(try WebLink("https://XN--BCHER-KVA.example/").host == "xn--bcher-kva.example")
    }

    @Test("web links and custom-scheme links are refused by the one syntax every link passes, for its reason", arguments: [
        "", "no scheme here", "1http://x", "https://a b", "myapp://a\tb", "https://x/\u{7F}",
        "https://shop.example/" + String(repeating: "a", count: URISyntax.maximumBytes),
    ])
    func oneSyntax(url: String) {
        let syntax = #expect(throws: URISyntaxError.self) { try URISyntax.schemeEnd(of: url) }
        let web = #expect(throws: WebLinkError.self) { try WebLink(url) }
        #expect(web?.reason == syntax?.reason)
        #expect(WebLink(customSchemeLink: url) == nil)
    }

    @Test("links larger than 64 KiB are refused")
    func huge() {
        let url = "https://shop.example/" + String(repeating: "a", count: URISyntax.maximumBytes)
        #expect(throws: WebLinkError.self) { try WebLink(url) }
    }
}
