public import DBus
import FoundationEssentials

extension Contract {
    /// Who may own `busName`: a process running a program that an installed D-Bus service file for
    /// the name starts (`Exec=` of `io.waypost.Dispatcher.service`, the file the bus itself activates).
    ///
    /// Clients check the owner before they register with it or report success from it, the reverse
    /// of the daemon's check of apps: the bus tells the owner's pid, `/proc/<pid>/exe` its program.
    /// A process that took the name first (a squatter) is refused by name, pid and program.
    /// The service directories are read from the environment as `dbus-daemon` reads them for
    /// `<standard_session_servicedirs/>` (not through GLib: this runs in every app).
    public struct TrustedDispatcher: Sendable, Hashable {
        /// Each trusted program, with what names it (a service file, or "this waypost").
        public private(set) var programs: [Program]
        /// Where service files were looked for, for the message when none was found.
        public let searched: [String]

        public struct Program: Sendable, Hashable {
            public let path: String
            public let namedBy: String
        }

        /// The programs that the session's service files for `busName` start.
        /// - Parameter environment: nil for this process's.
        public static func installed(environment: [String: String]? = nil) -> TrustedDispatcher {
            let directories = serviceDirectories(environment ?? ProcessInfo.processInfo.environment)
            var programs: [Program] = []
            for directory in directories {
                let file = directory + "/" + busName.rawValue + ".service"
                guard let bytes = readRegularFile(file, limit: 64 * 1024),
                      let program = serviceProgram(String(decoding: bytes, as: UTF8.self)),
                      !programs.contains(where: { $0.path == program })
                else { continue }
                programs.append(Program(path: program, namedBy: file))
            }
            return TrustedDispatcher(programs: programs, searched: directories)
        }

        /// Trusts exactly `program` (an app that ships its own dispatcher, or a test's build).
        public init(program: String, namedBy: String) {
            self.init(programs: [Program(path: program, namedBy: namedBy)], searched: [])
        }

        init(programs: [Program], searched: [String]) {
            self.programs = programs
            self.searched = searched
        }

        /// Trusts `program` besides; the command line adds itself (a dispatcher running this very
        /// `waypost` is trusted however it was started).
        public func adding(program: String, namedBy: String) -> TrustedDispatcher {
            var copy = self
            if !copy.programs.contains(where: { $0.path == program }) { copy.programs.append(Program(path: program, namedBy: namedBy)) }
            return copy
        }

        /// Whether `running` (from `/proc/<pid>/exe`) names a trusted program, by its text only (see
        /// `trusts(process:running:)`). A program replaced on disk since it started (an upgrade) reads
        /// `<path> (deleted)`.
        public func trusts(running: String) -> Bool {
            let path = running.hasSuffix(" (deleted)") ? String(running.dropLast(" (deleted)".count)) : running
            return programs.contains { $0.path == path }
        }

        /// Whether process `pid`, whose program reads `running`, runs a trusted program: the very file
        /// (device and inode, through `/proc/<pid>/exe`) that a trusted path names here, not only its
        /// name: a process in a mount namespace of its own can have any file at that path (a bind
        /// mount over it). A program replaced on disk since it started (`… (deleted)`) counts only when
        /// the process shares this process's mount namespace, where only whoever can write the
        /// installed path could have made it so.
        public func trusts(process pid: UInt32, running: String) -> Bool {
            guard trusts(running: running) else { return false }
            if let file = FileIdentity(path: "/proc/\(pid)/exe"), programs.contains(where: { FileIdentity(path: $0.path) == file }) {
                return true
            }
            return running.hasSuffix(" (deleted)") && Self.sharesMountNamespace(pid)
        }

        /// Whether process `pid` sees the same mounts as this one (`/proc/<pid>/ns/mnt`).
        static func sharesMountNamespace(_ pid: UInt32) -> Bool {
            let manager = FileManager.default
            guard let theirs = try? manager.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/mnt"),
                  let ours = try? manager.destinationOfSymbolicLink(atPath: "/proc/self/ns/mnt")
            else { return false }
            return theirs == ours
        }

        /// The owner of `busName` once checked: starts the dispatcher by activation when the name has
        /// no owner, then checks the program of the owner's process.
        /// - Returns: the owner's unique name: calls go there, so that the name cannot change hands
        ///   between the check and the call.
        /// - Throws: `DispatcherIdentityError`: `.untrusted` naming the owner's pid and program,
        ///   `.notInstalled`, or `.bus` when the bus cannot say.
        public func verifiedOwner(on connection: Connection, activating: Bool = true) async throws(DispatcherIdentityError) -> BusName {
            let owner: BusName
            let pid: UInt32
            do {
                var found = try await connection.nameOwner(of: busName)
                if found == nil, activating {
                    _ = try await connection.call(
                        destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                        member: "StartServiceByName", busName.rawValue, UInt32(0), timeout: .seconds(25))
                    found = try await connection.nameOwner(of: busName)
                }
                guard let found else { throw BusError(.nameHasNoOwner, "\(busName) has no owner") }
                owner = found
                pid = try await connection.processID(of: owner)
            } catch let error as BusError {
                throw .bus(error)
            } catch {
                throw .bus(BusError(.failed, "\(error)"))
            }
            let running = Self.program(ofProcess: pid)
            guard !programs.isEmpty else { throw .notInstalled(owner: owner, pid: pid, program: running, searched: searched) }
            guard trusts(process: pid, running: running) else {
                let shown = trusts(running: running) ? running + " (another file at that path, in a mount namespace of its own)" : running
                throw .untrusted(owner: owner, pid: pid, program: shown, expected: programs)
            }
            return owner
        }

        /// The program process `pid` runs, or why it cannot be read (a reason never equals a path).
        public static func program(ofProcess pid: UInt32) -> String {
            do { return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") } catch {
                return "(unreadable: \(error))"
            }
        }

        /// `$XDG_RUNTIME_DIR/dbus-1/services`, `$XDG_DATA_HOME/dbus-1/services` (`~/.local/share`),
        /// each of `$XDG_DATA_DIRS` (`/usr/local/share:/usr/share`), then the bus's own directories.
        static func serviceDirectories(_ environment: [String: String]) -> [String] {
            func set(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            var roots: [String] = []
            if let runtime = set("XDG_RUNTIME_DIR") { roots.append(runtime) }
            if let data = set("XDG_DATA_HOME") { roots.append(data) } else if let home = set("HOME") { roots.append(home + "/.local/share") }
            roots += (set("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
            roots += ["/usr/share", "/usr/local/share"]
            var seen: Set<String> = []
            return roots.map { $0 + "/dbus-1/services" }.filter { seen.insert($0).inserted }
        }

        /// The program of a service file's `Exec=` in `[D-BUS Service]`: its first word, unquoted
        /// as the bus splits it (double quotes with backslash escapes, single quotes, backslashes).
        static func serviceProgram(_ text: String) -> String? {
            var inGroup = false
            for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
                let line = rawLine.drop { $0 == " " || $0 == "\t" }
                if line.hasPrefix("[") { inGroup = line.hasPrefix("[D-BUS Service]"); continue }
                guard inGroup, let equals = line.firstIndex(of: "="),
                      line[..<equals].filter({ $0 != " " && $0 != "\t" }) == "Exec"
                else { continue }
                return firstWord(line[line.index(after: equals)...])
            }
            return nil
        }

        static func firstWord(_ exec: Substring) -> String? {
            var word = ""
            var quote: Character?
            var escaped = false
            for character in exec.drop(while: { $0 == " " || $0 == "\t" }) {
                if escaped { word.append(character); escaped = false; continue }
                switch (quote, character) {
                case (nil, " "), (nil, "\t"): return word.isEmpty ? nil : word
                case (nil, "\""), (nil, "'"): quote = character
                case ("\"", "\\"), (nil, "\\"): escaped = true
                case (let open?, let closing) where open == closing: quote = nil
                default: word.append(character)
                }
            }
            return word.isEmpty ? nil : word
        }
    }
}

/// The owner of `io.waypost.Dispatcher` is not (known to be) the installed dispatcher.
public enum DispatcherIdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another program owns the name: a squatter, or a dispatcher that is not the installed one.
    case untrusted(owner: BusName, pid: UInt32, program: String, expected: [Contract.TrustedDispatcher.Program])
    /// No service file names the dispatcher's program, so no owner can be trusted.
    case notInstalled(owner: BusName, pid: UInt32, program: String, searched: [String])
    /// The bus could not say who owns the name (or start it).
    case bus(BusError)

    public var description: String {
        switch self {
        case .untrusted(let owner, let pid, let program, let expected):
            "\(Contract.busName) is owned by \(owner), pid \(pid) running \(program), which is not the installed dispatcher ("
                + expected.map { "\($0.path), named by \($0.namedBy)" }.joined(separator: "; ")
                + "); refusing to use it"
        case .notInstalled(let owner, let pid, let program, let searched):
            "\(Contract.busName) is owned by \(owner), pid \(pid) running \(program), but no \(Contract.busName).service in "
                + searched.joined(separator: ", ") + " names the installed dispatcher; refusing to use it (run `waypost install --user`)"
        case .bus(let error): "cannot find \(Contract.busName): \(error)"
        }
    }

    /// The pid of the process refused, when one was.
    public var pid: UInt32? {
        switch self {
        case .untrusted(_, let pid, _, _), .notInstalled(_, let pid, _, _): pid
        case .bus: nil
        }
    }
}
