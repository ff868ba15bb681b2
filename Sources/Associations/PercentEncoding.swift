/// The two spellings of a URL part that patterns are matched against: percent-encoded as a browser
/// sends it, and decoded (for `"percentEncoded": false`).
enum PercentEncoding {
    /// The canonical encoded spelling (RFC 3986 §6.2.2.1): bytes outside printable ASCII encoded,
    /// and the hex digits of every escape upper case, so `%2f`, `%2F` and a raw `é` compare as
    /// `%2F` and `%C3%A9` on both sides. Returns the text itself when nothing changes.
    static func normalized(_ text: String) -> String {
        let bytes = text.utf8.span
        var needsWork = false
        for index in bytes.indices {
            let byte = bytes[index]
            if byte <= 0x20 || byte >= 0x7F || (byte == UInt8(ascii: "%") && hasLowercaseEscape(bytes, at: index)) {
                needsWork = true
                break
            }
        }
        guard needsWork else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte <= 0x20 || byte >= 0x7F {
                out += [UInt8(ascii: "%"), hexDigit(byte >> 4), hexDigit(byte & 0xF)]
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                out += [byte, hexDigit(high), hexDigit(low)]
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Every valid `%XX` escape replaced by its byte; an invalid one (`%zz`, a lone `%`) stays as
    /// written, and bytes that do not form UTF-8 become U+FFFD.
    static func decoded(_ text: String) -> String {
        let bytes = text.utf8.span
        var hasEscape = false
        for index in bytes.indices where bytes[index] == UInt8(ascii: "%") { hasEscape = true }
        guard hasEscape else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hasLowercaseEscape(_ bytes: Span<UInt8>, at index: Int) -> Bool {
        guard index + 2 < bytes.count, hexValue(bytes[index + 1]) != nil, hexValue(bytes[index + 2]) != nil else { return false }
        return bytes[index + 1] >= UInt8(ascii: "a") || bytes[index + 2] >= UInt8(ascii: "a")
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
