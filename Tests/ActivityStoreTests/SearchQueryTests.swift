@testable import ActivityStore
import Testing

@Suite("search words as an FTS5 query")
struct SearchQueryTests {
    @Test("every word becomes a quoted prefix; operators and punctuation never reach FTS5 as syntax")
    func quoting() throws {
        #expect(try SearchQuery.make(["ice cream"]) == "\"ice\"* \"cream\"*")
        #expect(try SearchQuery.make(["title:drop", "NEAR(a b)"]) == "\"title\"* \"drop\"* \"near\"* \"a\"* \"b\"*")
        #expect(try SearchQuery.make(["\"", "*", "-", "()"]) == nil)
        #expect(try SearchQuery.make(["crème"]) == "\"crème\"*")
        #expect(try SearchQuery.make([]) == nil)
    }

    @Test("words are compared without case, and one that begins another is dropped: it finds nothing more")
    func deduplicated() throws {
        #expect(SearchQuery.distinctWords(["Ice", "ICE cream", "i", "cr", "CREAM", "creamy"]) == ["ice", "creamy"])
        #expect(try SearchQuery.make(["Ice", "ice", "I"]) == "\"ice\"*")
        // Thirty-two terms of 1 KiB that repeat one word are one word.
        #expect(try SearchQuery.make(Array(repeating: String(repeating: "ice ", count: 256), count: 32)) == "\"ice\"*")
    }

    @Test("32 terms of 1 KiB holding thousands of different words are refused by their count, before any lookup")
    func boundedByWords() throws {
        // The attack: short words, each a prefix lookup FTS5 intersects with all the others.
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let words = letters.flatMap { a in letters.map { b in String([a, b]) } }
        let terms = (0..<32).map { term in (0..<340).map { words[(term * 340 + $0) % words.count] }.joined(separator: " ") }
        #expect(terms.allSatisfy { $0.utf8.count <= 1024 })
        #expect(throws: StoreError.tooManyWords(count: words.count, limit: SearchQuery.words)) { try SearchQuery.make(terms) }
        #expect(throws: StoreError.tooManyWords(count: 9, limit: 8)) { try SearchQuery.make(["one two three four five six seven eight nine"]) }
        #expect(try SearchQuery.make(["one two three four five six seven eight"])?.split(separator: " ").count == 8)
        let long = String(repeating: "x", count: 257)
        #expect(throws: StoreError.wordTooLong(long, limit: 256)) { try SearchQuery.make([long]) }
    }
}
