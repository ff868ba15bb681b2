internal import Glibc

// The few file operations the dispatcher check makes, behind wrappers that name their C calls.

/// Which file a path leads to, whatever its name: the device and inode `stat` gives, following
/// links (`/proc/PID/exe` leads to the file the process runs, even in another mount namespace).
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    /// Nil when `path` cannot be followed to a file. `stat`.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// The bytes of `path` when it is a regular file of at most `limit` bytes; nil otherwise. Opened
/// without waiting: a FIFO put in a service file's place would block `open` until someone wrote.
/// `open` (`O_NONBLOCK`), `fstat`, `read`.
func readRegularFile(_ path: String, limit: Int) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= limit else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    var filled = 0
    while filled < bytes.count {
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        filled += count
    }
    return Array(bytes[0..<filled])
}
