@testable import ExternalEvents
import Foundation
import Testing

/// The routing core folds text without Foundation; these tests hold it to Foundation's
/// case- and diacritic-insensitive folding where people write conditions and links.
@Suite("Folding text for comparison")
struct FoldedTextTests {
    static func foundationFolded(_ text: String) -> [UInt8] {
        Array(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
    }

    /// Latin (with its extended and supplementary blocks), IPA, Greek, Cyrillic, Armenian, the
    /// Latin ligatures and the full-width forms.
    static let blocks: [ClosedRange<UInt32>] = [
        0x00C0...0x052F, 0x0531...0x0587, 0x1E00...0x1FFF, 0xFB00...0xFB06, 0xFF21...0xFF5A,
    ]
    /// Where Foundation also drops an accent typed after the letter (elsewhere it keeps it: a quirk
    /// of its tables, not a rule worth copying).
    static let accentedBlocks: [ClosedRange<UInt32>] = [0x00C0...0x0233, 0x0370...0x04FF, 0x1E00...0x1EF9]

    @Test("every letter of the Latin, Greek, Cyrillic and Armenian blocks folds as Foundation folds it")
    func lettersAgreeWithFoundation() {
        var checked = 0
        var disagreements: [String] = []
        for block in Self.blocks {
            for value in block {
                // U+0345, the iota subscript, is a combining mark that Unicode also counts as a letter.
                guard let scalar = Unicode.Scalar(value), scalar.properties.isAlphabetic, value != 0x345 else {
                    continue
                }
                let accented = Self.accentedBlocks.contains { $0.contains(value) }
                for text in [String(scalar), "x" + String(scalar) + "Z"] + (accented ? [String(scalar) + "\u{301}"] : []) {
                    checked += 1
                    if FoldedText(text).bytes != Self.foundationFolded(text) {
                        disagreements.append("U+\(String(value, radix: 16, uppercase: true)) in \(text)")
                    }
                }
            }
        }
        #expect(checked > 3000)
        #expect(disagreements.isEmpty, "\(disagreements.count) differ, first: \(disagreements.prefix(10))")
    }

    @Test("case folds fully, not just to lower case", arguments: [
        ("straße", "strasse"), ("STRASSE", "strasse"), ("ẞ", "ss"), ("ſ", "s"), ("ΣΊΣΥΦΟΣ", "σισυφοσ"),
        ("ς", "σ"), ("µ", "μ"), ("ﬁle", "file"), ("İstanbul", "istanbul"), ("ＡＢＣ", "ａｂｃ"),
    ])
    func caseFolding(text: String, folded: String) {
        #expect(FoldedText(text).bytes == Array(folded.utf8))
        #expect(FoldedText(text).bytes == Self.foundationFolded(text))
    }

    @Test("diacritics go, in either normalisation form; the letters they sat on stay")
    func diacritics() {
        #expect(FoldedText("Crème Brûlée").bytes == Array("creme brulee".utf8))
        #expect(FoldedText("e\u{301}te\u{301}").bytes == FoldedText("été").bytes)
        #expect(FoldedText("ᾈ").bytes == Array("α".utf8), "breathing, and iota subscript, both marks")
        #expect(FoldedText("ø").bytes == Array("ø".utf8), "ø has no decomposition: a letter of its own")
    }

    @Test("what is not a letter keeps its marks, and a syllable keeps all its letters")
    func notLetters() {
        #expect(FoldedText("≠").bytes != FoldedText("=").bytes)
        #expect(FoldedText("\u{301}x").bytes == Array("\u{301}x".utf8), "a mark with nothing before it stays")
        #expect(FoldedText("한").bytes != FoldedText("하").bytes, "a Hangul syllable is three jamo, all letters")
        #expect(FoldedText("한").bytes == FoldedText("\u{1112}\u{1161}\u{11AB}").bytes)
    }
}

extension FoldedText {
    fileprivate var bytes: [UInt8] { Array(utf8) }
}
