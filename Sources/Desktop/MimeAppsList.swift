/// The user's `mimeapps.list` (`[Default Applications]` and the rest), edited line by line.
///
/// Only the `[Default Applications]` lines of the types handed over change; every other line,
/// comment, group and the final newline stay byte for byte, so that undoing the edits with the
/// recorded lines restores the file exactly.
public struct MimeAppsList: Sendable {
    public static let defaultsGroup = "Default Applications"

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
    public func defaults(for type: String) -> [String] {
        text.entry(type, in: Self.defaultsGroup).map { KeyFileText.list($0.value) } ?? []
    }

    /// What changed in the file's shape when a default was set, to be undone on release.
    public struct Change: Sendable, Hashable {
        /// The whole line that named the type's default before, or nil when there was none.
        public var previousLine: String?
        public var createdGroup = false
        public var addedFinalNewline = false
    }

    /// Makes `desktopFileID` the default for `type`: replaces the type's line, or adds one at the
    /// end of `[Default Applications]`, creating the group at the end of the file when missing.
    public mutating func setDefault(_ type: String, to desktopFileID: String) throws(KeyFileError) -> Change {
        let line = "\(type)=\(desktopFileID);"
        var change = Change()
        if let (index, _) = text.entry(type, in: Self.defaultsGroup) {
            change.previousLine = text.lines[index].text
            try text.replaceLine(at: index, with: line)
        } else if let header = text.header(of: Self.defaultsGroup) {
            let body = text.body(after: header)
            let lastEntry = body.last { if case .entry = text.lines[$0].kind { true } else { false } } ?? header
            try text.insertLine(line, at: lastEntry + 1)
        } else {
            change.createdGroup = true
            change.addedFinalNewline = !text.endsWithNewline
            try text.appendLine("[\(Self.defaultsGroup)]")
            try text.appendLine(line)
        }
        return change
    }

    /// Puts back what `setDefault` replaced, when the type still names `desktopFileID` alone:
    /// the recorded line, or no line. A default the user changed since is left as it is.
    /// - Returns: whether the line was put back.
    @discardableResult
    public mutating func restoreDefault(_ type: String, from desktopFileID: String, previousLine: String?) throws(KeyFileError) -> Bool {
        guard let (index, value) = text.entry(type, in: Self.defaultsGroup),
              KeyFileText.list(value) == [desktopFileID]
        else { return false }
        if let previousLine {
            try text.replaceLine(at: index, with: previousLine)
        } else {
            text.removeLine(at: index)
        }
        return true
    }

    /// Removes a `[Default Applications]` header that `setDefault` created, once nothing is left
    /// below it, and the final newline added with it.
    public mutating func removeCreatedGroup(addedFinalNewline: Bool) {
        guard let header = text.header(of: Self.defaultsGroup), text.body(after: header).isEmpty else { return }
        text.removeLine(at: header)
        if addedFinalNewline { text.removeFinalNewline() }
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
