// Diacritic folding needs Unicode decomposition, which the standard library keeps behind SPI and
// FoundationEssentials does not offer (it has no `folding(options:locale:)`); Foundation's is the
// only public one, and it gives the case- and diacritic-insensitive comparison Apple documents.
// Only non-ASCII text reaches it: URLs are almost always ASCII, which folds by lowercasing alone,
// so routing a typical link never calls into Foundation.
internal import Foundation

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
                bytes = Array(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
                return
            }
            if byte &- 0x41 < 26 { ascii[index] = byte | 0x20 }
        }
        bytes = ascii
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
