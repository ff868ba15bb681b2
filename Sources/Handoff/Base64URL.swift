import FoundationEssentials

/// RFC 4648's base64url without padding: the alphabet survives URL normalisation unchanged.
/// Foundation's codec does the work; only its `+/=` alphabet is swapped (KDE Connect would
/// percent-encode those).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// Nil for a character outside the alphabet, a length no encoding has, or another encoding of
    /// the same bytes (nonzero spare bits): one text per byte string.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1, text.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") })
        else { return nil }
        var standard = String(decoding: text.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }, as: UTF8.self)
        standard += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        let bytes = [UInt8](data)
        return encode(bytes).utf8.elementsEqual(text) ? bytes : nil
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
