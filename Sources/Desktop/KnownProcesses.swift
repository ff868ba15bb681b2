import Synchronization

/// Processes read by earlier walks to an opener, kept so that the next walk through them reads
/// only what can have changed: the app a link's fresh `gio open` process was spawned by is
/// usually the same one as last time.
///
/// Keyed on the pid, and exact because each kept process keeps its `/proc/PID` directory open
/// (`ProcessDirectory`): reads through it fail once that process has exited, even when a newer one
/// has its pid, so a reused pid is read anew. What a live process can change is read again on
/// every use: its program (`exe`, changed by `exec`), its mount namespace and sandbox, and, where
/// they decide, its arguments and script; any difference and it is read anew, `stat` too (its name
/// changes with `exec`). Only `stat`'s start time (fixed for life), parent and name are kept: the
/// walk checks the parent against start times (`OpenerSearch`) and reads it again when it doubts.
public final class KnownProcesses: Sendable {
    private struct Kept: Sendable {
        let handle: ProcessDirectory
        var record: ProcessRecord
        let program: ProcessProgram
        var used: UInt64
    }

    private struct State: ~Copyable {
        var kept: [Int32: Kept] = [:]
        var uses: UInt64 = 0
    }

    private let state = Mutex(State())
    /// At most this many are kept (one descriptor each); when full, the half used longest ago goes.
    public static let limit = 64

    public init() {}

    /// How many processes are kept now.
    public var count: Int { state.withLock { $0.kept.count } }

    /// Process `pid` as identifying it against `programs` needs it (`RunningProgram.record(ofProcess:against:)`),
    /// read again through the kept handle where one is kept.
    public func record(ofProcess pid: Int32, against programs: InstalledPrograms) -> Result<ProcessRecord, ProcessReadFailure> {
        let needsArguments = programs.needsArguments(toIdentify:)
        if let known = state.withLock({ $0.kept[pid] }) {
            if let program = known.handle.readProgram(needsArguments: needsArguments), program.executable != nil,
               program == known.program {
                state.withLock { state in
                    state.uses += 1
                    state.kept[pid]?.used = state.uses
                }
                return .success(known.record)
            }
            // Gone (the pid may be another process's now), or it runs something else: read anew.
            _ = state.withLock { $0.kept.removeValue(forKey: pid) }
        }
        switch readProcess(pid: pid, needsArguments: needsArguments) {
        case .failure(let failure): return .failure(failure)
        case .success(let read):
            // A process whose program cannot be read has nothing to compare on its next use.
            if read.program.executable != nil { keep(Kept(handle: read.handle, record: read.record, program: read.program, used: 0)) }
            return .success(read.record)
        }
    }

    /// The parent of `record`'s process as `stat` says now (it changes when the parent exits); nil
    /// when that process is gone.
    public func currentParent(of record: ProcessRecord) -> Int32? {
        let kept = state.withLock { $0.kept[record.pid] }
        let handle: ProcessDirectory
        if let kept, kept.record.startTime == record.startTime {
            handle = kept.handle
        } else {
            guard case .success(let opened) = ProcessDirectory.open(record.pid) else { return nil }
            handle = opened
        }
        guard let stat = handle.readStat(), stat.startTime == record.startTime else { return nil }
        state.withLock { state in
            guard let kept = state.kept[record.pid], kept.handle === handle else { return }
            state.kept[record.pid]?.record = kept.record.withParent(stat.parent)
        }
        return stat.parent
    }

    /// Drops what is kept of process `pid`, if anything.
    public func forget(_ pid: Int32) {
        _ = state.withLock { $0.kept.removeValue(forKey: pid) }
    }

    private func keep(_ process: Kept) {
        state.withLock { state in
            if state.kept.count >= Self.limit {
                let oldest = state.kept.sorted { $0.value.used < $1.value.used }.prefix(Self.limit / 2).map(\.key)
                for pid in oldest { state.kept.removeValue(forKey: pid) }
            }
            state.uses += 1
            var process = process
            process.used = state.uses
            state.kept[process.record.pid] = process
        }
    }
}
