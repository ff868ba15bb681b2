import Associations
import Testing

/// The examples of Apple's documentation (applinks, applinks.Details, applinks.Details.Components,
/// its Query, applinks.SubstitutionVariables, WWDC19 and WWDC20 sessions), with the app ids as
/// Apple wrote them: the comparison is exact, whatever the form of an id.
@Suite("Apple's documented examples")
struct AppleExampleTests {
    static let app = "ABCDE12345.com.example.app"
    static let app2 = "ABCDE12345.com.example.app2"

    /// applinks: the universal links section of an association file.
    let applinks = """
        {"applinks": {"details": [{
          "appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app2"],
          "components": [
            {"#": "no_universal_links", "exclude": true,
             "comment": "Matches any URL whose fragment equals no_universal_links and instructs the system not to open it as a universal link"},
            {"/": "/buy/*", "comment": "Matches any URL whose path starts with /buy/"},
            {"/": "/help/website/*", "exclude": true,
             "comment": "Matches any URL whose path starts with /help/website/ and instructs the system not to open it as a universal link"},
            {"/": "/help/*", "?": {"articleNumber": "????"},
             "comment": "Matches any URL whose path starts with /help/ and that has a query item with name 'articleNumber' and a value of exactly 4 characters"}
          ]}]}}
        """

    @Test("applinks: a path starting with /buy/ goes to both apps")
    func buy() throws {
        let file = try associationFile(applinks)
        let match = file.match(try link("https://www.example.com/buy/shoes"))
        #expect(match.apps == [Self.app, Self.app2])
        #expect(match.details == 0 && match.component == 1)
        #expect(!match.excluded)
        #expect(match.reason.contains("details[0].components[1]"))
    }

    @Test("applinks: the fragment no_universal_links excludes any URL, even under /buy/")
    func noUniversalLinks() throws {
        let match = try associationFile(applinks).match(try link("https://www.example.com/buy/shoes#no_universal_links"))
        #expect(match.apps.isEmpty)
        #expect(match.excluded)
        #expect(match.component == 0)
        #expect(match.reason.contains("excludes"))
    }

    @Test("applinks: /help/website/ is excluded before /help/* is reached")
    func helpWebsite() throws {
        let match = try associationFile(applinks).match(try link("https://www.example.com/help/website/faq?articleNumber=1234"))
        #expect(match.excluded)
        #expect(match.component == 2)
    }

    @Test("applinks: /help/ needs an articleNumber of exactly four characters")
    func helpArticle() throws {
        let file = try associationFile(applinks)
        #expect(try apps(file, "https://www.example.com/help/shoes?articleNumber=1234") == [Self.app, Self.app2])
        #expect(try apps(file, "https://www.example.com/help/shoes?articleNumber=123").isEmpty)
        #expect(try apps(file, "https://www.example.com/help/shoes").isEmpty)
        #expect(file.match(try link("https://www.example.com/help/shoes")).details == nil)
    }

    @Test("applinks.Details: /buy/* with fragment my_great_product_123, ignoring case by the entry's defaults")
    func detailsExample() throws {
        let file = try associationFile("""
            {"applinks": {"details": [{
              "appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app2"],
              "components": [{"/": "/buy/*", "#": "my_great_product_123",
                "comment": "Matches any URL whose path starts with /buy/ and fragment equals my_great_product_123, ignoring case"}],
              "defaults": {"caseSensitive": false}}]}}
            """)
        #expect(try apps(file, "https://example.com/BUY/x#My_Great_Product_123") == [Self.app, Self.app2])
        #expect(try apps(file, "https://example.com/buy/x#other").isEmpty)
        #expect(try apps(file, "https://example.com/sell/x#my_great_product_123").isEmpty)
    }

    @Test("applinks.Details.Components.Query: productID 12345")
    func queryExample() throws {
        let file = try components(#"[{"?": {"productID": "12345"}}]"#)
        #expect(try matches(file, "https://example.com/p?productID=12345"))
        #expect(try !matches(file, "https://example.com/p?productID=123456"))
        #expect(try !matches(file, "https://example.com/p?productid=12345"))
    }

    @Test("WWDC19: articleNumber of four characters and an articleName of one or more")
    func wwdc19Query() throws {
        let file = try components(#"[{"/": "/help/*", "?": {"articleNumber": "????", "articleName": "?*"}}]"#)
        #expect(try matches(file, "https://example.com/help/x?articleNumber=1234&articleName=shoes"))
        #expect(try !matches(file, "https://example.com/help/x?articleNumber=1234&articleName="))
        #expect(try !matches(file, "https://example.com/help/x?articleNumber=1234"))
    }

    @Test("applinks.SubstitutionVariables: /$(lang)_$(region)/$(food)/")
    func substitutionExample() throws {
        let file = try components(
            #"[{"/": "/$(lang)_$(region)/$(food)/"}]"#, variables: #"{"food": ["burrito", "pizza", "sushi", "samosa"]}"#)
        #expect(try matches(file, "https://example.com/en_US/sushi/"))
        #expect(try matches(file, "https://example.com/fr_CA/samosa/"))
        #expect(try !matches(file, "https://example.com/en_US/pasta/"))
        #expect(try !matches(file, "https://example.com/en_us/sushi/"))  // regions are upper case, and case counts
        #expect(try !matches(file, "https://example.com/xx_US/sushi/"))
    }

    @Test("WWDC20: /sourdough/?* with caseSensitive false")
    func sourdough() throws {
        let file = try components(#"[{"/": "/sourdough/?*", "caseSensitive": false}]"#)
        #expect(try matches(file, "https://example.com/SourDough/rye"))
        #expect(try !matches(file, "https://example.com/sourdough/"))
    }

    @Test("WWDC20: Unicode in a pattern with percentEncoded false")
    func unicode() throws {
        let file = try components(#"[{"/": "/哈哈/?*", "percentEncoded": false}]"#)
        #expect(try matches(file, "https://example.com/%E5%93%88%E5%93%88/x"))
        #expect(try matches(file, "https://example.com/哈哈/x"))
        #expect(try !matches(file, "https://example.com/哈/x"))
    }

    @Test("the legacy paths example: /wwdc/news/ and /videos/wwdc/2015/*, NOT excluding")
    func legacyPaths() throws {
        let file = try associationFile("""
            {"applinks": {"apps": [], "details": [
              {"appID": "9JA89QQLNQ.com.apple.wwdc", "paths": ["NOT /videos/wwdc/2015/keynote", "/wwdc/news/", "/videos/wwdc/2015/*"]},
              {"appID": "ABCD1234.com.apple.wwdc", "paths": ["*"]}]}}
            """)
        #expect(try apps(file, "https://developer.apple.com/wwdc/news/") == ["9JA89QQLNQ.com.apple.wwdc"])
        #expect(try apps(file, "https://developer.apple.com/videos/wwdc/2015/101") == ["9JA89QQLNQ.com.apple.wwdc"])
        let keynote = file.match(try link("https://developer.apple.com/videos/wwdc/2015/keynote"))
        #expect(keynote.excluded && keynote.details == 0 && keynote.component == 0)
        #expect(try apps(file, "https://developer.apple.com/videos/wwdc/2014/101") == ["ABCD1234.com.apple.wwdc"])
    }
}
