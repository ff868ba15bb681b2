public import DBus
public import Desktop
import Synchronization

/// Finds the opener of each event off the connection's thread: the caller's pid from the bus (kept
/// per connection: a connection's pid never changes, and unique names are never reused), then the
/// walk up its ancestors (`OpenerSearch`) against the installed programs. Routing awaits the answer
/// only where a decision depends on it (a web link an app owns, a rule naming openers).
public final class OpenerLookup: Sendable {
    let connection: Connection
    let directory: any ApplicationDirectory
    /// Entries that are never an opener: the dispatcher's own, and generic openers (`xdg-open %u`).
    let passesLinksOn: @Sendable (String) -> Bool
    /// Caller connection → its pid, at most `cacheLimit` of them (dropped whole when full).
    private let pids = Mutex<[BusName: UInt32]>([:])
    static let cacheLimit = 512

    init(connection: Connection, directory: any ApplicationDirectory, passesLinksOn: @escaping @Sendable (String) -> Bool) {
        self.connection = connection
        self.directory = directory
        self.passesLinksOn = passesLinksOn
    }

    /// Starts finding who opened a request from `caller`, now.
    /// - Parameter portalAppID: the app id the platform data names, believed from the portal only.
    func start(caller: BusName, portalAppID: String?) -> PendingOpener {
        let askedAt = RunningProgram.bootTicksNow()
        let pending = PendingOpener()
        let known = pids.withLock { $0[caller] }
        Task.detached(priority: .userInitiated) {
            let pid: UInt32
            if let known { pid = known } else {
                do { pid = try await self.connection.processID(of: caller) } catch {
                    return pending.resolve(.unknown(reason: "the bus does not tell the caller's process (\(error))"))
                }
                self.pids.withLock { cache in
                    if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
                    cache[caller] = pid
                }
            }
            pending.resolve(self.opener(ofProcess: Int32(bitPattern: pid), askedAt: askedAt, portalAppID: portalAppID))
        }
        return pending
    }

    /// The walk itself, for a pid already known.
    func opener(ofProcess pid: Int32, askedAt: UInt64, portalAppID: String?) -> Opener {
        let programs = directory.installedPrograms()
        let passesLinksOn = passesLinksOn
        return OpenerSearch.opener(
            caller: pid, askedAt: askedAt, programs: programs, portalAppID: portalAppID, ignoring: passesLinksOn,
            read: RunningProgram.record(ofProcess:))
    }

    /// A connection left the bus: its pid is no longer needed.
    func forget(_ caller: BusName) {
        _ = pids.withLock { $0.removeValue(forKey: caller) }
    }
}

/// The opener of one event, found in the background; awaited where a decision needs it.
public final class PendingOpener: Sendable {
    private let state = Mutex<(opener: Opener?, waiters: [CheckedContinuation<Opener, Never>])>((nil, []))

    init() {}

    /// Already known, for an event whose opener is given (`Explain` with `--opener`).
    init(known opener: Opener) { state.withLock { $0.opener = opener } }

    func resolve(_ opener: Opener) {
        let waiters = state.withLock { state in
            state.opener = opener
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: opener) }
    }

    /// The opener if found already, without waiting.
    var current: Opener? { state.withLock { $0.opener } }

    /// The opener, once found.
    func value() async -> Opener {
        if let opener = current { return opener }
        return await withCheckedContinuation { continuation in
            let found: Opener? = state.withLock { state in
                if let opener = state.opener { return opener }
                state.waiters.append(continuation)
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }
}
