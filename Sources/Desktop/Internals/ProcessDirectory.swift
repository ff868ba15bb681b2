internal import Glibc

// The walk's reads of one process, split so that a process kept from an earlier walk
// (`KnownProcesses`) is read again only where it can have changed.

/// An open `/proc/PID` directory. The kernel ties it to the process, not to its number: once the
/// process has exited every read through it fails, even when a newer process has taken the pid.
/// Closed when released. `open`, `fstat`, `close`.
final class ProcessDirectory: Sendable {
    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Opens process `pid`'s directory: `gone` when there is no such process, `stranger` when it is
    /// another user's.
    static func open(_ pid: Int32) -> Result<ProcessDirectory, ProcessReadFailure> {
        guard pid > 0 else { return .failure(.gone) }
        let descriptor = openProcessDirectory(pid)
        guard descriptor >= 0 else { return .failure(errno == ENOENT || errno == ESRCH ? .gone : .stranger) }
        let handle = ProcessDirectory(descriptor: descriptor)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.gone) }
        guard status.st_uid == getuid() else { return .failure(.stranger) }
        return .success(handle)
    }

    deinit { close(descriptor) }
}

/// What `/proc/PID/stat` says of the process: its name, its parent and when it started. Only the
/// start never changes; the parent changes when the parent exits, the name on `exec` (or `prctl`).
struct ProcessStat {
    let name: String
    let parent: Int32
    let startTime: UInt64
}

/// What identifying the process reads besides `stat`: all of it can change while the process lives
/// (`exec`, `unshare`, a cgroup move, its own argument vector rewritten).
struct ProcessProgram: Equatable {
    /// The `ns/mnt` link (`mnt:[4026531841]`).
    let mountNamespace: String?
    let executable: String?
    let arguments: [String]
    let script: (written: String, resolved: String, index: Int)?
    let sandbox: Sandbox?

    static func == (a: ProcessProgram, b: ProcessProgram) -> Bool {
        a.mountNamespace == b.mountNamespace && a.executable == b.executable && a.arguments == b.arguments
            && a.script?.resolved == b.script?.resolved && a.script?.index == b.script?.index && a.sandbox == b.sandbox
    }
}

extension ProcessDirectory {
    /// `stat`, read once (the kernel writes the whole line in one read); nil once the process is gone.
    /// `openat`, `read`.
    func readStat() -> ProcessStat? {
        guard let (name, parent, startTime) = withFile(descriptor, "stat", capacity: 1024, untilEnd: false, { ProcFiles.stat(bytes: $0) }) ?? nil
        else { return nil }
        return ProcessStat(name: name, parent: parent, startTime: startTime)
    }

    /// The program side, as far as identifying needs (`readProcessRecord` says what and why); nil
    /// once the process is gone. `readlinkat`, `openat`, `read`.
    func readProgram(needsArguments: (String?) -> Bool) -> ProcessProgram? {
        let namespace = readLink(at: descriptor, "ns/mnt")
        let ownNamespace = namespace.map { $0 == ownMountNamespace } ?? false
        var sandbox = ownNamespace ? nil : readSandbox(descriptor)
        var executable = readLink(at: descriptor, "exe")
        if ownNamespace, Sandbox.isPossible(inOwnMountNamespace: true, running: executable) { sandbox = readSandbox(descriptor) }
        // In a mount namespace of its own, the path the kernel shows may lead to another file here
        // (a bind mount over an app's program): only the same file is that program.
        if !ownNamespace, sandbox == nil, let path = executable, !isSameFile(descriptor, "exe", path) {
            executable = path + " (another file, in mount namespace \(namespace ?? "?"))"
        }
        var arguments: [String] = []
        var script: (written: String, resolved: String, index: Int)?
        if needsArguments(executable) {
            // A live process with a program always has an argument vector: none means it was exiting.
            guard let read = withFile(descriptor, "cmdline", capacity: 64 * 1024, untilEnd: true, { ProcFiles.arguments($0) }),
                  !read.isEmpty || executable == nil
            else { return nil }
            arguments = read
            if let executable, let family = Interpreter.family(of: baseName(executable)),
               let (written, index) = Interpreter.scriptArgument(arguments, family: family) {
                let absolute = written.hasPrefix("/") ? written : (readLink(at: descriptor, "cwd") ?? "/") + "/" + written
                script = (written, canonicalPath(absolute) ?? absolute, index)
            }
        }
        return ProcessProgram(mountNamespace: namespace, executable: executable, arguments: arguments, script: script, sandbox: sandbox)
    }
}

extension ProcessRecord {
    init(pid: Int32, _ stat: ProcessStat, _ program: ProcessProgram) {
        self.init(
            pid: pid, parent: stat.parent, name: stat.name, startTime: stat.startTime, executable: program.executable,
            arguments: program.arguments, script: program.script, sandbox: program.sandbox)
    }
}

/// `/.flatpak-info` in the process's root, else the snap its cgroup names.
private func readSandbox(_ directory: Int32) -> Sandbox? {
    withFile(directory, "root/.flatpak-info", capacity: 4096, untilEnd: true) { ProcFiles.flatpak(info: String(decoding: $0, as: UTF8.self)) } ?? nil
        ?? withFile(directory, "cgroup", capacity: 4096, untilEnd: true) { ProcFiles.snap(cgroup: $0) } ?? nil
}

/// Whether `name` in `directory` (followed: `exe` leads to the file a process runs) and `path` here
/// are one file, by device and inode. `fstatat`, `stat`.
private func isSameFile(_ directory: Int32, _ name: String, _ path: String) -> Bool {
    var theirs = stat(), ours = stat()
    guard fstatat(directory, name, &theirs, 0) == 0, stat(path, &ours) == 0 else { return false }
    return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino
}

/// The daemon's own mount namespace (`mnt:[4026531841]`), nil when unreadable (every process is
/// then looked at for a sandbox).
private let ownMountNamespace: String? = {
    let directory = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else { return nil }
    defer { close(directory) }
    return readLink(at: directory, "ns/mnt")
}()

/// `open("/proc/PID", O_DIRECTORY)`, the path written on the stack.
private func openProcessDirectory(_ pid: Int32) -> Int32 {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 24) { path in
        var index = 0
        for byte in "/proc/".utf8 { path[index] = CChar(bitPattern: byte); index += 1 }
        var digits = pid, start = index
        repeat { path[index] = CChar(48 + digits % 10); digits /= 10; index += 1 } while digits > 0
        path[index] = 0
        var end = index - 1
        while start < end { path.swapAt(start, end); start += 1; end -= 1 }
        return open(path.baseAddress!, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }
}

/// `body` applied to the first `capacity` bytes of `name` in `directory`, read into a stack buffer;
/// nil when it cannot be opened or read. `untilEnd` false: one `read` (for files the kernel writes
/// whole in one, such as `stat`), else reads until the end. `openat`, `read`.
private func withFile<T>(
    _ directory: Int32, _ name: String, capacity: Int, untilEnd: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> T
) -> T? {
    let descriptor = openat(directory, name, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer -> T? in
        var filled = 0
        while filled < capacity {
            let count = read(descriptor, buffer.baseAddress! + filled, capacity - filled)
            if count < 0, errno == EINTR { continue }
            if count < 0 { if filled == 0 { return nil } else { break } }
            if count == 0 { break }
            filled += count
            if !untilEnd { break }
        }
        return body(UnsafeBufferPointer(rebasing: buffer[0..<filled]))
    }
}

/// The target of the symbolic link `name` in `directory` (`exe`, `cwd`); nil when unreadable. `readlinkat`.
private func readLink(at directory: Int32, _ name: String) -> String? {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX)) { buffer in
        let length = readlinkat(directory, name, buffer.baseAddress!, buffer.count)
        guard length >= 0, length < buffer.count else { return nil }
        return UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length).withMemoryRebound(to: UInt8.self) {
            String(decoding: $0, as: UTF8.self)
        }
    }
}
