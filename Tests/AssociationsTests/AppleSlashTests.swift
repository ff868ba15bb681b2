import Associations
import Testing

/// Paths compared as Apple's matcher compares them: a pattern without its leading slash, a
/// trailing slash on either side, a doubled leading slash in the link.
@Suite struct AppleSlashTests {
    @Test("a path pattern written without its leading slash is read with it", arguments: [
        ("buy/*", "/buy/shoes", true), ("a/b", "/a/b", true), ("a/b", "/x/a/b", false), ("buy/*", "/buy", true),
    ])
    func noLeadingSlash(pattern: String, path: String, expected: Bool) throws {
        #expect(try matches(components(#"[{"/": "\#(pattern)"}]"#), "https://x.example" + path) == expected)
        let legacy = try associationFile(#"{"applinks": {"details": [{"appIDs": ["A"], "paths": ["\#(pattern)"]}]}}"#)
        #expect(try apps(legacy, "https://x.example" + path) == (expected ? ["A"] : []))
    }

    @Test("a trailing slash on the pattern or the path does not matter; /buy/* matches /buy", arguments: [
        ("/buy/*", "/buy", true), ("/buy/*", "/buy/", true), ("/buy/", "/buy", true), ("/buy", "/buy/", true),
        ("/buy/*", "/buyer", false), ("/buy/", "/buy/x", false), ("/", "/", true), ("/*", "/", true),
    ])
    func trailingSlash(pattern: String, path: String, expected: Bool) throws {
        #expect(try matches(components(#"[{"/": "\#(pattern)"}]"#), "https://x.example" + path) == expected, "\(pattern) against \(path)")
    }

    @Test("a doubled leading slash in the link is one")
    func doubledLeadingSlash() throws {
        let file = try components(#"[{"/": "/buy/*"}]"#)
        #expect(try matches(file, "https://x.example//buy/shoes"))
        #expect(try matches(file, "https://x.example///buy"))
        #expect(try !matches(file, "https://x.example/a//buy"))
    }

    @Test("the one-component trick: NOT /*/?* then /*/ matches /anypath/ and not /anypath/more")
    func oneComponentTrick() throws {
        let file = try associationFile(#"{"applinks": {"details": [{"appIDs": ["A"], "paths": ["NOT /*/?*", "/*/"]}]}}"#)
        #expect(try apps(file, "https://x.example/anypath/") == ["A"])
        #expect(try apps(file, "https://x.example/anypath/more").isEmpty)
    }

    @Test("a query item whose pattern is not a string is ignored, with a warning naming it, as Apple's matcher ignores it")
    func nonStringQueryItem() throws {
        let file = try associationFile(
            #"{"applinks": {"details": [{"appIDs": ["A"], "components": [{"/": "/help/*", "?": {"id": 1, "topic": "?*", "lang": null}}]}]}}"#)
        #expect(try apps(file, "https://x.example/help/1?topic=a") == ["A"])
        #expect(try apps(file, "https://x.example/help/1").isEmpty)
        #expect(file.warnings.map(\.path) == [#"$.applinks.details[0].components[0]["?"].id"#, #"$.applinks.details[0].components[0]["?"].lang"#])
        #expect(file.warnings.first?.problem.contains("expected a string, found a number; the query item is ignored") == true)
    }
}
