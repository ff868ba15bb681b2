import DBus
import Desktop
import Synchronization

/// Finds the opener of an event when routing first asks for it (a web link an app owns, a rule
/// naming openers, a monitor listening): the caller's pid from the bus, then the walk up its
/// ancestors (`OpenerSearch`) against the installed programs. Events nobody asks about cost nothing.
///
/// Kept per caller connection: its pid, and once found its opener. A connection belongs to one
/// process for its whole life and unique names are never reused, so an app sending links over its
/// own connection (GIO in process) is walked once; `gio open` and `waypost open` connect anew each
/// time. Their pid is asked of the bus as they connect (`watchConnections`), before their first
/// call, and the walk made then, so a link waits for what is left of it at most; the processes
/// above them that were read before are known (`KnownProcesses`). A process that changed its program (`exec`) while keeping its
/// connection keeps the opener first found: such a same-user process could pose as the app anyway
/// (docs/opener.md).
public final class OpenerLookup: Sendable {
    let connections: CallerConnections
    /// The bus: where connections are watched as they appear.
    private var connection: Connection { connections.bus }
    let directory: any ApplicationDirectory
    /// Entries that are never an opener: the dispatcher's own, and generic openers (`xdg-open %u`).
    let passesLinksOn: @Sendable (String) -> Bool
    /// Caller connection → what is known of it, at most `cacheLimit` of them (dropped whole when full).
    private let callers = Mutex<[BusName: Known]>([:])
    /// Caller connection → whom its calls count against (`budgetCaller`), as many at most.
    private let budgetCallers = Mutex<[BusName: Budgets.Caller]>([:])
    static let cacheLimit = 512

    /// Which app each process is; the real one keeps processes read by earlier walks while they
    /// live and run the same program (`KnownProcesses`).
    let processes: any RunningProcesses

    enum Known {
        /// Asked of the bus as the connection appeared; nil when the bus did not say (it left).
        case asking(Task<Caller?, Never>)
        case process(Caller)
        case opener(Opener, process: UInt32)
    }

    /// A connection's process as first seen.
    struct Caller: Sendable {
        let pid: UInt32
        /// When the connection was seen to appear (boot ticks): its process had started by then.
        let connectedBy: UInt64
        /// The walk from the connection's process started as it appeared (`watchConnections`): it is
        /// the connection's process as first seen (the opener is the connection's, whatever the
        /// process execs later).
        var walkAhead: Task<Opener, Never>?
    }

    init(
        callers: CallerConnections, directory: any ApplicationDirectory, processes: any RunningProcesses,
        passesLinksOn: @escaping @Sendable (String) -> Bool
    ) {
        self.connections = callers
        self.directory = directory
        self.processes = processes
        self.passesLinksOn = passesLinksOn
    }

    /// Who opened a request from `caller` arriving now, found when first asked.
    /// - Parameter portalAppID: the app id the platform data names, believed from the portal only.
    func start(caller: BusName, portalAppID: String?) -> PendingOpener {
        let askedAt = RunningProgram.bootTicksNow()
        return PendingOpener { await self.find(caller: caller, askedAt: askedAt, portalAppID: portalAppID) }
    }

    /// Whom what any connection may hold (link notifications, unverified Handoff offers) counts
    /// against: the app the opener's walk finds (awaited: more than the members' budgets know), else
    /// the sending connection as the budgets count it; "the daemon" for its own events.
    nonisolated(nonsending) func holder(opener: PendingOpener?, sender: BusName?) async -> String {
        if let app = await opener?.value().appID { return Budgets.Caller.app(app).description }
        guard let sender else { return "the daemon" }
        return await budgetCaller(of: sender).description
    }

    /// Whom a connection's calls count against in the members' budgets: the app behind it (its
    /// opener, as the walk made when it appeared finds it), else its process, else the connection
    /// itself when the bus does not tell. Decided at its first call, which waits for what is left
    /// of that walk, and kept for the connection's life: its calls in flight count against one caller.
    /// While the installed programs are being read (as the daemon starts, when the link that started
    /// it arrives; once after the entries change), the walk would wait for every entry: a connection
    /// whose first call comes then counts against its process, its app's other processes apart.
    nonisolated(nonsending) func budgetCaller(of connection: BusName) async -> Budgets.Caller {
        if let decided = budgetCallers.withLock({ $0[connection] }) { return decided }
        var app: String?
        if directory.installedProgramsIfRead() != nil {
            app = await find(caller: connection, askedAt: RunningProgram.bootTicksNow(), portalAppID: nil).appID
        }
        let caller: Budgets.Caller
        if let app {
            caller = .app(app)
        } else if let pid = await processID(of: connection) {
            caller = .process(pid)
        } else {
            caller = .connection(connection.rawValue)
        }
        return budgetCallers.withLock { decided in
            if let first = decided[connection] { return first }  // a call that got here first decided
            if decided.count >= Self.cacheLimit { decided.removeAll(keepingCapacity: true) }
            decided[connection] = caller
            return caller
        }
    }

    /// The connection's process as the bus told it when the connection appeared, else asked now.
    private nonisolated(nonsending) func processID(of connection: BusName) async -> UInt32? {
        if let pid = await processIDToldAtConnect(of: connection) { return pid }
        return try? await connections.connection(for: connection).processID(of: connection)
    }

    /// The connection's process as the bus told it when the connection appeared (awaited while that
    /// question is out): a pid stays its connection's for the connection's life. Nil when nobody
    /// asked (no watch of connections, or forgotten) or the bus did not tell.
    nonisolated(nonsending) func processIDToldAtConnect(of connection: BusName) async -> UInt32? {
        switch callers.withLock({ $0[connection] }) {
        case .opener(_, let pid): return pid
        case .process(let caller): return caller.pid
        case .asking(let asking): return await asking.value?.pid
        case nil: return nil
        }
    }

    /// Who opened a link the OpenURI portal passed on: the app behind `caller`, the connection that
    /// asked the portal, named as opening through it. Found at once, while the asking app is
    /// surely there (its call is in flight), not when the portal's `Open` needs it: the app does
    /// not wait for its link, and once it leaves, what was known of its connection is forgotten.
    func start(throughPortal caller: BusName) -> PendingOpener {
        let askedAt = RunningProgram.bootTicksNow()
        let known = callers.withLock { $0[caller] }
        let opener = PendingOpener { Opener(throughPortal: await self.find(caller: caller, known: known, askedAt: askedAt, portalAppID: nil)) }
        Task.detached { _ = await opener.value() }
        return opener
    }

    /// On the caller's executor (the connection's thread): a walk is a few reads of `/proc` per
    /// process, at most `OpenerSearch.maximumDepth` of them, cheaper than two thread hops.
    nonisolated(nonsending) func find(caller: BusName, askedAt: UInt64, portalAppID: String?) async -> Opener {
        await find(caller: caller, known: callers.withLock { $0[caller] }, askedAt: askedAt, portalAppID: portalAppID)
    }

    /// `find` from what was known of `caller` when `cached` was read.
    private nonisolated(nonsending) func find(caller: BusName, known cached: Known?, askedAt: UInt64, portalAppID: String?) async -> Opener {
        let known: Caller
        switch cached {
        case .opener(let opener, _): return opener
        case .process(let process):
            if let opener = await Self.settled(process, portalAppID: portalAppID) { return opener }
            known = process
        case .asking(let asking):
            guard let process = await asking.value else {
                return .unknown(reason: "the bus does not tell the caller's process (\(caller) left)")
            }
            if let opener = await Self.settled(process, portalAppID: portalAppID) { return opener }
            known = process
        case nil:
            do { known = Caller(pid: try await connections.connection(for: caller).processID(of: caller), connectedBy: askedAt) } catch {
                return .unknown(reason: "the bus does not tell the caller's process (\(error))")
            }
            remember(.process(known), for: caller)
        }
        let opener = await opener(of: known, askedAt: askedAt, portalAppID: portalAppID)
        if Self.isTheConnections(opener) { remember(.opener(opener, process: known.pid), for: caller) }
        return opener
    }

    /// The walk made as the connection appeared, when it settled who the connection is. A request
    /// through the portal names its app, so it walks with it; an `unknown` is asked again.
    private static func settled(_ caller: Caller, portalAppID: String?) async -> Opener? {
        guard portalAppID == nil, let walk = caller.walkAhead else { return nil }
        let opener = await walk.value
        return isTheConnections(opener) ? opener : nil
    }

    /// Whether an opener holds for every later event of the same connection: an app or a process
    /// name does; the portal's app is named per request, and `unknown` may be a passing doubt.
    static func isTheConnections(_ opener: Opener) -> Bool {
        switch opener {
        case .app, .unidentified: true
        case .portal, .unknown: false
        }
    }

    /// Asks the bus for the pid of every connection as it appears (one subscription to
    /// `NameOwnerChanged`, a few signals a second on a desktop) and walks from it off the
    /// connection's thread, so that a link arriving on it finds its opener known or on its way;
    /// forgets each as it leaves. Returns once the bus accepted the subscription.
    /// - Throws: `BusError` when the bus refuses it: links then ask for the pid when they need it.
    public func watchConnections() async throws {
        let changes = try await connection.nameOwnerChanges(for: nil)
        let own = connection.uniqueName
        Task(executorPreference: connection.executor) {
            for try await change in changes where change.name.isUnique && change.name != own {
                if change.newOwner != nil { self.ask(change.name) } else { self.forget(change.name) }
            }
        }
    }

    /// Sends `GetConnectionUnixProcessID` for `caller` now, its answer awaited by whoever needs it;
    /// then walks from that process on the global pool, so that a link it sends finds its opener
    /// known or nearly: `gio open` connects just before its one call, and the kernel's first look at
    /// a new process's `/proc` directory costs several times the later ones (about 60 µs against 20
    /// on the 2-core machine). About 100 µs of a pool thread per connection to the session bus,
    /// whether it sends a link or not: what a click does not wait for (docs/opener.md).
    private func ask(_ caller: BusName) {
        let seen = RunningProgram.bootTicksNow()
        let asking = Task(executorPreference: connection.executor) { () -> Caller? in
            guard let pid = try? await self.connection.processID(of: caller) else { return nil }
            let walk = Task.detached { await self.walkAhead(caller, pid: pid, seen: seen) }
            let known = Caller(pid: pid, connectedBy: seen, walkAhead: walk)
            self.callers.withLock { cache in
                if case .asking = cache[caller] { cache[caller] = .process(known) }
            }
            return known
        }
        // A connection whose first call came first asked already: its answer stays.
        callers.withLock { cache in
            guard cache[caller] == nil else { return }
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[caller] = .asking(asking)
        }
    }

    /// The walk as the connection appeared, kept as the connection's opener when it holds for all
    /// its events (a process started after `seen` took the pid of one that exited: `unknown`).
    private func walkAhead(_ caller: BusName, pid: UInt32, seen: UInt64) async -> Opener {
        let opener = await opener(of: Caller(pid: pid, connectedBy: seen), askedAt: seen, portalAppID: nil)
        guard Self.isTheConnections(opener) else { return opener }
        callers.withLock { cache in
            if case .process(let process) = cache[caller], process.pid == pid { cache[caller] = .opener(opener, process: pid) }
        }
        return opener
    }

    private func remember(_ known: Known, for caller: BusName) {
        callers.withLock { cache in
            if cache.count >= Self.cacheLimit, cache[caller] == nil { cache.removeAll(keepingCapacity: true) }
            cache[caller] = known
        }
    }

    /// The walk itself, for a pid already known: each process read as far as identifying it against
    /// the installed programs needs (`KnownProcesses`), once they are read (awaited, while a reading
    /// of every entry is under way, without holding the caller's thread).
    nonisolated(nonsending) func opener(of caller: Caller, askedAt: UInt64, portalAppID: String?) async -> Opener {
        let programs = await directory.installedProgramsWhenRead()
        return Self.opener(
            ofProcess: caller.pid, askedAt: min(askedAt, caller.connectedBy), portalAppID: portalAppID,
            programs: programs, processes: processes, passesLinksOn: passesLinksOn)
    }

    /// The walk from process `pid` to the first app over any `RunningProcesses`: the choice alone,
    /// unit-tested over values.
    static func opener(
        ofProcess pid: UInt32, askedAt: UInt64, portalAppID: String?, programs: InstalledPrograms,
        processes: any RunningProcesses, passesLinksOn: (String) -> Bool
    ) -> Opener {
        OpenerSearch.opener(
            caller: Int32(bitPattern: pid), askedAt: askedAt, programs: programs, portalAppID: portalAppID,
            ignoring: passesLinksOn, read: { processes.record(ofProcess: $0, against: programs) },
            currentParent: { processes.currentParent(of: $0) })
    }

    /// A connection left the bus: what is known of it, and of its process, is no longer needed (a
    /// process that lives on is read again when a walk meets it).
    func forget(_ caller: BusName) {
        budgetCallers.withLock { _ = $0.removeValue(forKey: caller) }
        let known = callers.withLock { $0.removeValue(forKey: caller) }
        switch known {
        case .process(let process): processes.forget(Int32(bitPattern: process.pid))
        case .opener(_, let pid): processes.forget(Int32(bitPattern: pid))
        case .asking, nil: break
        }
    }
}

/// The opener of one event: found by the first who awaits it, then kept; `current` never waits.
public final class PendingOpener: Sendable {
    private enum State {
        case notAsked(Finding)
        case finding([CheckedContinuation<Opener, Never>])
        case found(Opener)
    }

    /// Finding it runs on the executor of whoever asks first (no thread hop).
    typealias Finding = nonisolated(nonsending) @Sendable () async -> Opener
    private let state: Mutex<State>

    init(finding: @escaping Finding) { state = Mutex(.notAsked(finding)) }

    /// Already known, for an event whose opener is given (`Explain` with `--opener`).
    init(known opener: Opener) { state = Mutex(.found(opener)) }

    /// The opener if found already, without waiting or finding it.
    var current: Opener? {
        state.withLock { if case .found(let opener) = $0 { opener } else { nil } }
    }

    /// The opener: found now on the caller's executor when nobody asked before, else awaited.
    nonisolated(nonsending) func value() async -> Opener {
        enum Step { case done(Opener), find(Finding), wait }
        let step: Step = state.withLock { state in
            switch state {
            case .found(let opener): return .done(opener)
            case .notAsked(let find):
                state = .finding([])
                return .find(find)
            case .finding: return .wait
            }
        }
        switch step {
        case .done(let opener): return opener
        case .find(let find):
            let opener = await find()
            let waiters = state.withLock { state in
                defer { state = .found(opener) }
                if case .finding(let waiters) = state { return waiters }
                return []
            }
            for waiter in waiters { waiter.resume(returning: opener) }
            return opener
        case .wait:
            return await withCheckedContinuation { continuation in
                let found: Opener? = state.withLock { state in
                    switch state {
                    case .found(let opener): return opener
                    case .finding(let waiters):
                        state = .finding(waiters + [continuation])
                        return nil
                    case .notAsked: return nil  // never: `.wait` is only seen once finding started
                    }
                }
                if let found { continuation.resume(returning: found) }
            }
        }
    }
}
