// Canonical decomposition is the one piece of Unicode the standard library keeps behind SPI
// (`_nfd`; the standard library's regex engine and swift-foundation use it too). Taking it from there keeps Foundation, with
// CoreFoundation's and ICU's start-up and 48 MB of code and data, out of every binary that routes.
@_spi(_Unicode) import Swift

/// Text folded for comparison: case and diacritics removed ("Crème" and "CREME" fold alike),
/// kept as UTF-8 bytes so that containment is a byte search.
///
/// Conditions are folded once, when a scene sets them; an event's string once per event.
struct FoldedText: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ text: String) {
        var ascii = Array(text.utf8)
        for index in ascii.indices {
            let byte = ascii[index]
            if byte >= 0x80 {
                bytes = Self.foldUnicode(text)
                return
            }
            if byte &- 0x41 < 26 { ascii[index] = byte | 0x20 }
        }
        bytes = ascii
    }

    /// Diacritics: a letter is decomposed and the marks that came with it dropped ("é" is "e" and
    /// U+0301; a Hangul syllable keeps all its jamo), as are marks written after another character; a mark that starts the text stays,
    /// having nothing to qualify. Symbols keep their marks ("≠" does not become "="). Case: full
    /// folding (`ß` and `SS`, `ſ` and `s`, `ς` and `σ` fold alike), taken as lower(upper(lower)).
    /// For Latin, Greek and Cyrillic letters this is what Foundation's
    /// `folding(options: [.caseInsensitive, .diacriticInsensitive])` gives (the tests check it).
    private static func foldUnicode(_ text: String) -> [UInt8] {
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
        return Array(String(folded).utf8)
    }

    private static func append(caseFolded scalar: Unicode.Scalar, to folded: inout String.UnicodeScalarView) {
        let properties = scalar.properties
        guard properties.changesWhenCaseFolded else { return folded.append(scalar) }
        folded.append(contentsOf: properties.lowercaseMapping.uppercased().lowercased().unicodeScalars)
    }

    var isEmpty: Bool { bytes.isEmpty }

    static func == (a: FoldedText, b: FoldedText) -> Bool { a.bytes == b.bytes }

    /// Eight bytes per `combine`: hashing byte by byte dominated the cost of setting a scene's sets.
    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        var word: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            word = word << 8 | UInt64(byte)
            if offset & 7 == 7 {
                hasher.combine(word)
                word = 0
            }
        }
        hasher.combine(word)
    }

    /// Whether `needle` occurs in this text; a plain scan, for the few conditions outside the index.
    func contains(_ needle: FoldedText) -> Bool {
        let n = needle.bytes, h = bytes
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

extension Unicode.Scalar {
    /// A combining mark: a diacritic that qualifies the character before it.
    fileprivate var isMark: Bool {
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark: true
        default: false
        }
    }
}
