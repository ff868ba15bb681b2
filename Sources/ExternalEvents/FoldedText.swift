// Canonical decomposition is the one piece of Unicode the standard library keeps behind SPI
// (`_nfd`; the standard library's regex engine and swift-foundation use it too). Taking it from there keeps Foundation, with
// CoreFoundation's and ICU's start-up and 48 MB of code and data, out of every binary that routes.
@_spi(_Unicode) import Swift

/// Text folded for comparison: case and diacritics removed ("Crème" and "CREME" fold alike),
/// compared and searched as UTF-8 bytes.
///
/// Conditions are folded once, when a scene sets them; an event's string once per event.
struct FoldedText: Hashable, Sendable {
    /// The folded text. When folding changes nothing (lower-case ASCII, as most conditions are) it
    /// is the given string itself, so a condition and its folded form share one buffer; short ones
    /// (up to 15 bytes) need none at all.
    let text: String

    var utf8: String.UTF8View { text.utf8 }

    init(_ text: String) {
        let bytes = text.utf8.span
        var ascii: [UInt8]?
        for index in bytes.indices {
            let byte = bytes[index]
            if byte >= 0x80 {
                self.text = Self.foldUnicode(text)
                return
            }
            if byte &- 0x41 < 26 {
                if ascii == nil { ascii = Array(text.utf8) }
                ascii![index] = byte | 0x20
            }
        }
        self.text = ascii.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Diacritics: a letter is decomposed and the marks that came with it dropped ("é" is "e" and
    /// U+0301; a Hangul syllable keeps all its jamo), as are marks written after another character; a mark that starts the text stays,
    /// having nothing to qualify. Symbols keep their marks ("≠" does not become "="). Case: full
    /// folding (`ß` and `SS`, `ſ` and `s`, `ς` and `σ` fold alike), taken as lower(upper(lower)).
    /// For Latin, Greek and Cyrillic letters this is what Foundation's
    /// `folding(options: [.caseInsensitive, .diacriticInsensitive])` gives (the tests check it).
    private static func foldUnicode(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        var atStart = true
        for scalar in text.unicodeScalars {
            defer { atStart = false }
            if scalar.isMark {
                if atStart { folded.append(scalar) }
            } else if scalar.properties.isAlphabetic && scalar.value >= 0x80 {
                for part in String(scalar)._nfd where !part.isMark { append(caseFolded: part, to: &folded) }
            } else {
                append(caseFolded: scalar, to: &folded)
            }
        }
        return String(folded)
    }

    private static func append(caseFolded scalar: Unicode.Scalar, to folded: inout String.UnicodeScalarView) {
        let properties = scalar.properties
        guard properties.changesWhenCaseFolded else { return folded.append(scalar) }
        folded.append(contentsOf: properties.lowercaseMapping.uppercased().lowercased().unicodeScalars)
    }

    var isEmpty: Bool { text.isEmpty }

    /// Byte equality: folded texts are compared as bytes, not as canonically equivalent strings.
    static func == (a: FoldedText, b: FoldedText) -> Bool { compareBytes(a.text, b.text) == 0 }

    /// Eight bytes per `combine`: hashing byte by byte dominated the cost of setting a scene's sets.
    func hash(into hasher: inout Hasher) {
        let bytes = text.utf8.span
        hasher.combine(bytes.count)
        var word: UInt64 = 0
        for offset in bytes.indices {
            word = word << 8 | UInt64(bytes[offset])
            if offset & 7 == 7 {
                hasher.combine(word)
                word = 0
            }
        }
        hasher.combine(word)
    }

    /// Whether `needle` occurs in this text; a plain scan, for the few conditions outside the index.
    func contains(_ needle: FoldedText) -> Bool {
        let n = needle.text.utf8.span, h = text.utf8.span
        guard !n.isEmpty, n.count <= h.count else { return false }
        let first = n[0], last = h.count - n.count
        var start = 0
        while start <= last {
            if h[start] == first {
                var k = 1
                while k < n.count && h[start + k] == n[k] { k += 1 }
                if k == n.count { return true }
            }
            start += 1
        }
        return false
    }
}

/// Orders two strings by their UTF-8 bytes: negative, zero or positive. Unlike `String`'s `<` and
/// `==`, which compare canonical equivalents, this is a total order on what is stored.
func compareBytes(_ a: String, _ b: String) -> Int {
    let x = a.utf8.span, y = b.utf8.span
    for index in 0..<min(x.count, y.count) where x[index] != y[index] {
        return Int(x[index]) - Int(y[index])
    }
    return x.count - y.count
}

extension Unicode.Scalar {
    /// A combining mark: a diacritic that qualifies the character before it.
    fileprivate var isMark: Bool {
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark: true
        default: false
        }
    }
}
