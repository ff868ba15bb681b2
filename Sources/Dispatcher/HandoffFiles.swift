import Desktop

/// The trusted devices' file: one KDE Connect device id a line, written whole (Desktop's `Files`).
enum HandoffFiles {
    static func lines(of path: String) -> [String]? {
        guard let bytes = try? Files.read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    static func write(lines: [String], to path: String) throws(KeyFileError) {
        try Files.write(Array(lines.map { $0 + "\n" }.joined().utf8), to: path, mode: 0o600)
    }
}
