import Testing

@testable import Dispatcher

/// The checks every opened link passes before routing (no I/O).
@Suite struct URIGrammarTests {
    @Test func theSchemeComesBackLowercasedWithItsDigitsAndPunctuation() throws {
        #expect(try URIGrammar.scheme(of: "CoNtAcTs+X-1.2://a/B?C=D") == "contacts+x-1.2")
        #expect(try URIGrammar.scheme(of: "mailto:someone@example.com") == "mailto")
        #expect(try URIGrammar.scheme(of: "x:") == "x")
        #expect(try URIGrammar.scheme(of: "https://例え.jp/ü") == "https")
    }

    @Test(arguments: [
        ("", "empty"), (":path", "no scheme"), ("no scheme here", "no scheme"), ("1http://x", "is not a URI scheme"),
        ("ht_tp://x", "is not a URI scheme"), ("é://x", "is not a URI scheme"),
        ("contacts://a b", "0x20"), ("contacts://a\tb", "0x09"), ("contacts://a\u{7F}", "0x7F"), ("x:\u{0}", "0x00"),
    ])
    func malformedLinksAreRefusedSayingWhy(uri: String, reason: String) {
        let error = #expect(throws: DispatchError.self) { try URIGrammar.scheme(of: uri) }
        guard case .invalidURI(let refused, let why)? = error else {
            Issue.record("expected invalidURI, got \(String(describing: error))")
            return
        }
        #expect(refused == uri)
        #expect(why.contains(reason), "\(why)")
    }
}
