/// What `waypost install` changed in a `mimeapps.list`: each type it made Waypost's, with the
/// default the desktop used before (for routing's fallback) and the exact line it replaced (for
/// `waypost uninstall`). Kept in `<data dir>/waypost/previous-defaults`, a key file:
///
///     [Waypost]              MimeAppsList=<path>, CreatedFile=, CreatedGroup=, AddedFinalNewline=,
///                            Web=, HTML=   (`install --web [--html]`: http, https and text/html too)
///     [Previous Defaults]    <type>=<desktop ids GIO chose before, ;-separated, maybe empty>
///     [Previous Lines]       <type>=<the replaced line, escaped>   (absent: there was no line)
public struct TakeoverRecord: Sendable, Hashable {
    public var mimeAppsList: String
    public var createdFile = false
    public var createdGroup = false
    public var addedFinalNewline = false
    /// `waypost install --web`: http and https links go to Waypost (universal links), until `uninstall --web`.
    public var web = false
    /// `waypost install --web --html`: local HTML files too.
    public var html = false
    /// Type → the ids that were its default before, best first (may be empty).
    public var previousDefaults: [String: [String]] = [:]
    /// Type → the `[Default Applications]` line it replaced; a type without one is absent.
    public var previousLines: [String: String] = [:]

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
        record.addedFinalNewline = settings["AddedFinalNewline"] == "true"
        record.web = settings["Web"] == "true"
        record.html = settings["HTML"] == "true"
        for (type, value) in text.entries(in: "Previous Defaults") { record.previousDefaults[type] = KeyFileText.list(value) }
        for (type, value) in text.entries(in: "Previous Lines") { record.previousLines[type] = KeyFileText.unescape(value) }
        return record
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
