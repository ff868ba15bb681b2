/// The user's `mimeapps.list` (`[Default Applications]` and the rest), edited line by line.
///
/// Only the lines of the types handed over change; every other line, comment, group and the final
/// newline stay byte for byte, so that undoing the edits with the recorded lines restores the
/// file exactly.
public struct MimeAppsList: Sendable {
    public static let defaultsGroup = "Default Applications"
    /// Entries GIO recommends for a type besides those listing it in `MimeType=`.
    public static let addedGroup = "Added Associations"
    /// Entries GIO no longer recommends for a type though they list it.
    public static let removedGroup = "Removed Associations"

    public let path: String
    /// Whether the file existed when it was read.
    public let existed: Bool
    public private(set) var text: KeyFileText

    /// Reads and parses the file; a missing file reads as empty.
    /// - Throws: `KeyFileError` naming the file, and the line when its syntax is wrong.
    public init(path: String) throws(KeyFileError) {
        self.path = path
        let bytes = try Files.read(path)
        existed = bytes != nil
        text = try KeyFileText(bytes: bytes ?? [], file: path)
    }

    /// The desktop-file ids `[Default Applications]` lists for `type`, in order.
    public func defaults(for type: String) -> [String] { ids(for: type, in: Self.defaultsGroup) }

    /// The desktop-file ids `group` lists for `type`, in order; none when it has no line for it.
    public func ids(for type: String, in group: String) -> [String] {
        text.entry(type, in: group).map { KeyFileText.list($0.value) } ?? []
    }

    /// What changed in the file's shape when a line was set, to be undone on release.
    public struct Change: Sendable, Hashable {
        /// The whole line that stood for the type before, or nil when there was none.
        public var previousLine: String?
        public var createdGroup = false
        public var addedFinalNewline = false
    }

    /// Makes `desktopFileID` the default for `type` (`setLine` in `[Default Applications]`).
    public mutating func setDefault(_ type: String, to desktopFileID: String) throws(KeyFileError) -> Change {
        try setLine(type, to: [desktopFileID], in: Self.defaultsGroup)
    }

    /// Makes `type`'s line in `group` list `ids` (at least one: a line is replaced in place, never
    /// removed, so that putting it back restores the file): replaces the type's line, or adds one
    /// at the end of the group, creating the group at the end of the file when missing.
    public mutating func setLine(_ type: String, to ids: [String], in group: String) throws(KeyFileError) -> Change {
        precondition(!ids.isEmpty, "a line lists at least one desktop-file id")
        var change = Change()
        let existing = text.entry(type, in: group)
        change.previousLine = existing.map { text.lines[$0.index].text }
        let line = "\(type)=" + ids.map { $0 + ";" }.joined()
        if let existing {
            try text.replaceLine(at: existing.index, with: line)
        } else {
            change.createdGroup = text.header(of: group) == nil
            change.addedFinalNewline = change.createdGroup && !text.endsWithNewline
            try add(line, to: group)
        }
        return change
    }

    /// Adds `line` after the last entry of `group`, or in a new group at the end of the file.
    private mutating func add(_ line: String, to group: String) throws(KeyFileError) {
        guard let header = text.header(of: group) else {
            try text.appendLine("[\(group)]")
            try text.appendLine(line)
            return
        }
        let lastEntry = text.body(after: header).last { if case .entry = text.lines[$0].kind { true } else { false } } ?? header
        try text.insertLine(line, at: lastEntry + 1)
    }

    /// Puts back what `setDefault` replaced, when the type still names `desktopFileID` alone.
    /// - Returns: whether the line was put back.
    @discardableResult
    public mutating func restoreDefault(_ type: String, from desktopFileID: String, previousLine: String?) throws(KeyFileError) -> Bool {
        try restoreLine(type, in: Self.defaultsGroup, ifStill: [desktopFileID], previousLine: previousLine)
    }

    /// Puts back what `setLine` replaced, when `type`'s line in `group` still lists `written`: the
    /// recorded line, or no line. A line the user changed since is left as it is.
    /// - Returns: whether the line was put back.
    @discardableResult
    public mutating func restoreLine(
        _ type: String, in group: String, ifStill written: [String], previousLine: String?
    ) throws(KeyFileError) -> Bool {
        guard let current = text.entry(type, in: group), KeyFileText.list(current.value) == written else { return false }
        if let previousLine {
            try text.replaceLine(at: current.index, with: previousLine)
        } else {
            text.removeLine(at: current.index)
        }
        return true
    }

    /// Removes a `[Default Applications]` header that `setDefault` created, once nothing is left
    /// below it, and the final newline added with it.
    public mutating func removeCreatedGroup(addedFinalNewline: Bool) {
        removeCreatedGroups([Self.defaultsGroup], addedFinalNewline: addedFinalNewline)
    }

    /// Removes the headers of `groups` (created by `setLine`) that nothing is left below, and the
    /// final newline added with them once each of them is gone.
    public mutating func removeCreatedGroups(_ groups: [String], addedFinalNewline: Bool) {
        var allGone = true
        for group in groups {
            guard let header = text.header(of: group) else { continue }
            if text.body(after: header).isEmpty { text.removeLine(at: header) } else { allGone = false }
        }
        if addedFinalNewline && allGone { text.removeFinalNewline() }
    }

    /// Writes the file back atomically; with `removeWhenEmpty`, an empty result removes it instead.
    public func save(removeWhenEmpty: Bool = false) throws(KeyFileError) {
        if removeWhenEmpty && text.lines.isEmpty {
            try Files.remove(path)
        } else {
            try Files.write(text.bytes, to: path)
        }
    }
}
