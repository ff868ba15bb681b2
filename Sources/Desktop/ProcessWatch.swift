import Synchronization

/// One running process, held by a pidfd: it names that process only, never a later one given the
/// same pid, so a check made through it cannot be fooled by the pid being reused.
public final class ProcessHandle: Sendable {
    public let pid: Int32
    let descriptor: Int32

    /// Opens a handle to process `pid` (Linux 5.3's `pidfd_open`).
    /// - Throws: `RunningProgramError` with the pid: it exited already, or is not ours.
    public init(pid: Int32) throws(RunningProgramError) {
        guard pid > 0 else { throw RunningProgramError(pid: pid, reason: "not a process id") }
        switch openProcessDescriptor(pid) {
        case .success(let descriptor): (self.pid, self.descriptor) = (pid, descriptor)
        case .failure(let error): throw RunningProgramError(pid: pid, reason: errnoMessage(error.code))
        }
    }

    /// Whether the process has exited (it may not have been reaped yet; it runs nothing any more).
    public var hasExited: Bool { processDescriptorHasExited(descriptor) }

    deinit { closeDescriptor(descriptor) }
}

/// Tells when watched processes exit: one thread of its own waits on all their handles at once
/// (`poll` on the pidfds) and calls each one's action once, on that thread, then forgets it.
/// Policy: an action must return quickly (hand the news to an executor); watching a handle again
/// replaces its action.
public final class ProcessExits: Sendable {
    private struct Watched: Sendable {
        let handle: ProcessHandle
        let onExit: @Sendable () -> Void
    }

    /// Watched handles by descriptor; the thread polls a copy, so a handle stays open while polled.
    private let watched = Mutex<[Int32: Watched]>([:])
    private let wakePipe = makeWakePipe()

    /// The daemon's one watcher: its thread lives as long as the process.
    public static let shared = ProcessExits()

    private init() {
        startThread { [self] in run() }
    }

    /// Calls `onExit` once `handle`'s process has exited (at once when it already has).
    public func watch(_ handle: ProcessHandle, onExit: @escaping @Sendable () -> Void) {
        watched.withLock { $0[handle.descriptor] = Watched(handle: handle, onExit: onExit) }
        wake(wakePipe)
    }

    /// Stops watching `handle`; its action will not be called (unless it is being called now).
    public func stopWatching(_ handle: ProcessHandle) {
        let removed = watched.withLock { $0.removeValue(forKey: handle.descriptor) }
        if removed != nil { wake(wakePipe) }
    }

    private func run() {
        while true {
            let current = watched.withLock { Array($0.values) }
            let ready = waitForReadable([wakePipe.read] + current.map(\.handle.descriptor))
            for index in ready {
                guard index > 0 else { drain(wakePipe); continue }
                let exited = current[index - 1]
                let stillWatched = watched.withLock { watched in
                    guard watched[exited.handle.descriptor]?.handle === exited.handle else { return false }
                    watched[exited.handle.descriptor] = nil
                    return true
                }
                if stillWatched { exited.onExit() }
            }
        }
    }
}
