import AssociationSources
import Testing

@Suite struct AssociatedDomainTests {
    @Test func aHostNameIsLowercasedWithoutItsRootDot() throws {
        #expect(try AssociatedDomain("Shop.Example.").name == "shop.example")
        #expect(try AssociatedDomain("xn--bcher-kva.example").name == "xn--bcher-kva.example")
        #expect(try AssociatedDomain("a-1.b2.example").associationFileURL == "https://a-1.b2.example/.well-known/apple-app-site-association")
    }

    @Test(arguments: [
        ("", "it is empty"),
        ("shop.example:443", "':' cannot appear in a host name"),
        ("user@shop.example", "'@' cannot appear in a host name"),
        ("shop.example/x", "'/' cannot appear in a host name"),
        ("../etc", "it has an empty label"),
        ("shop..example", "it has an empty label"),
        ("*.shop.example", "'*' cannot appear in a host name"),
        ("-shop.example", "the label '-shop' starts or ends with '-'"),
        ("bücher.example", "it is not ASCII: give an internationalised name in its xn-- form"),
        ("127.0.0.1", "it is an IP address, not a domain"),
        (String(repeating: "a", count: 64) + ".example", "the label '\(String(repeating: "a", count: 64))' is longer than 63 characters"),
        (Array(repeating: "abcdefghi", count: 26).joined(separator: "."), "it is longer than 253 characters"),
    ])
    func anythingElseIsRefusedWithTheReason(text: String, problem: String) {
        let error = #expect(throws: DomainNameError.self) { try AssociatedDomain(text) }
        #expect(error?.problem == problem)
        #expect(error?.domain == text)
    }
}
