import AssociationSources
import Planning
import Synchronization

/// The remembered choices as plans read them: the choices file's book, read again only when the
/// file's version changed (`waypost choices` writes it too), one `stat` an event otherwise.
final class ChoiceStore: Sendable {
    /// Nil: choices live only in memory (tests, a daemon without a config directory).
    let file: ChoiceFile?
    private let current: Mutex<(book: ChoiceBook, version: ChoiceFile.Version?)>

    init(file: ChoiceFile?) {
        self.file = file
        let read = (try? file?.read()) ?? nil
        current = Mutex((read?.book ?? ChoiceBook(), read?.version))
    }

    /// The book now.
    var book: ChoiceBook {
        guard let file else { return current.withLock { $0.book } }
        let version = file.version
        if let known = current.withLock({ $0.version == version ? $0.book : nil }) { return known }
        // Changed on disk: read once; a file that cannot be read keeps what was known.
        guard let read = try? file.read() else { return current.withLock { $0.book } }
        current.withLock { $0 = (read.book, read.version) }
        return read.book
    }

    /// Remembers `choice` ("always"), on disk when there is a file.
    func remember(_ choice: RememberedChoice) throws(ChoiceFileError) {
        guard let file else { return current.withLock { $0.book.remember(choice) } }
        let (_, book) = try file.change { $0.remember(choice) }
        current.withLock { $0 = (book, file.version) }
    }
}
