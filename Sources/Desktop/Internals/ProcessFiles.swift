internal import Glibc

// Reading /proc and the files an entry's program is resolved through. Each read is a few system
// calls; nothing here follows a path the process chose beyond its own /proc directory.

/// The process's record, read twice-checked: its `stat` before and after the other files, so that a
/// pid reused meanwhile reads as `reused`, never as a mix of two processes. `stat`, `open`, `readlink`.
func readProcessRecord(pid: Int32) -> Result<ProcessRecord, ProcessReadFailure> {
    guard pid > 0 else { return .failure(.gone) }
    let directory = "/proc/\(pid)"
    var status = stat()
    guard stat(directory, &status) == 0 else { return .failure(errno == ENOENT ? .gone : .stranger) }
    guard status.st_uid == getuid() else { return .failure(.stranger) }
    guard let before = readSmallFile(directory + "/stat").flatMap({ ProcFiles.stat(String(decoding: $0, as: UTF8.self)) }) else {
        return .failure(.gone)
    }
    let executable = try? readLink(directory + "/exe").get()
    guard let commandLine = readSmallFile(directory + "/cmdline", limit: 64 * 1024) else { return .failure(.gone) }
    let arguments = ProcFiles.arguments(commandLine)
    var script: (written: String, resolved: String, index: Int)?
    if let executable, let family = Interpreter.family(of: baseName(executable)),
       let (written, index) = Interpreter.scriptArgument(arguments, family: family) {
        let cwd = (try? readLink(directory + "/cwd").get()) ?? "/"
        let absolute = written.hasPrefix("/") ? written : cwd + "/" + written
        script = (written, canonicalPath(absolute) ?? absolute, index)
    }
    var sandbox = readSmallFile(directory + "/root/.flatpak-info").flatMap { ProcFiles.flatpak(info: String(decoding: $0, as: UTF8.self)) }
    if sandbox == nil {
        sandbox = readSmallFile(directory + "/cgroup").flatMap { ProcFiles.snap(cgroup: String(decoding: $0, as: UTF8.self)) }
    }
    guard let after = readSmallFile(directory + "/stat").flatMap({ ProcFiles.stat(String(decoding: $0, as: UTF8.self)) }) else {
        return .failure(.gone)
    }
    guard after.startTime == before.startTime else { return .failure(.reused) }
    return .success(ProcessRecord(
        pid: pid, parent: after.parent, name: after.name, startTime: after.startTime, executable: executable,
        arguments: arguments, script: script, sandbox: sandbox))
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

/// A symbolic link's target (`/proc/PID/exe`, `cwd`). `readlink`.
func readLink(_ path: String) -> Result<String, SystemErrno> {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length >= 0 else { return .failure(SystemErrno(code: errno)) }
    return .success(String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
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
