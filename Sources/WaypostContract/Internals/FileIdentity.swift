internal import Glibc

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
