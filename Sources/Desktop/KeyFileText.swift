/// A key file (desktop entry, `mimeapps.list`) as lines, each kept byte for byte.
///
/// Edits touch only the lines they name, so writing the text back reproduces every other line,
/// comment and blank exactly, including a missing final newline. Parsing follows the Desktop Entry
/// spec's syntax, as GLib's reader accepts it: blank lines, `#` comments, `[group]` headers and
/// `key=value` lines inside a group; anything else is an error naming the line.
public struct KeyFileText: Sendable, Hashable {
    /// One line of the file.
    public struct Line: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case blank
            case comment
            case group(String)
            /// `key` trimmed; `value` with leading blanks removed, key-file escapes left in.
            case entry(key: String, value: String)
        }
        /// The line's bytes without its newline.
        public let text: String
        public let kind: Kind
    }

    /// The file the text came from, for messages.
    public let file: String
    public private(set) var lines: [Line]
    /// Whether the last line ends with a newline (true for an empty file).
    public private(set) var endsWithNewline: Bool

    /// Parses `bytes` read from `file`.
    /// - Throws: `KeyFileError.malformed` with the file, the 1-based line number and what is wrong.
    public init(bytes: [UInt8], file: String) throws(KeyFileError) {
        self.file = file
        var pieces = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        endsWithNewline = bytes.isEmpty || bytes.last == UInt8(ascii: "\n")
        if endsWithNewline { pieces.removeLast() }
        var lines: [Line] = []
        var inGroup = false
        for (index, piece) in pieces.enumerated() {
            guard let text = String(validating: piece, as: UTF8.self) else {
                throw .malformed(file: file, line: index + 1, text: String(decoding: piece, as: UTF8.self), reason: "not valid UTF-8")
            }
            let line = try Self.parse(text, file: file, number: index + 1, inGroup: inGroup)
            if case .group = line.kind { inGroup = true }
            lines.append(line)
        }
        self.lines = lines
    }

    /// The text as it would be written: every line, newline-separated, final newline as read.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        for (index, line) in lines.enumerated() {
            out += Array(line.text.utf8)
            if index < lines.count - 1 || endsWithNewline { out.append(UInt8(ascii: "\n")) }
        }
        return out
    }

    /// The index of the first `[group]` header with this name.
    public func header(of group: String) -> Int? {
        lines.firstIndex { $0.kind == .group(group) }
    }

    /// Indices of the lines after `header` up to the next group header.
    public func body(after header: Int) -> Range<Int> {
        let end = lines[(header + 1)...].firstIndex { if case .group = $0.kind { true } else { false } } ?? lines.count
        return (header + 1)..<end
    }

    /// The effective line for `key` in the first `group` (GLib keeps the last of duplicates).
    public func entry(_ key: String, in group: String) -> (index: Int, value: String)? {
        guard let header = header(of: group) else { return nil }
        for index in body(after: header).reversed() {
            if case .entry(key, let value) = lines[index].kind { return (index, value) }
        }
        return nil
    }

    /// Every `key=value` of the first `group`, in file order (the last wins on duplicates).
    public func entries(in group: String) -> [(key: String, value: String)] {
        guard let header = header(of: group) else { return [] }
        return body(after: header).compactMap { index in
            if case .entry(let key, let value) = lines[index].kind { (key, value) } else { nil }
        }
    }

    /// Replaces line `index` with `text`, which must parse as a line of this file.
    public mutating func replaceLine(at index: Int, with text: String) throws(KeyFileError) {
        lines[index] = try Self.parse(text, file: file, number: index + 1, inGroup: true)
    }

    public mutating func insertLine(_ text: String, at index: Int) throws(KeyFileError) {
        lines.insert(try Self.parse(text, file: file, number: index + 1, inGroup: true), at: index)
    }

    public mutating func removeLine(at index: Int) {
        lines.remove(at: index)
        if lines.isEmpty { endsWithNewline = true }
    }

    /// Appends a line at the end; a missing final newline is added first (it ends the old last line).
    public mutating func appendLine(_ text: String) throws(KeyFileError) {
        lines.append(try Self.parse(text, file: file, number: lines.count + 1, inGroup: true))
        endsWithNewline = true
    }

    /// Drops the final newline again (undoing what `appendLine` added to a file that lacked one).
    public mutating func removeFinalNewline() {
        if !lines.isEmpty { endsWithNewline = false }
    }

    // Byte by byte over UTF-8 (every delimiter is ASCII): a record of a few hundred schemes is
    // parsed in a link's path, and Character-wise it took 10 ms.
    static func parse(_ text: String, file: String, number: Int, inGroup: Bool) throws(KeyFileError) -> Line {
        func malformed(_ reason: String) -> KeyFileError {
            .malformed(file: file, line: number, text: text, reason: reason)
        }
        let bytes = text.utf8
        // GLib skips leading blanks on every line.
        guard let start = bytes.firstIndex(where: { !isBlank($0) }) else { return Line(text: text, kind: .blank) }
        let first = bytes[start]
        if first == UInt8(ascii: "#") { return Line(text: text, kind: .comment) }
        if first == UInt8(ascii: "[") {
            let end = endTrimmingBlanks(bytes, from: bytes.index(after: start))
            guard end > bytes.index(after: start), bytes[bytes.index(before: end)] == UInt8(ascii: "]") else {
                throw malformed("a group header must end with ']'")
            }
            let name = text[bytes.index(after: start)..<bytes.index(before: end)]
            guard !name.isEmpty, !name.utf8.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") || isControl($0) })
            else { throw malformed("'\(name)' is not a valid group name") }
            return Line(text: text, kind: .group(String(name)))
        }
        guard let equals = bytes[start...].firstIndex(of: UInt8(ascii: "=")) else {
            throw malformed("not a [group] header, a key=value pair or a # comment")
        }
        let key = text[start..<endTrimmingBlanks(bytes[start..<equals], from: start)]
        guard !key.isEmpty else { throw malformed("a key=value pair needs a key") }
        guard Self.isValidKey(key) else { throw malformed("'\(key)' is not a valid key") }
        guard inGroup else { throw malformed("key '\(key)' comes before the first [group] header") }
        let afterEquals = bytes.index(after: equals)
        let valueStart = bytes[afterEquals...].firstIndex { !isBlank($0) } ?? bytes.endIndex
        return Line(text: text, kind: .entry(key: String(key), value: String(text[valueStart...])))
    }

    /// GLib's rule: no control characters; `[` only to open one trailing `[locale]`.
    static func isValidKey(_ key: Substring) -> Bool {
        let bytes = key.utf8
        if bytes.contains(where: isControl) { return false }
        guard let open = bytes.firstIndex(of: UInt8(ascii: "[")) else { return !bytes.contains(UInt8(ascii: "]")) }
        let locale = bytes[bytes.index(after: open)...]
        guard open != bytes.startIndex, locale.count > 1, locale.last == UInt8(ascii: "]") else { return false }
        return !locale.dropLast().contains { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    /// The end of `bytes` once trailing blanks are dropped, never before `start`.
    static func endTrimmingBlanks<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes, from start: Bytes.Index) -> Bytes.Index {
        var end = bytes.endIndex
        while end > start, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return end
    }
}

/// A key file that could not be read, parsed or written; each case names the file.
public enum KeyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Line `line` (1-based) of `file` is not valid key-file syntax.
    case malformed(file: String, line: Int, text: String, reason: String)
    /// The file exists but could not be read or written; `reason` is the system's message.
    case inaccessible(file: String, reason: String)

    public var description: String {
        switch self {
        case .malformed(let file, let line, let text, let reason):
            "\(file):\(line): \(reason): \(text.debugDescription)"
        case .inaccessible(let file, let reason): "\(file): \(reason)"
        }
    }
}

extension KeyFileText {
    /// The key-file escapes of a value: `\s` for a leading blank, `\n`, `\t`, `\r`, `\\`.
    public static func escape(_ value: String) -> String {
        var out = ""
        for (offset, character) in value.enumerated() {
            switch character {
            case " " where offset == 0: out += "\\s"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out.append(character)
            }
        }
        return out
    }

    /// Undoes `escape`; an unknown escape is kept as written.
    public static func unescape(_ value: String) -> String {
        guard value.utf8.contains(UInt8(ascii: "\\")) else { return value }
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        var bytes = value.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "\\"), let next = bytes.next() else {
                out.append(byte)
                continue
            }
            switch next {
            case UInt8(ascii: "s"): out.append(UInt8(ascii: " "))
            case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            default: out += [UInt8(ascii: "\\"), next]
            }
        }
        // Only ASCII bytes were replaced, by ASCII: the result is as valid as the value.
        return String(decoding: out, as: UTF8.self)
    }

    /// The items of a `;`-separated list value (`a.desktop;b.desktop;`), unescaped.
    public static func list(_ value: String) -> [String] {
        value.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true)
            .map { unescape(String(Substring(value[$0.startIndex..<$0.endIndex]))).trimmingBlanks() }.filter { !$0.isEmpty }
    }
}

extension String {
    func trimmingBlanks() -> String {
        let bytes = utf8
        guard let start = bytes.firstIndex(where: { !KeyFileText.isBlank($0) }) else { return "" }
        let end = KeyFileText.endTrimmingBlanks(bytes, from: start)
        if start == bytes.startIndex, end == bytes.endIndex { return self }
        return String(self[start..<end])
    }
}
