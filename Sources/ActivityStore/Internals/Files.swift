// What is at the store's path before SQLite opens it, and where its directory really is.
import Glibc

enum Files {
    /// What `lstat` finds at a path: nothing, a regular file, or something else, named for a person.
    enum Kind: Equatable {
        case absent
        case regular
        case other(String)
    }

    /// The kind of what is at `path`, its last component not followed. `lstat`.
    static func kind(of path: String) -> Kind {
        var status = stat()
        guard lstat(path, &status) == 0 else { return errno == ENOENT ? .absent : .other(String(cString: strerror(errno))) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFLNK: return .other("a symbolic link")
        case S_IFDIR: return .other("a directory")
        case S_IFIFO: return .other("a FIFO")
        case S_IFSOCK: return .other("a socket")
        default: return .other("a device")
        }
    }

    /// `path` with its directory's symbolic links resolved and its last component kept as it is, so
    /// that a home reached through a link (`/home` → `/var/home`) is no link SQLite refuses; nil when
    /// the directory cannot be resolved. `realpath` (its result freed here).
    static func resolvingDirectory(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        guard let resolved = realpath(directory, nil) else { return nil }
        defer { free(resolved) }
        let base = String(cString: resolved)
        return (base == "/" ? "" : base) + path[slash...]
    }
}
