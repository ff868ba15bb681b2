/// The grammar of D-Bus type signatures, checked in Swift for the writer, which checks a type for
/// every array and variant it writes (libdbus's validator takes a global lock per container).
enum SignatureGrammar {
    /// Whether `signature` is exactly one complete type, nesting no deeper than 32 arrays and 32
    /// structs (the specification's limits).
    static func isSingleCompleteType(_ signature: Signature) -> Bool {
        var text = signature.rawValue
        return text.withUTF8 { codes in
            isSingleCode(codes) || end(ofTypeAt: 0, in: codes, arrays: 0, structures: 0) == codes.count
        }
    }

    /// Whether `signature` may be an array's element type: one complete type, or a dictionary entry
    /// (`{kv}`, a basic key and one complete value).
    static func isArrayElement(_ signature: Signature) -> Bool {
        var text = signature.rawValue
        return text.withUTF8 { codes in
            isSingleCode(codes) || end(ofElementAt: 0, in: codes, arrays: 1, structures: 0) == codes.count
        }
    }

    /// Where the element type of an array starting at `index` ends (`arrays` counting that array).
    private static func end(
        ofElementAt index: Int, in codes: UnsafeBufferPointer<UInt8>, arrays: Int, structures: Int
    ) -> Int? {
        guard index < codes.count, codes[index] == UInt8(ascii: "{") else {
            return end(ofTypeAt: index, in: codes, arrays: arrays, structures: structures)
        }
        guard structures < 32, index + 1 < codes.count, isBasic(codes[index + 1]),
              let valueEnd = end(ofTypeAt: index + 2, in: codes, arrays: arrays, structures: structures + 1),
              valueEnd < codes.count, codes[valueEnd] == UInt8(ascii: "}")
        else { return nil }
        return valueEnd + 1
    }

    /// Where the complete type starting at `index` ends, or nil when none starts there.
    private static func end(
        ofTypeAt index: Int, in codes: UnsafeBufferPointer<UInt8>, arrays: Int, structures: Int
    ) -> Int? {
        guard index < codes.count else { return nil }
        let code = codes[index]
        if isBasic(code) || code == UInt8(ascii: "v") { return index + 1 }
        switch code {
        case UInt8(ascii: "a"):
            guard arrays < 32 else { return nil }
            return end(ofElementAt: index + 1, in: codes, arrays: arrays + 1, structures: structures)
        case UInt8(ascii: "("):
            guard structures < 32 else { return nil }
            var next = index + 1
            var fields = 0
            while next < codes.count, codes[next] != UInt8(ascii: ")") {
                guard let fieldEnd = end(ofTypeAt: next, in: codes, arrays: arrays, structures: structures + 1)
                else { return nil }
                next = fieldEnd
                fields += 1
            }
            guard next < codes.count, fields > 0 else { return nil }
            return next + 1
        default:
            return nil
        }
    }

    /// Whether `signature` is one basic type code or `v`: one complete type by definition, and
    /// what almost every value read or written names.
    static func isSingleCode(_ signature: String) -> Bool {
        var codes = signature.utf8.makeIterator()
        guard let code = codes.next(), codes.next() == nil else { return false }
        return isBasic(code) || code == UInt8(ascii: "v")
    }

    private static func isSingleCode(_ codes: UnsafeBufferPointer<UInt8>) -> Bool {
        codes.count == 1 && (isBasic(codes[0]) || codes[0] == UInt8(ascii: "v"))
    }

    /// The codes a dictionary key may have.
    static func isBasic(_ code: UInt8) -> Bool {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "b"), UInt8(ascii: "n"), UInt8(ascii: "q"), UInt8(ascii: "i"),
             UInt8(ascii: "u"), UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "s"),
             UInt8(ascii: "o"), UInt8(ascii: "g"), UInt8(ascii: "h"):
            true
        default:
            false
        }
    }
}
