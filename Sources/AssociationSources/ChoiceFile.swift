public import Planning

/// The user's remembered choices on disk: `$XDG_CONFIG_HOME/waypost/choices` (`ChoiceBook`'s
/// text). The daemon writes it when the user says "always"; `waypost choices` changes it too, so
/// every change is a read-modify-write under a lock, and readers notice a change by the file's stamp.
public struct ChoiceFile: Sendable {
    public let path: String
    /// A file larger than this is refused (a choice line is under 600 bytes; 10,000 of them fit).
    public static let sizeLimit = 8 << 20

    /// - Parameter configHome: `$XDG_CONFIG_HOME`.
    public init(configHome: String) { path = "\(configHome)/waypost/choices" }

    /// What identifies the file's current version; nil when there is none.
    public struct Version: Sendable, Hashable { let stamp: FileSystem.Stamp }

    /// The book the file holds (empty when there is no file), and its version.
    /// - Throws: `ChoiceFileError` when it exists and cannot be read.
    public func read() throws(ChoiceFileError) -> (book: ChoiceBook, version: Version?) {
        do {
            let (bytes, stamp) = try FileSystem.read(path, limit: Self.sizeLimit)
            return (ChoiceBook(text: String(decoding: bytes, as: UTF8.self)), Version(stamp: stamp))
        } catch {
            if error.isMissing { return (ChoiceBook(), nil) }
            throw ChoiceFileError(path: path, reason: error.description)
        }
    }

    /// The version on disk now, without reading it; nil when there is no file (or it cannot be seen).
    public var version: Version? { FileSystem.stamp(of: path).map(Version.init) }

    /// Changes the book on disk: read, `change`, written back whole, while holding the file's lock.
    /// - Returns: what `change` returned, and the book written.
    public func change<T>(_ change: (inout ChoiceBook) -> T) throws(ChoiceFileError) -> (T, ChoiceBook) {
        do {
            try FileSystem.makeDirectories(FileSystem.parent(of: path))
            return try FileSystem.locked("\(path).lock") { () throws(ChoiceFileError) in
                var (book, _) = try read()
                let result = change(&book)
                do throws(SystemCallError) { try FileSystem.writeAtomically(Array(book.text.utf8), to: path) } catch {
                    throw ChoiceFileError(path: path, reason: error.description)
                }
                return (result, book)
            }
        } catch let error as ChoiceFileError {
            throw error
        } catch {
            throw ChoiceFileError(path: path, reason: "\(error)")
        }
    }
}

/// The choices file could not be read or written.
public struct ChoiceFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "the choices file \(path): \(reason)" }
}
