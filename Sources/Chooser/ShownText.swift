public import Planning

/// The chooser's words. Everything from outside (the subject, apps' names, profile names, the
/// scope) is passed through `ShownText.plain` and set as plain text, never as markup. Labels with a
/// mnemonic (`_`) get outside text with its underscores doubled, so none becomes one.
public enum ShownText {
    /// How many characters of the subject are shown before an ellipsis.
    public static let subjectLimit = 300

    /// `text` with every control, line-breaking or bidirectional-override character replaced by
    /// U+FFFD, cut to `limit` characters with "…" when longer.
    public static func plain(_ text: String, limit: Int? = nil) -> String {
        var cleaned = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            cleaned.append(isHidden(scalar) ? "\u{FFFD}" : scalar)
        }
        let shown = String(cleaned)
        guard let limit, shown.count > limit else { return shown }
        return String(shown.prefix(limit)) + "…"
    }

    /// Characters that would break the line or reorder what follows them on screen.
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }

    /// "Open SUBJECT with:".
    public static func heading(subject: String) -> String {
        "Open \(plain(subject, limit: subjectLimit)) with:"
    }

    /// A candidate's row: the entry's name (or its id when none is installed) and its window.
    public static func row(name: String, window: BrowserWindow) -> String {
        switch window {
        case .usual: plain(name)
        case .profile(let profile): "\(plain(name)) — profile \(plain(profile))"
        case .privateWindow: "\(plain(name)) — private window"
        }
    }

    /// The "always" radio's mnemonic label: "_Always for example.com".
    public static func always(_ scope: ChoiceScope) -> String {
        "_Always for \(mnemonicSafe(scope.spoken))"
    }

    public static let once = "_Just once"

    /// The opener check button's mnemonic label: "Only _when opened from Files".
    public static func openerOnly(name: String) -> String {
        "Only _when opened from \(mnemonicSafe(name))"
    }

    /// Plain text inside a mnemonic label: `_` doubled, so that it shows as itself.
    static func mnemonicSafe(_ text: String) -> String {
        plain(text).replacing("_", with: "__")
    }
}
