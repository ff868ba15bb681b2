internal import Glibc

// Reading /proc and the files an entry's program is resolved through. Each read is a few system
// calls; nothing here follows a path the process chose beyond its own /proc directory (and its
// script, resolved against its working directory).

/// The process's record, every file read through one descriptor of its `/proc/PID` directory
/// (`ProcessDirectory`): a record is therefore never a mix of two processes, and one `stat` (parent,
/// start time) suffices.
///
/// A sandbox is looked for only where one can be (`Sandbox.isPossible`): in a mount namespace other
/// than the daemon's (Flatpak and strict snaps always have their own), or running a program from
/// `/snap` (a classic snap). In another namespace the sandbox is read before the program: an exiting
/// process loses its memory (`exe`, `cmdline`) before its root and cgroup, so a sandbox unreadable
/// because the process was exiting leaves no program to identify it by either. `cmdline` (and
/// `cwd`, for a relative script) only when `needsArguments(executable)` says they decide. Each file
/// is one `openat` and one `read` into a buffer on the stack.
func readProcessRecord(pid: Int32, needsArguments: (String?) -> Bool) -> Result<ProcessRecord, ProcessReadFailure> {
    readProcess(pid: pid, needsArguments: needsArguments).map { $0.record }
}

/// `readProcessRecord`, with the handle it was read through (kept by `KnownProcesses`).
func readProcess(pid: Int32, needsArguments: (String?) -> Bool) -> Result<(record: ProcessRecord, handle: ProcessDirectory, program: ProcessProgram), ProcessReadFailure> {
    let handle: ProcessDirectory
    switch ProcessDirectory.open(pid) {
    case .success(let opened): handle = opened
    case .failure(let failure): return .failure(failure)
    }
    guard let stat = handle.readStat(), let program = handle.readProgram(needsArguments: needsArguments) else { return .failure(.gone) }
    return .success((ProcessRecord(pid: pid, stat, program), handle, program))
}

/// Now, in the clock of `/proc/PID/stat`'s start times: clock ticks since boot. `clock_gettime`
/// (`CLOCK_BOOTTIME`), `sysconf(_SC_CLK_TCK)`.
func readBootTicks() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_BOOTTIME, &now)
    let hertz = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    return UInt64(now.tv_sec) * hertz + UInt64(now.tv_nsec) * hertz / 1_000_000_000
}

/// A file's first `limit` bytes; nil when it cannot be opened or is not a regular file (an entry's
/// `Exec` may name a FIFO, on which a plain `open` would wait). `open` (`O_NONBLOCK`), `fstat`, `read`.
func readSmallFile(_ path: String, limit: Int = 4096) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
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
/// (and, for a shell wrapper, what it `exec`s: an absolute program, or an interpreter with an
/// absolute script).
private func signaturesOfProgram(_ program: String, arguments: [String]) -> [ProgramSignature] {
    guard let head = readSmallFile(program, limit: 256), let shebang = Shebang(head: head) else {
        return [ProgramSignature(.program(program), arguments: arguments)]
    }
    var signatures = [ProgramSignature(.script(interpreter: resolveProgram(shebang.program), script: program), arguments: arguments)]
    if Interpreter.family(of: baseName(shebang.program))?.isShell == true, let text = readSmallFile(program, limit: 64 * 1024) {
        for shape in Shebang.execShapes(ofScript: text) {
            switch shape.kind {
            case .program(let target):
                if let resolved = canonicalPath(target) { signatures.append(ProgramSignature(.program(resolved), arguments: shape.arguments)) }
            case .script(let interpreter, let script):
                signatures.append(ProgramSignature(
                    .script(interpreter: interpreter.flatMap(resolveProgram), script: canonicalPath(script) ?? script), arguments: shape.arguments))
            }
        }
    }
    return signatures
}
