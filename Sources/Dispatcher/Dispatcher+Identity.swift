import DBus
import Desktop
import Logging

extension Dispatcher {
    /// Checks that process `pid` is a process of `entry`'s app: in its sandbox (Flatpak, snap), or
    /// running what its `Exec` runs as `InstalledPrograms` follows it (through `env`, `sh -c`, an
    /// interpreter and its script, a `#!` script, a wrapper's `exec`, or `X-Waypost-Executable`).
    /// - Returns: the process as it was identified.
    /// - Throws: `programMismatch` naming what the entry runs and what the process runs.
    @discardableResult
    func checkIdentity(pid: UInt32, of entry: ApplicationEntry) throws(DispatchError) -> ProcessRecord {
        try Self.identify(pid: pid, of: entry, in: processes)
    }

    /// `checkIdentity` over any `RunningProcesses`: the choice alone, unit-tested over values.
    static func identify(pid: UInt32, of entry: ApplicationEntry, in processes: any RunningProcesses) throws(DispatchError) -> ProcessRecord {
        let process: ProcessRecord
        switch processes.record(ofProcess: Int32(bitPattern: pid)) {
        case .success(let record): process = record
        case .failure(let failure):
            throw .programMismatch(app: entry.id, expected: entry.executablePath ?? "?", running: "process \(pid) cannot be read (\(failure))")
        }
        let signatures = processes.signatures(of: entry)
        guard InstalledPrograms.isProcess(process, of: entry.id, signatures) else {
            let expected = signatures.isEmpty ? "a program that is not installed" : signatures.map(\.description).joined(separator: " or ")
            throw .programMismatch(app: entry.id, expected: expected, running: describe(process))
        }
        return process
    }

    /// What a process runs, as a mismatch names it.
    static func describe(_ process: ProcessRecord) -> String {
        if let sandbox = process.sandbox { return sandbox.description }
        let program = process.executable ?? process.name
        guard let script = process.script else { return program }
        return "\(program) running \(script.resolved)"
    }

    // MARK: The registered process, held from registration on

    /// Identifies the caller's process for registration and holds it (a pidfd), so that the pid
    /// cannot be another process's by the time it is read, nor later.
    /// - Throws: `registrationEnded` for a connection whose registration ended; `programMismatch`.
    func identifyForRegistration(caller: BusName, pid: UInt32, of entry: ApplicationEntry) throws(DispatchError) -> RegisteredIdentities.Registered {
        if let reason = identities.ended[caller.rawValue] { throw .registrationEnded(caller: caller.rawValue, reason: reason) }
        let handle: ProcessHandle
        do { handle = try ProcessHandle(pid: Int32(bitPattern: pid)) } catch {
            throw .programMismatch(app: entry.id, expected: entry.executablePath ?? "?", running: "process \(pid), which cannot be held (\(error.reason))")
        }
        let record = try checkIdentity(pid: pid, of: entry)
        // Still running after the read: what was read was this process, not a later one with its pid.
        guard !handle.hasExited else {
            throw .programMismatch(app: entry.id, expected: entry.executablePath ?? "?", running: "process \(pid), which exited while it registered")
        }
        return RegisteredIdentities.Registered(appID: entry.id, handle: handle, record: record)
    }

    /// Holds the registered process and ends the registration once it exits.
    func hold(_ owner: String, _ registered: RegisteredIdentities.Registered) {
        if let earlier = identities.hold(owner, registered) { ProcessExits.shared.stopWatching(earlier) }
        let handle = registered.handle
        ProcessExits.shared.watch(handle) {
            Task { await self.processExited(owner, handle) }
        }
    }

    private func processExited(_ owner: String, _ handle: ProcessHandle) {
        guard identities.current[owner]?.handle === handle else { return }
        endRegistration(of: owner, reason: "its process \(handle.pid) exited")
    }

    /// Before a call that acts as the registered app (declarations, scenes, sets, activities):
    /// checks that the caller's process still runs and still runs the program it registered with.
    /// - Throws: `registrationEnded` when it exited (or had ended before); `programChanged` when it
    ///   runs another program now (an `exec`). Either ends the registration: its scenes close.
    func recheckIdentity(of caller: String) throws(DispatchError) {
        if let reason = identities.ended[caller] { throw .registrationEnded(caller: caller, reason: reason) }
        guard let registered = identities.current[caller] else { return }  // not registered: the call says so
        let pid = registered.handle.pid
        guard !registered.handle.hasExited, let now = RegisteredIdentities.reread(pid, as: registered.record, in: processes) else {
            let reason = "its process \(pid) exited"
            endRegistration(of: caller, reason: reason)
            throw .registrationEnded(caller: caller, reason: reason)
        }
        guard RegisteredIdentities.runsTheSame(now, as: registered.record) else {
            let (was, runs) = (Self.describe(registered.record), Self.describe(now))
            endRegistration(of: caller, reason: "its process \(pid) runs \(runs) now, not \(was)")
            throw .programChanged(app: registered.appID, pid: UInt32(bitPattern: pid), registered: was, running: runs)
        }
    }

    /// Before an event goes to `appID`: ends the registration of each of its processes that has
    /// exited (one `poll` each), so that an event never goes to a connection whose process exited,
    /// even before the exit watch has told of it.
    func endRegistrationsOfExitedProcesses(of appID: String) {
        // Found first, ended after: ending one changes the registry. (Asked before every delivery:
        // no list of the app's processes is built, nor sorted, when none has exited.)
        let exited = registry.processes.values.compactMap { process -> (owner: String, pid: Int32)? in
            guard process.appID == appID, let handle = identities.current[process.owner.rawValue]?.handle,
                handle.hasExited
            else { return nil }
            return (process.owner.rawValue, handle.pid)
        }
        for (owner, pid) in exited { endRegistration(of: owner, reason: "its process \(pid) exited") }
    }

    /// Ends a registration while the connection stays on the bus: its scenes go, as when it leaves,
    /// and its later calls are refused `NotRegistered` with `reason`.
    func endRegistration(of owner: String, reason: String) {
        if let handle = identities.end(owner, reason: reason) { ProcessExits.shared.stopWatching(handle) }
        guard let process = registry.removeProcess(owner) else { return }
        registrationGone(process, "\(process.appID) (\(owner)) is no longer registered: \(reason)", level: .notice)
    }

    /// The connection left the bus: its process is no longer held.
    func forgetIdentity(of owner: String) {
        if let handle = identities.forget(owner) { ProcessExits.shared.stopWatching(handle) }
    }
}
