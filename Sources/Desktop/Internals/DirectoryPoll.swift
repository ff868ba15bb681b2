internal import CGIO
internal import Glibc

/// What polling compares of a directory: each entry's name, size, modification time and inode (a
/// file renamed into place is a new inode even when size and second match). A directory that does
/// not exist reads as empty, so its appearing with a file is a change.
struct DirectoryState: Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        let size: Int
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int
        let inode: UInt
    }

    let entries: [String: Entry]

    /// `g_dir_open`, `g_dir_read_name`, `lstat`.
    init(reading directory: String) {
        var entries: [String: Entry] = [:]
        if let handle = gio.g_dir_open(directory, 0, nil) {
            defer { gio.g_dir_close(handle) }
            while let name = gio.g_dir_read_name(handle) {
                let name = String(cString: name)
                var status = stat()
                guard lstat(directory + "/" + name, &status) == 0 else { continue }
                entries[name] = Entry(
                    size: Int(status.st_size), modifiedSeconds: Int(status.st_mtim.tv_sec),
                    modifiedNanoseconds: Int(status.st_mtim.tv_nsec), inode: UInt(status.st_ino))
            }
        }
        self.entries = entries
    }
}

/// Directories GIO could not monitor (inotify's limit of instances reached, most often), checked
/// every `interval` instead: slower to notice, never blind.
enum DirectoryPoll {
    /// Each directory is read once before this returns, so no change after the call is missed.
    static func start(_ directories: [String], every interval: Duration, _ handler: @escaping @Sendable (String) -> Void) {
        let first = directories.map { DirectoryState(reading: $0) }
        Task.detached {
            var states = first
            while true {
                try? await Task.sleep(for: interval)
                for (index, directory) in directories.enumerated() {
                    let now = DirectoryState(reading: directory)
                    if now != states[index] {
                        states[index] = now
                        handler(directory)
                    }
                }
            }
        }
    }
}
