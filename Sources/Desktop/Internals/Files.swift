internal import CGIO
internal import Glibc

/// The few file operations installing needs, over the C library: whole-file reads, atomic
/// replacement (a reader never sees half a file), removal, directories, and running a helper.
/// Errors are `KeyFileError.inaccessible` carrying the path and the system's message.
public enum Files {
    /// The file's bytes, or nil when it does not exist. Opened without waiting and read only when it
    /// is a regular file: `open` on a FIFO put in its place would wait for a writer.
    /// A file longer than `limit` bytes is refused (another program's file, read whole).
    /// `open` (`O_NONBLOCK`), `fstat`, `read`.
    public static func read(_ path: String, limit: Int = .max) throws(KeyFileError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .inaccessible(file: path, reason: errnoMessage(errno))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .inaccessible(file: path, reason: errnoMessage(errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .inaccessible(file: path, reason: "not a regular file") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .inaccessible(file: path, reason: errnoMessage(errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > limit { throw .inaccessible(file: path, reason: "longer than \(limit) bytes") }
        }
    }

    /// Replaces `path` with `bytes` atomically (a temporary file in the same directory, renamed),
    /// creating missing parent directories. `open`, `write`, `fsync`, `rename`.
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644) throws(KeyFileError) {
        try makeDirectories(parent(of: path))
        let temporary = parent(of: path) + "/.\(baseName(of: path)).waypost-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw .inaccessible(file: path, reason: errnoMessage(errno)) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = errnoMessage(errno)
                close(descriptor)
                unlink(temporary)
                throw .inaccessible(file: path, reason: reason)
            }
            written += count
        }
        fchmod(descriptor, mode_t(mode))
        fsync(descriptor)
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let reason = errnoMessage(errno)
            unlink(temporary)
            throw .inaccessible(file: path, reason: reason)
        }
    }

    /// Removes a directory when it is empty; nothing otherwise. `rmdir`.
    public static func removeEmptyDirectory(_ path: String) { _ = rmdir(path) }

    /// Removes a file; one that is already gone is fine. `unlink`.
    public static func remove(_ path: String) throws(KeyFileError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .inaccessible(file: path, reason: errnoMessage(errno)) }
    }

    /// Creates `path` and its missing parents. Mode 0755, not the XDG spec's 0700 for user dirs: a
    /// system install's directories must be readable by everyone, and nothing here is secret. `mkdir`.
    public static func makeDirectories(_ path: String) throws(KeyFileError) {
        guard !path.isEmpty, !isDirectory(path) else { return }
        try makeDirectories(parent(of: path))
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw .inaccessible(file: path, reason: errnoMessage(errno)) }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Whether `path` is a directory, following symbolic links. `stat`.
    public static func isDirectory(_ path: String) -> Bool { fileType(path) == S_IFDIR }

    /// Whether `path` is a regular file this user may execute. `stat`, `access`.
    public static func isExecutable(_ path: String) -> Bool {
        fileType(path) == S_IFREG && access(path, X_OK) == 0
    }

    private static func fileType(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    /// The absolute, symlink-free path of this process's program (`/proc/self/exe`).
    public static func currentExecutable() -> String? {
        try? readProcessExecutable(pid: getpid()).get()
    }

    /// `program` found in `PATH` (or itself when it holds a `/`), resolved; nil when absent.
    /// - Throws: `GIOLoadError`: the search is GLib's, the one desktop entries' `TryExec` gets.
    public static func findProgram(_ program: String) throws(GIOLoadError) -> String? {
        try GIO.load()
        return resolveProgram(program)
    }

    /// Runs `program` with `arguments`, waits, and returns its exit status and what it printed
    /// (stdout and stderr together); nil when it could not be started. `g_spawn_sync`.
    /// - Throws: `GIOLoadError` when GIO (GLib) cannot be opened.
    public static func run(_ program: String, _ arguments: [String]) throws(GIOLoadError) -> (status: Int32, output: String)? {
        try GIO.load()
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var output: UnsafeMutablePointer<gchar>? = nil
        var errors: UnsafeMutablePointer<gchar>? = nil
        var status: gint = 0
        let started = argv.withUnsafeBufferPointer { buffer in
            (try? withGLibError { error in
                gio.g_spawn_sync(
                    nil, UnsafeMutablePointer(mutating: buffer.baseAddress), nil, G_SPAWN_SEARCH_PATH, nil, nil,
                    &output, &errors, &status, error)
            }) ?? 0
        }
        let text = (takeGLibString(output) ?? "") + (takeGLibString(errors) ?? "")
        guard started != 0 else { return nil }
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitStatus, text)
    }

    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}

/// The XDG base directories as GLib resolved them for this process (set `XDG_*` before the first
/// GLib call), so that they are the ones GIO reads entries and defaults from.
/// `g_get_user_data_dir`, `g_get_user_config_dir`, `g_get_user_cache_dir`, `g_get_user_state_dir`,
/// `g_get_system_data_dirs` (transfer none, cached by GLib).
public struct XDGDirectories: Sendable, Hashable {
    /// `$XDG_DATA_HOME`, `~/.local/share` by default.
    public let dataHome: String
    /// `$XDG_CONFIG_HOME`, `~/.config` by default.
    public let configHome: String
    /// `$XDG_DATA_DIRS`, in precedence order.
    public let systemDataDirectories: [String]
    /// `$XDG_CACHE_HOME`, `~/.cache` by default.
    public let cacheHome: String
    /// `$XDG_STATE_HOME`, `~/.local/state` by default.
    public let stateHome: String

    /// - Throws: `GIOLoadError` when GIO (GLib) cannot be opened.
    public init() throws(GIOLoadError) {
        try GIO.load()
        self.init(loaded: ())
    }

    /// For the catalog, whose own value proves GIO loaded.
    init(_ catalog: ApplicationCatalog) { self.init(loaded: ()) }

    private init(loaded: Void) {
        dataHome = borrowGLibString(gio.g_get_user_data_dir()) ?? ""
        configHome = borrowGLibString(gio.g_get_user_config_dir()) ?? ""
        systemDataDirectories = borrowGLibStringVector(gio.g_get_system_data_dirs())
        cacheHome = borrowGLibString(gio.g_get_user_cache_dir()) ?? ""
        stateHome = borrowGLibString(gio.g_get_user_state_dir()) ?? ""
    }
}
