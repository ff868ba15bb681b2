/// An `Exec=` value with arguments added, for a launch that needs more than the entry says (a
/// browser's profile or private window). Pure: the caller splits the value (`launchArguments()`).
public enum ExecLine {
    /// `argv` written back as an `Exec=` value, with `added` inserted before the first argument
    /// that carries the files or URLs (`%u`, `%U`, `%f`, `%F`, Flatpak's `@@u`), or at the end when
    /// none does: so `firefox --private-window %u` gets the link right after its option, and a
    /// `sh -c '…' sh %U` wrapper passes the options on in `"$@"`.
    ///
    /// Every argument is quoted by the Desktop Entry spec's rules where it needs it; a `%` in an
    /// added one is written `%%`, so it stays literal (the entry's own field codes stay codes).
    public static func inserting(_ added: [String], into argv: [String]) -> String {
        let at = argv.firstIndex(where: carriesTargets) ?? argv.endIndex
        let words = argv[..<at].map(quoted) + added.map { quoted($0.replacing("%", with: "%%")) } + argv[at...].map(quoted)
        return words.joined(separator: " ")
    }

    /// Whether the argument is (or holds) the field code for files or URLs, or Flatpak's marker.
    static func carriesTargets(_ argument: String) -> Bool {
        argument.hasPrefix("@@u") || argument.hasPrefix("@@f")
            || ["%u", "%U", "%f", "%F"].contains { argument.contains($0) }
    }

    /// Characters the spec reserves: an argument holding one is written in double quotes.
    private static let reserved: Set<Character> = [
        " ", "\t", "\n", "\"", "'", "\\", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`",
    ]

    /// The argument as one `Exec=` word: as is, or in double quotes with `"`, `` ` ``, `$` and `\`
    /// escaped by a backslash.
    static func quoted(_ argument: String) -> String {
        guard argument.isEmpty || argument.contains(where: reserved.contains) else { return argument }
        var out = "\""
        for character in argument {
            if character == "\"" || character == "`" || character == "$" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }
}

extension ApplicationEntry {
    /// `Exec=` split into arguments as GIO splits it, field codes kept; nil when the entry has no
    /// `Exec` or it does not parse. `g_shell_parse_argv`.
    /// - Throws: `GIOLoadError` when GLib cannot be opened.
    public func launchArguments() throws(GIOLoadError) -> [String]? {
        try GIO.load()
        guard let exec, !exec.isEmpty else { return nil }
        return try? execArguments(exec)
    }
}
