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
        let bytes = uri.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex else {
            throw .invalidURI(uri, reason: "it has no scheme (an absolute URI starts with one, like https: or myapp:)")
        }
        let scheme = bytes[..<colon]
        guard isLetter(scheme[scheme.startIndex]), scheme.allSatisfy(isSchemeByte) else {
            throw .invalidURI(uri, reason: "\"\(String(decoding: scheme, as: UTF8.self))\" is not a URI scheme")
        }
        if let bad = bytes.first(where: { $0 <= 0x20 || $0 == 0x7F }) {
            let hex = (bad < 0x10 ? "0" : "") + String(bad, radix: 16, uppercase: true)
            throw .invalidURI(uri, reason: "it contains the control or space byte 0x\(hex); write it as %\(hex)")
        }
        // Scheme bytes are ASCII letters, digits, + - and .: setting 0x20 lowercases the letters only.
        return String(decoding: scheme.lazy.map { isLetter($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
