internal import Glibc

// Reading /proc and the files an entry's program is resolved through. Each read is a few system
// calls; nothing here follows a path the process chose beyond its own /proc directory (and its
// script, resolved against its working directory).

/// The process's record, every file read through one descriptor of its `/proc/PID` directory: the
/// kernel ties that descriptor to the process, not to its number, so once the process is gone every
/// read through it fails, even when a new process has taken the pid. A record is therefore never a
/// mix of two processes, and one `stat` (parent, start time) suffices.
///
/// A sandbox is looked for only where one can be (`Sandbox.isPossible`): in a mount namespace other
/// than the daemon's (Flatpak and strict snaps always have their own), or running a program from
/// `/snap` (a classic snap). In another namespace the sandbox is read before the program: an exiting
/// process loses its memory (`exe`, `cmdline`) before its root and cgroup, so a sandbox unreadable
/// because the process was exiting leaves no program to identify it by either. `cmdline` (and
/// `cwd`, for a relative script) only when `needsArguments(executable)` says they decide. Each file
/// is one `openat` and one `read` into a buffer on the stack. `open`, `fstat`, `openat`, `read`,
/// `readlinkat`.
func readProcessRecord(pid: Int32, needsArguments: (String?) -> Bool) -> Result<ProcessRecord, ProcessReadFailure> {
    guard pid > 0 else { return .failure(.gone) }
    let directory = openProcessDirectory(pid)
    guard directory >= 0 else { return .failure(errno == ENOENT || errno == ESRCH ? .gone : .stranger) }
    defer { close(directory) }
    var status = stat()
    guard fstat(directory, &status) == 0 else { return .failure(.gone) }
    guard status.st_uid == getuid() else { return .failure(.stranger) }
    guard let (name, parent, startTime) = withFile(directory, "stat", capacity: 1024, { ProcFiles.stat(bytes: $0) }) ?? nil else {
        return .failure(.gone)
    }
    let ownNamespace = readLink(at: directory, "ns/mnt").map { $0 == ownMountNamespace } ?? false
    var sandbox = ownNamespace ? nil : readSandbox(directory)
    let executable = readLink(at: directory, "exe")
    if ownNamespace, Sandbox.isPossible(inOwnMountNamespace: true, running: executable) { sandbox = readSandbox(directory) }
    var arguments: [String] = []
    var script: (written: String, resolved: String, index: Int)?
    if needsArguments(executable) {
        // A live process with a program always has an argument vector: none means it was exiting.
        guard let read = withFile(directory, "cmdline", capacity: 64 * 1024, { ProcFiles.arguments($0) }),
              !read.isEmpty || executable == nil
        else { return .failure(.gone) }
        arguments = read
        if let executable, let family = Interpreter.family(of: baseName(executable)),
           let (written, index) = Interpreter.scriptArgument(arguments, family: family) {
            let absolute = written.hasPrefix("/") ? written : (readLink(at: directory, "cwd") ?? "/") + "/" + written
            script = (written, canonicalPath(absolute) ?? absolute, index)
        }
    }
    return .success(ProcessRecord(
        pid: pid, parent: parent, name: name, startTime: startTime, executable: executable,
        arguments: arguments, script: script, sandbox: sandbox))
}

/// `/.flatpak-info` in the process's root, else the snap its cgroup names.
private func readSandbox(_ directory: Int32) -> Sandbox? {
    withFile(directory, "root/.flatpak-info", capacity: 4096) { ProcFiles.flatpak(info: String(decoding: $0, as: UTF8.self)) } ?? nil
        ?? withFile(directory, "cgroup", capacity: 4096) { ProcFiles.snap(cgroup: $0) } ?? nil
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
/// nil when it cannot be opened or read. `openat`, `read`.
private func withFile<T>(_ directory: Int32, _ name: String, capacity: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
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

/// Now, in the clock of `/proc/PID/stat`'s start times: clock ticks since boot. `clock_gettime`
/// (`CLOCK_BOOTTIME`), `sysconf(_SC_CLK_TCK)`.
func readBootTicks() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_BOOTTIME, &now)
    let hertz = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    return UInt64(now.tv_sec) * hertz + UInt64(now.tv_nsec) * hertz / 1_000_000_000
}

/// A file's first `limit` bytes; nil when it cannot be opened. `open`, `read`.
func readSmallFile(_ path: String, limit: Int = 4096) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: limit)
    var filled = 0
    while filled < limit {
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, limit - filled) }
        if count < 0, errno == EINTR { continue }
        if count < 0 { return filled == 0 ? nil : Array(bytes[0..<filled]) }
        if count == 0 { break }
        filled += count
    }
    return Array(bytes[0..<filled])
}

/// The absolute, symlink-free form of an existing path; nil when it does not exist. `realpath`.
func canonicalPath(_ path: String) -> String? {
    guard let canonical = realpath(path, nil) else { return nil }
    defer { free(canonical) }
    return String(cString: canonical)
}

/// What an entry's processes run, its names resolved: the program found in PATH, a script's
/// interpreter from its `#!` line, the programs a wrapper script `exec`s, and `X-Waypost-Executable`.
func resolvedSignatures(of entry: ApplicationEntry) -> [ProgramSignature] {
    var signatures: [ProgramSignature] = []
    let argv: [String]? =
        if let exec = entry.exec, !exec.isEmpty { try? execArguments(exec) } else { entry.tryExec.map { [$0] } }
    if let argv, let shape = LaunchShape.of(execArguments: argv) {
        switch shape.kind {
        case .program(let name):
            if let program = resolveProgram(name) {
                signatures += signaturesOfProgram(program, arguments: shape.arguments)
            }
        case .script(let interpreter, let script):
            let resolvedScript = script.hasPrefix("/") ? canonicalPath(script) ?? script : script
            signatures.append(ProgramSignature(
                .script(interpreter: interpreter.flatMap(resolveProgram), script: resolvedScript), arguments: shape.arguments))
        }
    }
    if let declared = entry.declaredExecutable, let program = canonicalPath(declared) {
        signatures.append(ProgramSignature(.program(program)))
    }
    return signatures
}

/// A program as its processes show it: itself, or, for a `#!` script, its interpreter running it
/// (and, for a shell wrapper, the absolute programs it `exec`s).
private func signaturesOfProgram(_ program: String, arguments: [String]) -> [ProgramSignature] {
    guard let head = readSmallFile(program, limit: 256), let shebang = Shebang(head: head) else {
        return [ProgramSignature(.program(program), arguments: arguments)]
    }
    var signatures = [ProgramSignature(.script(interpreter: resolveProgram(shebang.program), script: program), arguments: arguments)]
    if Interpreter.family(of: baseName(shebang.program))?.isShell == true, let text = readSmallFile(program, limit: 64 * 1024) {
        for target in Shebang.execTargets(ofScript: text) {
            if let resolved = canonicalPath(target) { signatures.append(ProgramSignature(.program(resolved))) }
        }
    }
    return signatures
}
