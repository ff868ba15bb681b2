public import Desktop

/// Which app a process is: what the dispatcher reads of running processes to tell (registration's
/// identity check and its re-check before each call acting as the app, the walk to a link's
/// opener). `ProcessTable` reads `/proc`; tests give values, so the choices are unit tests.
public protocol RunningProcesses: Sendable {
    /// Everything identifying process `pid` can use (`RunningProgram.record(ofProcess:)`).
    func record(ofProcess pid: Int32) -> Result<ProcessRecord, ProcessReadFailure>
    /// Process `pid` as identifying it against `programs` needs, for the walk to an opener.
    func record(ofProcess pid: Int32, against programs: InstalledPrograms) -> Result<ProcessRecord, ProcessReadFailure>
    /// A process's parent read again now (the walk's doubt about a kept record); nil when unreadable.
    func currentParent(of process: ProcessRecord) -> Int32?
    /// The program process `pid` runs now.
    func executable(ofProcess pid: Int32) throws(RunningProgramError) -> String
    /// What processes of `entry` run; empty when that cannot be told.
    func signatures(of entry: ApplicationEntry) -> [ProgramSignature]
    /// A connection's process is no longer needed for walks (it may be kept for them meanwhile).
    func forget(_ pid: Int32)
}

/// The running processes as `/proc` shows them: the walks' reads go through `KnownProcesses`, so a
/// process met by an earlier walk is read only as far as it can have changed.
public final class ProcessTable: RunningProcesses {
    let known = KnownProcesses()

    public init() {}

    public func record(ofProcess pid: Int32) -> Result<ProcessRecord, ProcessReadFailure> {
        RunningProgram.record(ofProcess: pid)
    }

    public func record(ofProcess pid: Int32, against programs: InstalledPrograms) -> Result<ProcessRecord, ProcessReadFailure> {
        known.record(ofProcess: pid, against: programs)
    }

    public func currentParent(of process: ProcessRecord) -> Int32? { known.currentParent(of: process) }

    public func executable(ofProcess pid: Int32) throws(RunningProgramError) -> String {
        try RunningProgram.executable(ofProcess: pid)
    }

    /// Reads the program's `#!` line and a wrapper's text.
    public func signatures(of entry: ApplicationEntry) -> [ProgramSignature] {
        (try? InstalledPrograms.signatures(of: entry)) ?? []
    }

    public func forget(_ pid: Int32) { known.forget(pid) }
}
