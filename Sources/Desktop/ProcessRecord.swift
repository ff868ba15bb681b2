/// One process as `/proc` showed it at one instant: what identifying it needs. Read with
/// `RunningProgram.record(ofProcess:)`; the parsing here is pure.
public struct ProcessRecord: Sendable, Hashable {
    public let pid: Int32
    /// The parent's pid (0 for the kernel's first processes).
    public let parent: Int32
    /// The kernel's short name of the program (`comm`, at most 15 bytes): what is shown when no app matched.
    public let name: String
    /// When it started, in clock ticks since boot (`/proc/PID/stat` field 22): a pid that is reused
    /// comes back with a later start.
    public let startTime: UInt64
    /// The program it runs (`/proc/PID/exe`), nil when the kernel does not say.
    public let executable: String?
    /// Its argument vector (`/proc/PID/cmdline`).
    public let arguments: [String]
    /// When `executable` is an interpreter: the script it runs as its arguments name it, that name
    /// resolved against the process's working directory and symlinks, and its index in `arguments`.
    public let script: (written: String, resolved: String, index: Int)?
    /// The sandbox it runs in, which it cannot leave or forge.
    public let sandbox: Sandbox?

    public init(
        pid: Int32, parent: Int32, name: String, startTime: UInt64, executable: String?, arguments: [String],
        script: (written: String, resolved: String, index: Int)? = nil, sandbox: Sandbox? = nil
    ) {
        (self.pid, self.parent, self.name, self.startTime) = (pid, parent, name, startTime)
        (self.executable, self.arguments, self.script, self.sandbox) = (executable, arguments, script, sandbox)
    }

    /// The same process with the parent it has now (its first parent exited).
    public func withParent(_ parent: Int32) -> ProcessRecord {
        ProcessRecord(
            pid: pid, parent: parent, name: name, startTime: startTime, executable: executable, arguments: arguments,
            script: script, sandbox: sandbox)
    }

    public static func == (a: ProcessRecord, b: ProcessRecord) -> Bool {
        a.pid == b.pid && a.parent == b.parent && a.name == b.name && a.startTime == b.startTime
            && a.executable == b.executable && a.arguments == b.arguments && a.script?.resolved == b.script?.resolved
            && a.script?.index == b.script?.index && a.sandbox == b.sandbox
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pid)
        hasher.combine(startTime)
    }
}

/// A sandbox that names the app inside it.
public enum Sandbox: Sendable, Hashable, CustomStringConvertible {
    /// Whether a process can be in a sandbox, so that its root and cgroup must be read: Flatpak and
    /// strict snaps always give it a mount namespace of its own; in the daemon's, only a classic snap
    /// (no confinement, the host's files) can be, and its programs are under `/snap`. A classic
    /// snap's process running a host program is that program, like any unconfined process.
    public static func isPossible(inOwnMountNamespace: Bool, running executable: String?) -> Bool {
        !inOwnMountNamespace || (executable?.hasPrefix("/snap/") ?? true)
    }

    /// Flatpak: `[Application] name=` of `/.flatpak-info` in the process's root (the app id).
    case flatpak(appID: String)
    /// Snap: the `snap.NAME.APP` part of its cgroup.
    case snap(name: String, app: String)

    /// The desktop-file id the sandbox's app is installed under: the Flatpak app id, `NAME_APP` for
    /// a snap (snapd exports `NAME_APP.desktop`).
    public var appID: String {
        switch self {
        case .flatpak(let id): id
        case .snap(let name, let app): "\(name)_\(app)"
        }
    }

    public var description: String {
        switch self {
        case .flatpak(let id): "the Flatpak sandbox of \(id)"
        case .snap(let name, let app): "the snap \(name) (app \(app))"
        }
    }
}

/// The pure readers of the `/proc` files a `ProcessRecord` is made from.
public enum ProcFiles {
    /// `/proc/PID/stat`: (comm, ppid, starttime); nil when malformed. The name is between the first
    /// `(` and the last `)`, since it may hold spaces and parentheses itself.
    public static func stat(_ text: String) -> (name: String, parent: Int32, startTime: UInt64)? {
        stat(bytes: Array(text.utf8))
    }

    /// `stat(_:)` on the file's bytes as read, without making a string of the whole line.
    public static func stat(bytes: some RandomAccessCollection<UInt8>) -> (name: String, parent: Int32, startTime: UInt64)? {
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), let close = bytes.lastIndex(of: UInt8(ascii: ")")),
              open < close else { return nil }
        // Fields after the name, from field 3 (state): ppid is field 4, starttime field 22.
        var field = 2
        var parent: Int32?, start: UInt64?
        var value: UInt64 = 0, digits = 0
        for byte in bytes[bytes.index(after: close)...] {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                if digits > 0 {
                    if field == 4 { parent = value <= UInt64(Int32.max) ? Int32(value) : nil }
                    if field == 22 { start = value; break }
                }
                (value, digits) = (0, 0)
                field += 1
                continue
            }
            guard field == 4 || field == 22 else { continue }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
            guard !overflowed else { return nil }
            (value, digits) = (times + UInt64(byte - UInt8(ascii: "0")), digits + 1)
        }
        if start == nil, field == 22, digits > 0 { start = value }
        guard let parent, let start else { return nil }
        let name = String(decoding: bytes[bytes.index(after: open)..<close], as: UTF8.self)
        return (name, parent, start)
    }

    /// `/proc/PID/cmdline`: NUL-separated arguments.
    public static func arguments(_ bytes: some Collection<UInt8>) -> [String] {
        var arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if arguments.last == "" { arguments.removeLast() }
        return arguments
    }

    /// `snap(cgroup:)` on the file's bytes, which are made a string only when they name a snap.
    public static func snap(cgroup bytes: some Collection<UInt8>) -> Sandbox? {
        let marker = Array("snap.".utf8)
        var matched = 0
        for byte in bytes {
            matched = byte == marker[matched] ? matched + 1 : (byte == marker[0] ? 1 : 0)
            if matched == marker.count { return snap(cgroup: String(decoding: bytes, as: UTF8.self)) }
        }
        return nil
    }

    /// `/proc/PID/cgroup`: the snap whose `snap.NAME.APP[.…].scope` (or `.service`) the process is in.
    public static func snap(cgroup text: String) -> Sandbox? {
        for line in text.split(separator: "\n") {
            for component in line.split(separator: "/") where component.hasPrefix("snap.") {
                let parts = component.split(separator: ".")
                guard parts.count >= 4, !parts[1].isEmpty, !parts[2].isEmpty else { continue }
                return .snap(name: String(parts[1]), app: withoutScopeUUID(parts[2]))
            }
        }
        return nil
    }

    /// snapd names scopes `snap.NAME.APP-<uuid>.scope`: the app's name without the uuid.
    private static func withoutScopeUUID(_ app: Substring) -> String {
        guard app.count > 37 else { return String(app) }
        let uuid = Array(app.suffix(36))
        let dashes = [8, 13, 18, 23]
        let isUUID = app.dropLast(36).last == "-" && uuid.indices.allSatisfy { index in
            dashes.contains(index) ? uuid[index] == "-" : uuid[index].isHexDigit
        }
        return isUUID ? String(app.dropLast(37)) : String(app)
    }

    /// `/.flatpak-info` of a Flatpak sandbox: `name=` in its `[Application]` group (`[Runtime]` for a
    /// runtime-only sandbox, which names no app).
    public static func flatpak(info text: String) -> Sandbox? {
        var group = ""
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: " \t\r")
            if line.hasPrefix("[") { group = line; continue }
            guard group == "[Application]", line.hasPrefix("name=") else { continue }
            let id = String(line.dropFirst(5)).trimmingWhitespace
            return id.isEmpty ? nil : .flatpak(appID: id)
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
