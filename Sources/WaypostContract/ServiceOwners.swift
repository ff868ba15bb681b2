public import DBus
import FoundationEssentials

// The same check as the dispatcher's own name gets (DispatcherIdentity.swift), for the other names
// the daemon believes: KDE Connect's (`org.kde.kdeconnect`, whose signals make offers a device's) and
// the notification server's (`org.freedesktop.Notifications`, whose signals click).

extension Contract.TrustedDispatcher {
    /// The programs that the session's D-Bus service files for `name` start: each `*.service` in the
    /// standard directories (as `dbus-daemon` reads them) whose `[D-BUS Service]` says `Name=name`. On
    /// the session bus a file's name need not match its `Name=` (dunst's is `org.knopwob.dunst.service`).
    /// - Parameter environment: nil for this process's.
    public static func installed(service name: BusName, environment: [String: String]? = nil) -> Contract.TrustedDispatcher {
        let directories = serviceDirectories(environment ?? ProcessInfo.processInfo.environment)
        var programs: [Program] = []
        for directory in directories {
            // The user's directories are anyone's: a bounded look, regular files only, as the bus reads them.
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".service") }
            for file in files.sorted().prefix(4096) {
                let path = directory + "/" + file
                guard let bytes = readRegularFile(path, limit: 64 * 1024) else { continue }
                let text = String(decoding: bytes, as: UTF8.self)
                guard serviceName(text) == name.rawValue, let program = serviceProgram(text),
                    !programs.contains(where: { $0.path == program })
                else { continue }
                programs.append(Program(path: program, namedBy: path))
            }
        }
        return Contract.TrustedDispatcher(programs: programs, searched: directories)
    }

    /// `Name=` of a service file's `[D-BUS Service]` group.
    static func serviceName(_ text: String) -> String? {
        var inGroup = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") { inGroup = line.hasPrefix("[D-BUS Service]"); continue }
            guard inGroup, let equals = line.firstIndex(of: "="), line[..<equals].filter({ $0 != " " && $0 != "\t" }) == "Name"
            else { continue }
            // A bus name holds no blank.
            return String(line[line.index(after: equals)...].filter { $0 != " " && $0 != "\t" && $0 != "\r" })
        }
        return nil
    }

    /// Whether `owner` (a unique name) runs one of these programs: the bus gives its pid,
    /// `/proc/<pid>/exe` its program, which must be the very file a trusted path names.
    public func check(owner: BusName, on connection: Connection) async -> OwnerCheck {
        let pid: UInt32
        do { pid = try await connection.processID(of: owner) } catch { return .unknown(owner: owner, reason: "\(error)") }
        let running = Self.program(ofProcess: pid)
        return trusts(process: pid, running: running)
            ? .trusted(owner: owner, pid: pid, program: running) : .untrusted(owner: owner, pid: pid, program: running)
    }
}

/// What `TrustedDispatcher.check(owner:on:)` found.
public enum OwnerCheck: Sendable, Hashable {
    case trusted(owner: BusName, pid: UInt32, program: String)
    case untrusted(owner: BusName, pid: UInt32, program: String)
    /// The bus would not say (the owner left).
    case unknown(owner: BusName, reason: String)

    public var isTrusted: Bool { if case .trusted = self { true } else { false } }
}

extension Contract.TrustedDispatcher {
    /// Trusts the interpreter a service's script runs under (GSConnect's `daemon.js` starts with
    /// `#!/usr/bin/env gjs`): `/proc/<pid>/exe` shows the interpreter, never the script, so a check
    /// with this tells only that the owner runs that interpreter, not which script. `path` may be a
    /// symbolic link (Debian's `/usr/bin/gjs` → `gjs-console`): its target is what the process shows.
    public static func interpreter(_ path: String, of service: String) -> Contract.TrustedDispatcher {
        var program = path
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
            program = target.hasPrefix("/") ? target : String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) + "/" + target
        }
        return Contract.TrustedDispatcher(program: program, namedBy: "\(service), a script run by \(path)")
    }
}
