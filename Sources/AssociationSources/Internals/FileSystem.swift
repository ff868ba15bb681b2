internal import Glibc

/// The file system calls this module makes, each behind one wrapper that names its C function and
/// throws `SystemCallError` with the path and `errno`.
enum FileSystem {
    /// What identifies one version of a file: a rename gives another inode, a write another
    /// size, mtime or ctime (ctime catches a same-size write within mtime's resolution).
    struct Stamp: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64

        fileprivate init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
        }
    }

    /// The names in `directory` ending in `suffix`, not hidden, that are regular files (or links
    /// to one), with their stamps. Nil when the directory does not exist. `opendir`, `fstatat`.
    static func regularFiles(in directory: String, endingWith suffix: String) throws(SystemCallError) -> [(name: String, stamp: Stamp)]? {
        guard let stream = opendir(directory) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw SystemCallError(function: "opendir", path: directory)
        }
        defer { closedir(stream) }
        let descriptor = dirfd(stream)
        var found: [(String, Stamp)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.hasSuffix(suffix), !name.hasPrefix(".") else { continue }
            var status = stat()
            // Follows links (packages install links into /usr/share); a link whose target vanished is skipped.
            guard fstatat(descriptor, name, &status, 0) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            found.append((name, Stamp(status)))
        }
        return found
    }

    /// The file's bytes, and the stamp of the version read (from the open file, so that the two
    /// agree even when the file is replaced meanwhile). Opened without waiting, and read only when
    /// it is a regular file: a FIFO put in a file's place would block `open` until someone writes.
    /// `open` (`O_NONBLOCK`), `fstat`, `read`.
    /// - Throws: `SystemCallError`: `EFBIG` when it is larger than `limit` bytes, `EINVAL` when it
    ///   is not a regular file.
    static func read(_ path: String, limit: Int) throws(SystemCallError) -> (bytes: [UInt8], stamp: Stamp) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemCallError(function: "open", path: path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SystemCallError(function: "fstat", path: path) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw SystemCallError(function: "open", path: path, code: EINVAL, notRegular: true) }
        let size = Int(status.st_size)
        guard size <= limit else { throw SystemCallError(function: "read", path: path, code: EFBIG, limit: limit) }
        var bytes = [UInt8](repeating: 0, count: size)
        var count = 0
        while count < size {
            let result = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, size - count) }
            if result < 0, errno == EINTR { continue }
            guard result >= 0 else { throw SystemCallError(function: "read", path: path) }
            if result == 0 { break }  // shortened since fstat
            count += result
        }
        bytes.removeLast(size - count)
        return (bytes, Stamp(status))
    }

    /// Writes `bytes` to `path` so that a reader sees the old file or the new one, never a part:
    /// a temporary file beside it, flushed to disk, renamed over it. `open`, `write`, `fsync`, `rename`.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemCallError) {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SystemCallError(function: "open", path: temporary) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                let failure = SystemCallError(function: "write", path: temporary)
                close(descriptor)
                unlink(temporary)
                throw failure
            }
            written += result
        }
        let synced = fsync(descriptor) == 0 ? nil : SystemCallError(function: "fsync", path: temporary)
        close(descriptor)
        if let synced {
            unlink(temporary)
            throw synced
        }
        guard rename(temporary, path) == 0 else {
            let failure = SystemCallError(function: "rename", path: path)
            unlink(temporary)
            throw failure
        }
    }

    /// Makes `path` and its missing parents, each with `mode`. `mkdir`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(SystemCallError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0, errno != EEXIST { throw SystemCallError(function: "mkdir", path: prefix) }
        }
    }

    /// The stamp of the file at `path` now; nil when there is none. `stat`.
    static func stamp(of path: String) -> Stamp? {
        var status = stat()
        return stat(path, &status) == 0 ? Stamp(status) : nil
    }

    /// The directory `path` is in.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Runs `body` holding an exclusive lock on `lockPath` (made if missing), so that two processes
    /// changing one file never lose each other's change. `open`, `flock`.
    static func locked<T, E: Error>(_ lockPath: String, _ body: () throws(E) -> T) throws -> T {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SystemCallError(function: "open", path: lockPath) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw SystemCallError(function: "flock", path: lockPath) }
        }
        return try body()
    }

    /// Removes a file; nothing when it does not exist. `unlink`.
    static func remove(_ path: String) throws(SystemCallError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemCallError(function: "unlink", path: path) }
    }

}

/// A failed system call: which, on what path, and `errno`'s text.
struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    let function: String
    let path: String
    let code: Int32
    /// For `EFBIG`: the size allowed.
    let limit: Int?
    /// The path is a FIFO, a socket, a device or a directory, where a file was expected.
    let notRegular: Bool

    init(function: String, path: String, code: Int32 = errno, limit: Int? = nil, notRegular: Bool = false) {
        self.function = function
        self.path = path
        self.code = code
        self.limit = limit
        self.notRegular = notRegular
    }

    var description: String {
        if code == EFBIG, let limit { return "\(path) is larger than \(limit) bytes" }
        if notRegular { return "\(path) is not a regular file" }
        return "\(path): \(function) failed: \(String(cString: strerror(code)))"
    }

    /// No such file, or a path component is not a directory.
    var isMissing: Bool { code == ENOENT || code == ENOTDIR }
}
