/// A search's words as an FTS5 query that is data, never syntax: each word of the terms becomes a
/// quoted prefix token (`"ice"* "cre"*`, every one required), so that quotes, `*`, `-`, `NEAR`,
/// `OR`, column filters or parentheses typed by a person match text and are never operators.
enum SearchQuery {
    /// Nil when the terms hold no letter or digit (nothing can match).
    static func make(_ terms: [String]) -> String? {
        let words = terms.flatMap(Self.words)
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.replacingQuotes + "\"*" }.joined(separator: " ")
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
