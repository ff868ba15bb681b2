// One file: the rules of the format, sentence by sentence, one test each, so that
// a missing rule shows as a gap here.
import Associations
import Testing

/// One test per sentence of the format's rules.
@Suite("Matching rules")
struct MatchingRuleTests {
    // MARK: Levels and entries

    @Test("applinks.defaults apply to every entry's components")
    func fileDefaults() throws {
        let file = try associationFile("""
            {"applinks": {"defaults": {"caseSensitive": false}, "details": [
              {"appIDs": ["A"], "components": [{"/": "/a/*"}]},
              {"appIDs": ["B"], "components": [{"/": "/b/*"}]}]}}
            """)
        #expect(try apps(file, "https://x.example/A/1") == ["A"])
        #expect(try apps(file, "https://x.example/B/1") == ["B"])
    }

    @Test("an entry's defaults override the file's, and a component's own keys override both")
    func moreSpecificLevelOverrides() throws {
        let file = try associationFile("""
            {"applinks": {"defaults": {"caseSensitive": false}, "details": [
              {"appIDs": ["A"], "defaults": {"caseSensitive": true}, "components": [{"/": "/a/*"}, {"/": "/c/*", "caseSensitive": false}]},
              {"appIDs": ["B"], "components": [{"/": "/b/*"}]}]}}
            """)
        #expect(try apps(file, "https://x.example/A/1").isEmpty)  // the entry says case-sensitive
        #expect(try apps(file, "https://x.example/a/1") == ["A"])
        #expect(try apps(file, "https://x.example/C/1") == ["A"])  // the component says otherwise
        #expect(try apps(file, "https://x.example/B/1") == ["B"])  // the file's default still holds here
    }

    @Test("defaults may set any component key, as Apple's 'subclass of components' says")
    func defaultsCarryPatterns() throws {
        let file = try components(##"[{"#": "top"}]"##, entryDefaults: #"{"/": "/app/*"}"#)
        #expect(try matches(file, "https://x.example/app/1#top"))
        #expect(try !matches(file, "https://x.example/web/1#top"))
    }

    @Test("appIDs names the entry's apps")
    func appIDs() throws {
        let file = try associationFile(#"{"applinks": {"details": [{"appIDs": ["org.example.Shop", "org.example.Shop.Beta"], "components": [{}]}]}}"#)
        #expect(try apps(file, "https://shop.example/") == ["org.example.Shop", "org.example.Shop.Beta"])
        #expect(file.appIDs == ["org.example.Shop", "org.example.Shop.Beta"])
    }

    @Test("appID names one app")
    func appID() throws {
        let file = try associationFile(#"{"applinks": {"details": [{"appID": "org.example.Shop", "components": [{}]}]}}"#)
        #expect(try apps(file, "https://shop.example/") == ["org.example.Shop"])
    }

    @Test("appIDs overrides appID, even when empty")
    func appIDsOverridesAppID() throws {
        let both = try associationFile(#"{"applinks": {"details": [{"appID": "X", "appIDs": ["Y"], "components": [{}]}]}}"#)
        #expect(try apps(both, "https://shop.example/") == ["Y"])
        let empty = try associationFile(#"{"applinks": {"details": [{"appID": "X", "appIDs": [], "components": [{}]}]}}"#)
        let match = empty.match(try link("https://shop.example/"))
        #expect(match.apps.isEmpty)
        #expect(match.details == 0)  // it matched, and names no app
        #expect(match.reason.contains("names no app"))
        #expect(empty.appIDs.isEmpty)
    }

    // MARK: Components

    @Test("/ is matched against the path")
    func path() throws {
        let file = try components(#"[{"/": "/orders/?*"}]"#)
        #expect(try matches(file, "https://x.example/orders/42?x=1#y"))
        #expect(try !matches(file, "https://x.example/orders/"))
    }

    @Test("a string ? is matched against the whole query, not a part of it")
    func wholeQuery() throws {
        let file = try components(#"[{"?": "ref=mail"}]"#)
        #expect(try matches(file, "https://x.example/?ref=mail"))
        #expect(try !matches(file, "https://x.example/?ref=mail&x=1"))
        #expect(try !matches(file, "https://x.example/?x=1&ref=mail"))
        #expect(try !matches(file, "https://x.example/"))
    }

    @Test("a dictionary ? matches query items by name")
    func queryItems() throws {
        let file = try components(#"[{"?": {"id": "?*", "view": "full"}}]"#)
        #expect(try matches(file, "https://x.example/?view=full&id=7"))
        #expect(try !matches(file, "https://x.example/?view=short&id=7"))
    }

    @Test("every instance of a repeated query item must match")
    func repeatedItems() throws {
        let file = try components(#"[{"?": {"tag": "a*"}}]"#)
        #expect(try matches(file, "https://x.example/?tag=ab&tag=ac"))
        #expect(try !matches(file, "https://x.example/?tag=ab&tag=b"))
    }

    @Test("query items the dictionary does not name are ignored")
    func extraItems() throws {
        let file = try components(#"[{"?": {"id": "7"}}]"#)
        #expect(try matches(file, "https://x.example/?utm_source=x&id=7&session=y"))
    }

    @Test("an absent query item is the empty string")
    func absentItem() throws {
        let optional = try components(#"[{"?": {"page": "*"}}]"#)
        #expect(try matches(optional, "https://x.example/"))
        let required = try components(#"[{"?": {"page": "?*"}}]"#)
        #expect(try !matches(required, "https://x.example/?other=1"))
        let empty = try components(#"[{"?": {"page": ""}}]"#)
        #expect(try matches(empty, "https://x.example/?other=1"))
    }

    @Test("a query item without a value is the empty string")
    func itemWithoutValue() throws {
        let file = try components(#"[{"?": {"flag": ""}}]"#)
        #expect(try matches(file, "https://x.example/?flag"))
        #expect(try matches(file, "https://x.example/?flag="))
        #expect(try !matches(file, "https://x.example/?flag=on"))
    }

    @Test("# is matched against the fragment")
    func fragment() throws {
        let file = try components(##"[{"#": "section-?"}]"##)
        #expect(try matches(file, "https://x.example/page#section-2"))
        #expect(try !matches(file, "https://x.example/page#section-22"))
        #expect(try !matches(file, "https://x.example/page"))
    }

    @Test("/, ? and # default to *: an empty component matches every link")
    func defaultsToEverything() throws {
        let file = try components("[{}]")
        for url in ["https://x.example", "https://x.example/a/b?c=d#e", "https://x.example/?#"] {
            #expect(try matches(file, url), "\(url)")
        }
    }

    @Test("a component matches only when all its keys match")
    func allKeys() throws {
        let file = try components(##"[{"/": "/a", "?": "q", "#": "f"}]"##)
        #expect(try matches(file, "https://x.example/a?q#f"))
        #expect(try !matches(file, "https://x.example/b?q#f"))
        #expect(try !matches(file, "https://x.example/a?r#f"))
        #expect(try !matches(file, "https://x.example/a?q#g"))
    }

    @Test("comment is ignored, whatever it holds")
    func comment() throws {
        let file = try components(#"[{"/": "/a", "comment": "only /a"}, {"/": "/b", "comment": {"not": "text"}}]"#)
        #expect(try matches(file, "https://x.example/a"))
        #expect(try matches(file, "https://x.example/b"))
    }

    // MARK: Order

    @Test("components are tried in order, and the first match wins")
    func firstMatchWins() throws {
        let file = try components(#"[{"/": "/a/*"}, {"/": "/a/b"}]"#)
        #expect(file.match(try link("https://x.example/a/b")).component == 0)
    }

    @Test("an exclude match means no app, though a later component would match")
    func excludeMeansNoApp() throws {
        let file = try associationFile("""
            {"applinks": {"details": [
              {"appIDs": ["A"], "components": [{"/": "/private/*", "exclude": true}, {"/": "*"}]},
              {"appIDs": ["B"], "components": [{"/": "*"}]}]}}
            """)
        let match = file.match(try link("https://x.example/private/x"))
        #expect(match.apps.isEmpty)
        #expect(match.excluded)
        #expect(match.details == 0 && match.component == 0)
        #expect(try apps(file, "https://x.example/public") == ["A"])
    }

    @Test("a later details entry is consulted only when no earlier one matched")
    func laterEntries() throws {
        let file = try associationFile("""
            {"applinks": {"details": [
              {"appIDs": ["A"], "components": [{"/": "/a/*"}]},
              {"appIDs": ["B"], "components": [{"/": "*"}]}]}}
            """)
        #expect(try apps(file, "https://x.example/a/1") == ["A"])
        let other = file.match(try link("https://x.example/b/1"))
        #expect(other.apps == ["B"] && other.details == 1 && other.component == 0)
    }

    // MARK: caseSensitive, percentEncoded

    @Test("caseSensitive defaults to true")
    func caseSensitiveByDefault() throws {
        let file = try components(#"[{"/": "/Shop/*"}]"#)
        #expect(try matches(file, "https://x.example/Shop/1"))
        #expect(try !matches(file, "https://x.example/shop/1"))
    }

    @Test("caseSensitive false folds the path, the query, its item names and the fragment")
    func caseInsensitive() throws {
        let file = try components(##"[{"/": "/shop/*", "?": {"ID": "ab?"}, "#": "top", "caseSensitive": false}]"##)
        #expect(try matches(file, "https://x.example/SHOP/x?id=ABC#TOP"))
        #expect(try !matches(file, "https://x.example/SHOP/x?id=ABCD#TOP"))
    }

    @Test("percentEncoded defaults to true: the pattern is compared with the link as encoded")
    func percentEncodedByDefault() throws {
        let file = try components(#"[{"/": "/a%20b"}]"#)
        #expect(try matches(file, "https://x.example/a%20b"))
        let decoded = try components(#"[{"/": "/a b"}]"#)
        #expect(try matches(decoded, "https://x.example/a%20b"))  // a raw space in the pattern is written encoded
        let slash = try components(#"[{"/": "/a/b"}]"#)
        #expect(try !matches(slash, "https://x.example/a%2Fb"))  // an encoded / is not a /
    }

    @Test("escapes compare whatever the case of their hex digits")
    func escapeCase() throws {
        let file = try components(#"[{"/": "/caf%c3%a9"}]"#)
        #expect(try matches(file, "https://x.example/caf%C3%A9"))
        #expect(try matches(file, "https://x.example/café"))
    }

    @Test("percentEncoded false decodes the link's parts before matching")
    func percentDecoded() throws {
        let file = try components(#"[{"/": "/a b/*", "?": {"q": "x&y"}, "percentEncoded": false}]"#)
        #expect(try matches(file, "https://x.example/a%20b/1?q=x%26y"))
        #expect(try !matches(file, "https://x.example/a%20b/1?q=x&y"))
        let literalPercent = try components(#"[{"/": "/100%", "percentEncoded": false}]"#)
        #expect(try matches(literalPercent, "https://x.example/100%25"))
    }

    @Test("percentEncoded, like caseSensitive, is overridden by the more specific level")
    func percentEncodedLevels() throws {
        let file = try components(#"[{"/": "/a b"}, {"/": "/c%20d", "percentEncoded": true}]"#, defaults: #"{"percentEncoded": false}"#)
        #expect(file.match(try link("https://x.example/a%20b")).component == 0)
        #expect(file.match(try link("https://x.example/c%20d")).component == 1)
    }

    // MARK: Substitution variables

    @Test("a file's substitution variable stands for any one of its values")
    func fileVariable() throws {
        let file = try components(#"[{"/": "/menu/$(food)"}]"#, variables: #"{"food": ["pizza", "sushi*"]}"#)
        #expect(try matches(file, "https://x.example/menu/pizza"))
        #expect(try matches(file, "https://x.example/menu/sushi-rolls"))
        #expect(try !matches(file, "https://x.example/menu/pasta"))
    }

    @Test("the predefined variables mean what Apple's documentation lists", arguments: [
        ("alpha", ["a", "Z"], ["1", "é", "-"]),
        ("upper", ["A", "Z"], ["a", "1"]),
        ("lower", ["a", "z"], ["A", "1"]),
        ("alnum", ["a", "Z", "0", "9"], ["-", "_"]),
        ("digit", ["0", "9"], ["a", "x"]),
        ("xdigit", ["0", "9", "a", "F"], ["g", "G"]),
        ("region", ["US", "CA", "UK", "GB", "FR"], ["us", "USA", "419", "ZZ"]),
        ("lang", ["en", "zh", "ar", "fil"], ["EN", "english", "q"]),
    ])
    func predefined(name: String, matching: [String], notMatching: [String]) throws {
        let file = try components(#"[{"/": "/$(\#(name))/"}]"#)
        for value in matching { #expect(try matches(file, "https://x.example/\(value)/"), "\(value)") }
        for value in notMatching { #expect(try !matches(file, "https://x.example/\(value)/"), "\(value)") }
    }

    @Test("a file's variable of a predefined name is the file's")
    func redefinedVariable() throws {
        let file = try components(#"[{"/": "/$(lang)/"}]"#, variables: #"{"lang": ["klingon"]}"#)
        #expect(try matches(file, "https://x.example/klingon/"))
        #expect(try !matches(file, "https://x.example/en/"))
    }

    @Test("variables follow the component's caseSensitive setting")
    func variableCase() throws {
        let file = try components(#"[{"/": "/$(region)/", "caseSensitive": false}]"#)
        #expect(try matches(file, "https://x.example/us/"))
    }

    @Test("an undefined variable makes its component match nothing, with a warning naming its path")
    func undefinedVariable() throws {
        let file = try components(#"[{"/": "/$(nope)/*"}, {"/": "/ok/*"}]"#)
        #expect(file.warnings.count == 1)
        #expect(file.warnings.first?.path == #"$.applinks.details[0].components[0]["/"]"#)
        #expect(file.warnings.first?.problem.contains("$(nope)") == true)
        #expect(try !matches(file, "https://x.example/$(nope)/x"))
        #expect(try matches(file, "https://x.example/ok/x"))
    }

    @Test("$( without a closing ) is text")
    func unclosedVariable() throws {
        let file = try components(#"[{"/": "/price$(/*"}]"#)
        #expect(try matches(file, "https://x.example/price$(/x"))
        #expect(file.warnings.isEmpty)
    }

    // MARK: Legacy paths

    @Test("an entry without components uses paths: the path only, case-sensitive, NOT excluding")
    func legacy() throws {
        let file = try associationFile("""
            {"applinks": {"defaults": {"caseSensitive": false}, "details": [
              {"appID": "A", "paths": ["NOT /admin/*", "/shop/*"]}]}}
            """)
        #expect(try apps(file, "https://x.example/shop/1?x=y#z") == ["A"])
        #expect(try apps(file, "https://x.example/SHOP/1").isEmpty)
        #expect(file.match(try link("https://x.example/admin/1")).excluded)
        let queryInPattern = try associationFile(#"{"applinks": {"details": [{"appID": "A", "paths": ["/s?q=1"]}]}}"#)
        #expect(try apps(queryInPattern, "https://x.example/s?q=1").isEmpty)  // the path is "/s"
    }

    @Test("paths is ignored when the entry has components, even an empty list")
    func legacyIgnored() throws {
        let file = try associationFile(#"{"applinks": {"details": [{"appID": "A", "components": [], "paths": ["*"]}]}}"#)
        #expect(try apps(file, "https://x.example/").isEmpty)
    }

    // MARK: Nothing matching

    @Test("no match names no entry, and says why")
    func noMatch() throws {
        let match = try components(#"[{"/": "/a"}]"#).match(try link("https://x.example/b"))
        #expect(match.apps.isEmpty && match.details == nil && match.component == nil && !match.excluded)
        #expect(match.reason.contains("no component matches"))
        let empty = try associationFile(#"{"webcredentials": {"apps": ["A"]}}"#)
        #expect(empty.match(try link("https://x.example/")).reason.contains("no applinks"))
    }
}
