/// A search's words as an FTS5 query that is data, never syntax: each word of the terms becomes a
/// quoted prefix token (`"ice"* "cre"*`, every one required), so that quotes, `*`, `-`, `NEAR`,
/// `OR`, column filters or parentheses typed by a person match text and are never operators.
///
/// Bounded, since any process may search and each word is a prefix lookup FTS5 intersects with the
/// others (32 terms of 1 KiB once made 6,528 of them, 50 s over 20,000 rows): words are compared
/// without case, a word that begins another is dropped (every match of "cream" has a word starting
/// with "cr" already), and what is left may be at most `words` words of `wordBytes` bytes each.
enum SearchQuery {
    /// Distinct words a search takes: a person types a few.
    static let words = 8
    /// The longest word a search takes (a keyword's bound).
    static let wordBytes = 256

    /// Nil when the terms hold no letter or digit (nothing can match).
    /// - Throws: `tooManyWords` or `wordTooLong`, naming the count or the word.
    static func make(_ terms: [String]) throws(StoreError) -> String? {
        let words = distinctWords(terms)
        guard !words.isEmpty else { return nil }
        if words.count > Self.words { throw .tooManyWords(count: words.count, limit: Self.words) }
        if let long = words.first(where: { $0.utf8.count > wordBytes }) { throw .wordTooLong(long, limit: wordBytes) }
        return words.map { "\"" + $0.replacingQuotes + "\"*" }.joined(separator: " ")
    }

    /// The terms' words, lowercased, without repeats or words that begin another, in the order typed.
    static func distinctWords(_ terms: [String]) -> [String] {
        var seen = Set<String>()
        let words = terms.flatMap(Self.words).map { $0.lowercased() }.filter { seen.insert($0).inserted }
        // In byte order the words a word begins follow it at once: one sort finds every such word.
        let sorted = words.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        var begun = Set<[UInt8]>()
        for (word, next) in zip(sorted, sorted.dropFirst()) where next.starts(with: word) { begun.insert(word) }
        return words.filter { !begun.contains(Array($0.utf8)) }
    }

    /// Runs of letters and digits: how FTS5's unicode61 tokenizer splits the indexed text too.
    static func words(_ term: String) -> [String] {
        var words: [String] = []
        var current = ""
        for scalar in term.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar.properties.generalCategory == .nonspacingMark {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

extension String {
    /// A double quote doubled, as FTS5 strings escape it (words hold none; kept for safety).
    fileprivate var replacingQuotes: String {
        var escaped = ""
        for character in self { escaped += character == "\"" ? "\"\"" : String(character) }
        return escaped
    }
}
