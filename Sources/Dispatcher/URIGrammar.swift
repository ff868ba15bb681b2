/// The checks a URI passes before routing: absolute, with a scheme, of a sane size.
enum URIGrammar {
    /// Larger URIs are refused: no browser makes one, and each is copied into several messages.
    static let maximumBytes = 64 * 1024

    /// The URI's scheme, lowercased.
    /// - Throws: `DispatchError.invalidURI` for an empty or oversized URI, one without an RFC 3986
    ///   scheme, or one holding control characters or spaces (a link is never typed with them raw).
    static func scheme(of uri: String) throws(DispatchError) -> String {
        if uri.isEmpty { throw .invalidURI(uri, reason: "the URI is empty") }
        if uri.utf8.count > maximumBytes {
            throw .invalidURI(uri, reason: "the URI is \(uri.utf8.count) bytes; at most \(maximumBytes) are accepted")
        }
        // Plain loops over the UTF-8 bytes' span: this runs for every link opened.
        let bytes = uri.utf8.span
        var colon = 0
        while colon < bytes.count, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < bytes.count, colon != 0 else {
            throw .invalidURI(uri, reason: "it has no scheme (an absolute URI starts with one, like https: or myapp:)")
        }
        var schemeIsValid = isLetter(bytes[0])
        for index in 1..<colon where !isSchemeByte(bytes[index]) { schemeIsValid = false }
        guard schemeIsValid else {
            throw .invalidURI(uri, reason: "\"\(String(decoding: uri.utf8.prefix(colon), as: UTF8.self))\" is not a URI scheme")
        }
        for index in bytes.indices where bytes[index] <= 0x20 || bytes[index] == 0x7F {
            let bad = bytes[index]
            let hex = (bad < 0x10 ? "0" : "") + String(bad, radix: 16, uppercase: true)
            throw .invalidURI(uri, reason: "it contains the control or space byte 0x\(hex); write it as %\(hex)")
        }
        // Scheme bytes are ASCII letters, digits, + - and .: setting 0x20 lowercases the letters only.
        return String(decoding: uri.utf8.prefix(colon).lazy.map { isLetter($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
