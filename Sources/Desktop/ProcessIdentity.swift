/// What a process of an installed entry runs, with every name resolved: a program's absolute path,
/// or an interpreter running a script. Made from `LaunchShape` by `InstalledPrograms.signatures(of:)`.
public struct ProgramSignature: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case program(String)
        /// `interpreter` nil: any (a `#!/usr/bin/env python3` whose python is not found here).
        case script(interpreter: String?, script: String)
    }

    public let kind: Kind
    /// Literal arguments that follow (see `LaunchShape.arguments`).
    public let arguments: [String]

    public init(_ kind: Kind, arguments: [String] = []) {
        self.kind = kind
        self.arguments = arguments
    }

    public var description: String {
        switch kind {
        case .program(let path): path
        case .script(let interpreter, let script): "\(interpreter ?? "an interpreter") running \(script)"
        }
    }

    /// How well `process` fits: nil when it does not run this program (or script); else the number
    /// of literal arguments it starts with, or -1 when it runs the program with other arguments.
    public func fit(_ process: ProcessRecord) -> Int? {
        let rest: ArraySlice<String>
        switch kind {
        case .program(let path):
            // An interpreter running a script is that script's app, not the interpreter's entry
            // (Debian's python3.11.desktop runs bare `/usr/bin/python3.11`).
            guard process.executable == path, process.script == nil else { return nil }
            rest = process.arguments.dropFirst()
        case .script(let interpreter, let script):
            // The interpreter by family, not path: `python3` in PATH is often a shim (pyenv) or an
            // alternatives link; what identifies the app is the script.
            guard let running = process.script, let executable = process.executable,
                  let family = Interpreter.family(of: baseName(executable)),
                  interpreter.map({ Interpreter.family(of: baseName($0)) == family }) ?? true
            else { return nil }
            guard script.hasPrefix("/") ? running.resolved == script : running.written == script else { return nil }
            rest = process.arguments[(running.index + 1)...]
        }
        return rest.starts(with: arguments) ? arguments.count : -1
    }
}

/// Which installed app a process is, by the programs their entries run. Pure once built.
///
/// Policy: a sandboxed process is its sandbox's app and nothing else. Otherwise every entry whose
/// program (or interpreter and script) the process runs is a candidate; the one whose literal
/// arguments it starts with, the most of them, wins (`firefox --private-window` is the private
/// entry, plain `firefox` the plain one). Candidates that tie are `ambiguous`: never a guess.
public struct InstalledPrograms: Sendable {
    /// App id → what its processes run.
    public let signatures: [String: [ProgramSignature]]
    private let byProgram: [String: [String]]
    private let byScript: [String: [String]]

    public init(_ signatures: [String: [ProgramSignature]]) {
        self.signatures = signatures
        var programs: [String: [String]] = [:]
        var scripts: [String: [String]] = [:]
        for app in signatures.keys.sorted() {
            for signature in signatures[app]! {
                switch signature.kind {
                case .program(let path): if programs[path]?.contains(app) != true { programs[path, default: []].append(app) }
                case .script(_, let script): if scripts[script]?.contains(app) != true { scripts[script, default: []].append(app) }
                }
            }
        }
        byProgram = programs
        byScript = scripts
    }

    public enum Identification: Sendable, Hashable {
        case app(String)
        /// Several entries run this program with these arguments.
        case ambiguous([String])
        case none
    }

    public func identify(_ process: ProcessRecord) -> Identification {
        if let sandbox = process.sandbox { return .app(sandbox.appID) }
        var candidates: [String] = []
        if let executable = process.executable { candidates += byProgram[executable] ?? [] }
        if let script = process.script {
            candidates += byScript[script.resolved] ?? []
            if script.written != script.resolved { candidates += byScript[script.written] ?? [] }
        }
        var best: [String] = []
        var bestFit = Int.min
        for app in Set(candidates).sorted() {
            guard let fit = Self.fit(process, signatures[app] ?? []) else { continue }
            if fit > bestFit { (best, bestFit) = ([app], fit) } else if fit == bestFit { best.append(app) }
        }
        switch best.count {
        case 0: return .none
        case 1: return .app(best[0])
        default: return .ambiguous(best)
        }
    }

    /// Whether a process running `executable` (nil: unreadable) could be told apart only by its
    /// arguments: it is an interpreter (the script names the app, and a bare interpreter is not a
    /// script's app), or several entries run that program (literal arguments break the tie). Else
    /// its program alone decides, and its argument vector need not be read.
    public func needsArguments(toIdentify executable: String?) -> Bool {
        guard let executable else { return false }
        return Interpreter.family(of: baseName(executable)) != nil || (byProgram[executable]?.count ?? 0) > 1
    }

    /// Whether `process` is a process of the app with these signatures (registration's check): its
    /// sandbox names `appID`, or, unsandboxed, it runs one of the programs.
    public static func isProcess(_ process: ProcessRecord, of appID: String, _ signatures: [ProgramSignature]) -> Bool {
        if let sandbox = process.sandbox { return sandbox.appID == appID }
        return fit(process, signatures) != nil
    }

    static func fit(_ process: ProcessRecord, _ signatures: [ProgramSignature]) -> Int? {
        signatures.compactMap { $0.fit(process) }.max()
    }
}

/// Who opened a link: the app behind the process that asked the dispatcher.
public enum Opener: Sendable, Hashable, CustomStringConvertible {
    /// An installed app (or a sandbox's app) is the caller or one of its ancestors.
    case app(id: String, process: String)
    /// The OpenURI portal passed the link on; `app` when the portal said for whom.
    case portal(app: String?)
    /// Every process up the chain was read, and none is an app: the caller's name.
    case unidentified(process: String)
    /// The chain could not be read to the end without doubt (the caller exited, its pid was reused,
    /// a process of another user): never guessed.
    case unknown(reason: String)

    /// The opener of a link the OpenURI portal passed on, from the opener of the connection that asked
    /// the portal: its app, through the portal; none when that connection is no app's.
    public init(throughPortal asker: Opener) {
        self = .portal(app: asker.appID)
    }

    /// The opening app's id, when known.
    public var appID: String? {
        switch self {
        case .app(let id, _): id
        case .portal(let app): app
        case .unidentified, .unknown: nil
        }
    }

    /// For people and for the `opener` key: the app id, `via portal`, or the process name.
    public var label: String {
        switch self {
        case .app(let id, _): id
        case .portal(let app?): "\(app) (via portal)"
        case .portal(nil): "via portal"
        case .unidentified(let process): "process \(process)"
        case .unknown: "unknown"
        }
    }

    public var description: String {
        switch self {
        case .app(let id, let process): "\(id) (process \(process))"
        case .portal(let app?): "\(app), via the OpenURI portal"
        case .portal(nil): "an app behind the OpenURI portal, which did not say which"
        case .unidentified(let process): "process \(process), which is no installed app"
        case .unknown(let reason): "unknown: \(reason)"
        }
    }
}

/// Why a process could not be read.
public enum ProcessReadFailure: Error, Sendable, Hashable {
    /// It exited (or never was), before it was read or while: what was read of it is dropped,
    /// even when a newer process has its pid by now.
    case gone
    /// It belongs to another user, or the kernel refuses to show it.
    case stranger
}

/// The walk from the caller up its ancestors to the first app. Pure: processes come from `read`.
public enum OpenerSearch {
    /// How far up to look: `app → sh → xdg-open → waypost open` is four.
    public static let maximumDepth = 12

    /// - Parameters:
    ///   - caller: the pid the bus gave for the caller's connection.
    ///   - askedAt: when the request arrived, in the clock of `ProcessRecord.startTime`: a caller that
    ///     started later is a newer process with the caller's pid.
    ///   - portalAppID: what the portal says the app is, believed only from the portal itself.
    ///   - passesLinksOn: app ids skipped on the way up (generic openers, the dispatcher itself).
    ///   - currentParent: a process's parent read again now (a record kept from an earlier walk may
    ///     name a parent that has exited since); nil when it cannot be read.
    ///
    /// A process at the pid a child names is that child's parent when it started before the child:
    /// it has held that pid since before the child was born. One that started after it took the pid
    /// of a parent that exited (the child was re-parented); one that started in the same clock tick
    /// is the parent only if the child still names it.
    public static func opener(
        caller: Int32, askedAt: UInt64, programs: InstalledPrograms, portalAppID: String? = nil,
        ignoring passesLinksOn: (String) -> Bool = { _ in false }, read: (Int32) -> Result<ProcessRecord, ProcessReadFailure>,
        currentParent: (ProcessRecord) -> Int32? = { $0.parent }
    ) -> Opener {
        var pid = caller
        var child: ProcessRecord?
        var callerName: String?
        var depth = 0
        while depth < maximumDepth {
            let result = read(pid)
            if let below = child {
                let isParent: Bool
                switch result {
                case .success(let parent) where parent.startTime < below.startTime: isParent = true
                case .success(let parent) where parent.startTime == below.startTime: isParent = currentParent(below) == pid
                default: isParent = false
                }
                if !isParent {
                    // The child's parent exited (or is not ours): follow the parent it has now, once.
                    if let now = currentParent(below), now != pid, now > 1, below.parent == pid {
                        pid = now
                        child = below.withParent(now)
                        continue
                    }
                    // An ancestor gone, reused or not ours ends the walk: the caller is all that is known.
                    return .unidentified(process: callerName ?? below.name)
                }
            }
            let record: ProcessRecord
            switch result {
            case .success(let read): record = read
            case .failure(let failure):
                return .unknown(reason: failure == .stranger ? "the caller (pid \(pid)) is another user's process" : "the caller (pid \(pid)) exited before it was seen")
            }
            if child == nil, record.startTime > askedAt {
                return .unknown(reason: "pid \(pid) belongs to a process started after the request")
            }
            callerName = callerName ?? record.name
            if let sandbox = record.sandbox { return .app(id: sandbox.appID, process: record.name) }
            if isPortal(record) { return .portal(app: portalAppID) }
            switch programs.identify(record) {
            // An entry that only passes links on (`xdg-open %u`, the dispatcher's own) is no opener.
            case .app(let id) where passesLinksOn(id): break
            case .app(let id): return .app(id: id, process: record.name)
            // Several apps run this program alike: going further up could only name a wrong one.
            case .ambiguous: return .unidentified(process: record.name)
            case .none: break
            }
            guard record.parent > 1 else { break }
            child = record
            pid = record.parent
            depth += 1
        }
        return .unidentified(process: callerName ?? "?")
    }

    /// `xdg-desktop-portal` (comm keeps 15 bytes: `xdg-desktop-por`).
    static func isPortal(_ record: ProcessRecord) -> Bool {
        record.executable.map { baseName($0) == "xdg-desktop-portal" } ?? (record.name == "xdg-desktop-por")
    }
}
