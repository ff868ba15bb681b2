/// Facts about running processes that the dispatcher checks before trusting a registration.
public enum RunningProgram {
    /// The absolute path of the program process `pid` runs, read from `/proc/<pid>/exe`.
    ///
    /// Symlinks are already resolved by the kernel. A program replaced on disk since it started reads
    /// with a ` (deleted)` suffix, which is kept: it no longer is the installed program.
    /// - Throws: `RunningProgramError` with the pid: no such process, or not ours to inspect.
    public static func executable(ofProcess pid: Int32) throws(RunningProgramError) -> String {
        guard pid > 0 else { throw RunningProgramError(pid: pid, reason: "not a process id") }
        switch readProcessExecutable(pid: pid) {
        case .success(let path): return path
        case .failure(let error): throw RunningProgramError(pid: pid, reason: errnoMessage(error.code))
        }
    }
}

/// Reading a process's program failed; `reason` is the system's explanation.
public struct RunningProgramError: Error, Sendable, Hashable, CustomStringConvertible {
    public let pid: Int32
    public let reason: String

    public var description: String { "cannot read the program of process \(pid): \(reason)" }
}

extension RunningProgram {
    /// Everything identifying process `pid` can use (program, arguments, script, sandbox, parent,
    /// start), read from `/proc/<pid>`: `gone` when it exited before or while it was read (its pid
    /// taken by a newer process or not), `stranger` for another user's process.
    public static func record(ofProcess pid: Int32) -> Result<ProcessRecord, ProcessReadFailure> {
        readProcessRecord(pid: pid) { _ in true }
    }

    /// What identifying process `pid` against `programs` needs: its arguments (and a script's
    /// directory) only when they decide (`InstalledPrograms.needsArguments`), else left empty.
    public static func record(ofProcess pid: Int32, against programs: InstalledPrograms) -> Result<ProcessRecord, ProcessReadFailure> {
        readProcessRecord(pid: pid, needsArguments: programs.needsArguments(toIdentify:))
    }

    /// Now, in the clock of `ProcessRecord.startTime` (clock ticks since boot).
    public static func bootTicksNow() -> UInt64 { readBootTicks() }
}

extension InstalledPrograms {
    /// What processes of `entry` run (reads the program's `#!` line and a wrapper's text).
    /// - Throws: `GIOLoadError`: programs are looked up in PATH as GLib does for `Exec`.
    public static func signatures(of entry: ApplicationEntry) throws(GIOLoadError) -> [ProgramSignature] {
        try GIO.load()
        return resolvedSignatures(of: entry)
    }
}
