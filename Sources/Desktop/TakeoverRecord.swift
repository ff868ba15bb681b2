/// What `waypost install` changed in a `mimeapps.list`: each type it made Waypost's, with the
/// default the desktop used before (for routing's fallback) and the exact line it replaced (for
/// `waypost uninstall`), and for each scheme the association lines it rewrote so that GIO
/// recommends Waypost's entry alone (the portal then opens links without asking). Kept in
/// `<data dir>/waypost/previous-defaults`, a key file:
///
///     [Waypost]              MimeAppsList=<path>, CreatedFile=, CreatedGroup=, CreatedRemovedGroup=,
///                            AddedFinalNewline=, Web=, HTML=   (`install --web [--html]`)
///     [Previous Defaults]    <type>=<desktop ids GIO chose before, ;-separated, maybe empty>
///     [Previous Lines]       <type>=<the replaced line, escaped>   (absent: there was no line)
///     [Removed Associations Written], [Added Associations Written]
///                            <type>=<the ids Waypost's line lists>
///     [Removed Associations Before], [Added Associations Before]
///                            <type>=<the line it replaced, escaped>   (absent: there was none)
public struct TakeoverRecord: Sendable, Hashable {
    public var mimeAppsList: String
    public var createdFile = false
    /// `[Default Applications]` was created by Waypost.
    public var createdGroup = false
    /// `[Removed Associations]` was created by Waypost.
    public var createdRemovedGroup = false
    public var addedFinalNewline = false
    /// `waypost install --web`: http and https links go to Waypost (universal links), until `uninstall --web`.
    public var web = false
    /// `waypost install --web --html`: local HTML files too.
    public var html = false
    /// Type → the ids that were its default before, best first (may be empty).
    public var previousDefaults: [String: [String]] = [:]
    /// Type → the `[Default Applications]` line it replaced; a type without one is absent.
    public var previousLines: [String: String] = [:]
    /// Scheme type → its `[Removed Associations]` line as Waypost wrote it: every other entry GIO
    /// listed for the scheme, so that the desktop (and the portal) sees Waypost's entry alone.
    public var removedAssociations: [String: RewrittenLine] = [:]
    /// Scheme type → its `[Added Associations]` line, rewritten to Waypost's entry alone where it
    /// named others (an added association outweighs a removal in the same file).
    public var addedAssociations: [String: RewrittenLine] = [:]

    /// A line Waypost wrote in place of another (or of none), to be put back.
    public struct RewrittenLine: Sendable, Hashable {
        /// The desktop-file ids Waypost's line lists.
        public var written: [String]
        /// The whole line it replaced, nil when there was none.
        public var previous: String?

        public init(written: [String], previous: String?) {
            self.written = written
            self.previous = previous
        }
    }

    /// The entries Waypost hid from GIO's list for `type` (not those the user had removed): they
    /// still handle it, as the dispatcher sees it.
    public func hiddenHandlers(forType type: String) -> [String] {
        guard let line = removedAssociations[type] else { return [] }
        let before = line.previous.flatMap { $0.split(separator: "=", maxSplits: 1).last }.map { KeyFileText.list(String($0)) } ?? []
        return line.written.filter { !before.contains($0) }
    }

    /// The types handed over to Waypost, sorted.
    public var types: [String] { previousDefaults.keys.sorted() }

    public init(mimeAppsList: String) {
        self.mimeAppsList = mimeAppsList
    }

    /// The record below a data directory (`$XDG_DATA_HOME`, or an install prefix's `share`).
    public static func path(inDataDirectory directory: String) -> String {
        directory + "/waypost/previous-defaults"
    }

    /// Reads the record at `path`; nil when there is none.
    /// - Throws: `KeyFileError` naming the file and line when it is damaged.
    public static func load(path: String) throws(KeyFileError) -> TakeoverRecord? {
        guard let bytes = try Files.read(path) else { return nil }
        let text = try KeyFileText(bytes: bytes, file: path)
        let settings = Dictionary(text.entries(in: "Waypost").map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        var record = TakeoverRecord(mimeAppsList: KeyFileText.unescape(settings["MimeAppsList"] ?? ""))
        record.createdFile = settings["CreatedFile"] == "true"
        record.createdGroup = settings["CreatedGroup"] == "true"
        record.createdRemovedGroup = settings["CreatedRemovedGroup"] == "true"
        record.addedFinalNewline = settings["AddedFinalNewline"] == "true"
        record.web = settings["Web"] == "true"
        record.html = settings["HTML"] == "true"
        for (type, value) in text.entries(in: "Previous Defaults") { record.previousDefaults[type] = KeyFileText.list(value) }
        for (type, value) in text.entries(in: "Previous Lines") { record.previousLines[type] = KeyFileText.unescape(value) }
        record.removedAssociations = rewrittenLines(text, "Removed Associations")
        record.addedAssociations = rewrittenLines(text, "Added Associations")
        return record
    }

    private static func rewrittenLines(_ text: KeyFileText, _ group: String) -> [String: RewrittenLine] {
        let before = Dictionary(text.entries(in: group + " Before").map { ($0.key, KeyFileText.unescape($0.value)) }, uniquingKeysWith: { $1 })
        var lines: [String: RewrittenLine] = [:]
        for (type, value) in text.entries(in: group + " Written") {
            lines[type] = RewrittenLine(written: KeyFileText.list(value), previous: before[type])
        }
        return lines
    }

    /// The record as written to disk.
    public var bytes: [UInt8] {
        var text = """
            # Written by `waypost install` and `waypost refresh`; read by the dispatcher (where links
            # fall back to) and by `waypost uninstall` (which puts each line back). Not for editing.
            [Waypost]
            MimeAppsList=\(KeyFileText.escape(mimeAppsList))
            CreatedFile=\(createdFile)
            CreatedGroup=\(createdGroup)
            CreatedRemovedGroup=\(createdRemovedGroup)
            AddedFinalNewline=\(addedFinalNewline)
            Web=\(web)
            HTML=\(html)

            [Previous Defaults]

            """
        for type in types {
            text += "\(type)=" + (previousDefaults[type] ?? []).map { $0 + ";" }.joined() + "\n"
        }
        text += "\n[Previous Lines]\n"
        for type in previousLines.keys.sorted() { text += "\(type)=\(KeyFileText.escape(previousLines[type]!))\n" }
        for (group, lines) in [("Removed Associations", removedAssociations), ("Added Associations", addedAssociations)] where !lines.isEmpty {
            text += "\n[\(group) Written]\n"
            for type in lines.keys.sorted() { text += "\(type)=" + lines[type]!.written.map { $0 + ";" }.joined() + "\n" }
            text += "\n[\(group) Before]\n"
            for type in lines.keys.sorted() {
                if let previous = lines[type]!.previous { text += "\(type)=\(KeyFileText.escape(previous))\n" }
            }
        }
        return Array(text.utf8)
    }

    /// The records the desktop has, user first: `$XDG_DATA_HOME`, then each `$XDG_DATA_DIRS` entry.
    /// Damaged or missing ones are skipped (the dispatcher must keep routing; `waypost doctor` reports them).
    public static func installed(directories: XDGDirectories) -> [TakeoverRecord] {
        ([directories.dataHome] + directories.systemDataDirectories).compactMap {
            try? load(path: path(inDataDirectory: $0))
        }
    }
}
