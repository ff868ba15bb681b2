/// Text that came from outside — a device's name, a payload's title or URL, a script's words — as it
/// may be shown or logged: on one line, in its own reading order, bounded.
///
/// Policy: each control character (C0, C1, DEL), line or paragraph separator (U+2028, U+2029), bidi
/// control (LRM, RLM, ALM, the embeddings, overrides and isolates) and non-character becomes U+FFFD,
/// visibly, so that none can start a line of its choosing or reorder the words after it; past
/// `limit` scalars the rest becomes "…". Where it goes, put the origin before it.
public enum OutsideText {
    public static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// `text` as it may be shown: one line (or, with `lines`, its own line feeds kept), at most
    /// `limit` scalars (and "…").
    public static func shown(_ text: some StringProtocol, limit: Int, lines: Bool = false) -> String {
        var shown = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                shown.append("…")
                break
            }
            shown.append(isHidden(scalar) && !(lines && scalar == "\n") ? replacement : scalar)
            count += 1
        }
        return String(shown)
    }

    /// Whether `scalar` is one `shown` replaces.
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return properties.isBidiControl || properties.isNoncharacterCodePoint
        }
    }

    /// `text` for a notification's body, which servers may read as markup (dunst renders it, and says
    /// so only by listing `body-hyperlinks`): `&`, `<` and `>` as entities, so it shows as written.
    public static func escapingMarkup(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else {
            return text
        }
        // By scalar: a mark after "&" makes one Character of them, and must not hide it.
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// The scalar as people name it: "U+0000".
    public static func name(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
