import FoundationEssentials
import Glibc
import Synchronization

/// Saves acknowledged before SQLite has them: one JSON line each, appended with one `write` before
/// the daemon replies, so that a killed daemon loses none (the kernel has the bytes); replayed into
/// SQLite at the next open. Emptied whenever SQLite has every save appended so far; kept whole
/// after a failed write, for the next start to try again.
final class Journal: Sendable {
    struct Entry: Codable {
        var activity: ActivityToSave
        /// Unix seconds of the save: its `last_used` when replayed.
        var savedAt: Int64
    }

    let path: String
    private let state: Mutex<(descriptor: Int32, pending: Int, keep: Bool)>

    /// Opens (creating) the journal for appending.
    init(path: String) throws(StoreError) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unavailable(path: path, reason: String(cString: strerror(errno))) }
        state = Mutex((descriptor, 0, false))
    }

    deinit { state.withLock { _ = close($0.descriptor) } }

    /// Saves appended and not yet in SQLite.
    var pending: Int { state.withLock { $0.pending } }

    /// Appends the save; once this returns, it survives the process being killed.
    func append(_ activity: ActivityToSave, savedAt: Int64) throws(StoreError) {
        let line: [UInt8]
        do { line = Array(try JSONEncoder().encode(Entry(activity: activity, savedAt: savedAt))) + [UInt8(ascii: "\n")] } catch {
            throw .database("the save cannot be journaled: \(error)")
        }
        try state.withLock { state throws(StoreError) in
            let written = write(state.descriptor, line, line.count)
            guard written == line.count else {
                // A short write (a full disk) leaves a partial line, which replay skips.
                throw .unavailable(path: path, reason: written < 0 ? String(cString: strerror(errno)) : "the disk is full")
            }
            state.pending += 1
        }
    }

    /// SQLite has one more of the appended saves (or failed it, `stored` false: then the journal
    /// is kept for the next start).
    func settled(stored: Bool) {
        state.withLock { state in
            state.pending -= 1
            if !stored { state.keep = true }
            if state.pending == 0 && !state.keep { _ = ftruncate(state.descriptor, 0) }
        }
    }

    /// The saves a journal holds, oldest first; a line that cannot be read (cut short) is skipped.
    static func entries(at path: String) -> [Entry] {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)), !data.isEmpty else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(Entry.self, from: Data($0)) }
    }

    /// Empties it, once its saves are in SQLite.
    func clear() { state.withLock { _ = ftruncate($0.descriptor, 0) } }
}
