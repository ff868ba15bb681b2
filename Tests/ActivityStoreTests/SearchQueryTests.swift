@testable import ActivityStore
import Testing

@Suite("search words as an FTS5 query")
struct SearchQueryTests {
    @Test("every word becomes a quoted prefix; operators and punctuation never reach FTS5 as syntax")
    func quoting() {
        #expect(SearchQuery.make(["ice cream"]) == "\"ice\"* \"cream\"*")
        #expect(SearchQuery.make(["title:drop", "NEAR(a b)"]) == "\"title\"* \"drop\"* \"NEAR\"* \"a\"* \"b\"*")
        #expect(SearchQuery.make(["\"", "*", "-", "()"]) == nil)
        #expect(SearchQuery.make(["crème"]) == "\"crème\"*")
        #expect(SearchQuery.make([]) == nil)
    }
}
