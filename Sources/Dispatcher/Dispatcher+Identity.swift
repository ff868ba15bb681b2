import Desktop

extension Dispatcher {
    /// Checks that process `pid` is a process of `entry`'s app: in its sandbox (Flatpak, snap), or
    /// running what its `Exec` runs as `InstalledPrograms` follows it (through `env`, `sh -c`, an
    /// interpreter and its script, a `#!` script, a wrapper's `exec`, or `X-Waypost-Executable`).
    /// - Throws: `programMismatch` naming what the entry runs and what the process runs.
    func checkIdentity(pid: UInt32, of entry: ApplicationEntry) throws(DispatchError) {
        let process: ProcessRecord
        switch RunningProgram.record(ofProcess: Int32(bitPattern: pid)) {
        case .success(let record): process = record
        case .failure(let failure):
            throw .programMismatch(app: entry.id, expected: entry.executablePath ?? "?", running: "process \(pid) cannot be read (\(failure))")
        }
        let signatures = (try? InstalledPrograms.signatures(of: entry)) ?? []
        guard InstalledPrograms.isProcess(process, of: entry.id, signatures) else {
            let expected = signatures.isEmpty ? "a program that is not installed" : signatures.map(\.description).joined(separator: " or ")
            throw .programMismatch(app: entry.id, expected: expected, running: Self.describe(process))
        }
    }

    /// What a process runs, as a mismatch names it.
    static func describe(_ process: ProcessRecord) -> String {
        if let sandbox = process.sandbox { return sandbox.description }
        let program = process.executable ?? process.name
        guard let script = process.script else { return program }
        return "\(program) running \(script.resolved)"
    }
}
