import Desktop

/// The process behind each registered connection, held by a handle (a pidfd) from registration on,
/// and what it ran then; and why a connection's registration ended while it stayed on the bus. A
/// D-Bus connection names the process that connected, but its socket can outlive that process or
/// pass to another program (fork, then the parent exits; an `exec`): these let the dispatcher see it.
struct RegisteredIdentities: Sendable {
    struct Registered: Sendable {
        let appID: String
        let handle: ProcessHandle
        /// The process as registration identified it.
        let record: ProcessRecord
    }

    private(set) var current: [String: Registered] = [:]
    /// Connections still on the bus whose registration ended, and why: they may not register again,
    /// since the bus names a process they no longer are.
    private(set) var ended: [String: String] = [:]

    /// Starts holding `owner`'s process; gives back the handle it held before (registering again).
    mutating func hold(_ owner: String, _ registered: Registered) -> ProcessHandle? {
        current.updateValue(registered, forKey: owner)?.handle
    }

    /// Ends `owner`'s registration for `reason`; gives back the handle it held.
    mutating func end(_ owner: String, reason: String) -> ProcessHandle? {
        ended[owner] = reason
        return current.removeValue(forKey: owner)?.handle
    }

    /// The connection left the bus: nothing of it is kept.
    mutating func forget(_ owner: String) -> ProcessHandle? {
        ended[owner] = nil
        return current.removeValue(forKey: owner)?.handle
    }

    /// Process `pid` read again as far as telling whether it runs what `registered` ran needs: a
    /// sandboxed app stays its sandbox's whatever it execs (its record as it was), a program is its
    /// `/proc/PID/exe` (one `readlink`), a script needs its arguments. Nil when it is gone.
    static func reread(_ pid: Int32, as registered: ProcessRecord, in processes: any RunningProcesses) -> ProcessRecord? {
        if registered.sandbox != nil { return registered }
        if registered.script == nil {
            guard let executable = try? processes.executable(ofProcess: pid) else { return nil }
            return ProcessRecord(
                pid: pid, parent: registered.parent, name: registered.name, startTime: registered.startTime,
                executable: executable, arguments: [])
        }
        return try? processes.record(ofProcess: pid).get()
    }

    /// Whether process `now` still runs what `registered` ran: the same program (a program replaced
    /// on disk reads ` (deleted)`, and still counts), the same script as its arguments name it (not
    /// as resolved: the app may change its directory), the same sandbox.
    static func runsTheSame(_ now: ProcessRecord, as registered: ProcessRecord) -> Bool {
        func program(_ record: ProcessRecord) -> String? {
            guard let path = record.executable else { return nil }
            return path.hasSuffix(" (deleted)") ? String(path.dropLast(" (deleted)".count)) : path
        }
        return program(now) == program(registered) && now.sandbox == registered.sandbox
            && now.script?.written == registered.script?.written && now.script?.index == registered.script?.index
    }
}
