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
        var ascii = [UInt8]()
        ascii.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            guard byte < 0x80 else {
                bytes = Array(
                    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
                return
            }
            ascii.append(byte &- 0x41 < 26 ? byte | 0x20 : byte)
        }
        bytes = ascii
    }

    var isEmpty: Bool { bytes.isEmpty }

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
