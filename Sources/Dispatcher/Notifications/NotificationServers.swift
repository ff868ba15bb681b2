import DBus
import Logging
import Synchronization
import WaypostContract

/// Which owners of `org.freedesktop.Notifications` the daemon posts to. The first it meets is believed
/// as it is: a process that took the name before the desktop's server cannot be told apart (the
/// threat model's stated limit), and GNOME's and Plasma's servers are named by no service file. A
/// later owner — the name changed hands — only when it runs the very program (`/proc/<pid>/exe`, the
/// same file) of a server believed before (one started again) or one an installed D-Bus service file
/// for the name starts (what the bus itself would start). Any other is refused, and the log says so
/// once: nothing is posted to it, so it reads nothing and has nothing to click.
final class NotificationServers: Sendable {
    private struct State {
        /// The first server's program, and what to call it, once one was met.
        var first: (path: String, namedBy: String)?
        /// Unique names are never reused: each owner is checked once.
        var verdicts: [BusName: OwnerCheck] = [:]
    }

    private let state = Mutex(State())
    private let logger: Logger?

    init(logger: Logger?) { self.logger = logger }

    /// Whether `owner` may be posted to.
    func check(_ owner: BusName, on connection: Connection) async -> OwnerCheck {
        if let known = state.withLock({ $0.verdicts[owner] }) { return known }
        let verdict: OwnerCheck
        if state.withLock({ $0.first == nil }) {
            let pid: UInt32
            do { pid = try await connection.processID(of: owner) } catch {
                return .unknown(owner: owner, reason: "\(error)")
            }
            let program = Contract.TrustedDispatcher.program(ofProcess: pid)
            state.withLock { $0.first = $0.first ?? (program, "the first notification server met, pid \(pid)") }
            logger?.info("notifications go to \(owner), pid \(pid) running \(program), the first owner of \(NotificationPoster.serverName) met")
            verdict = .trusted(owner: owner, pid: pid, program: program)
        } else {
            var trusted = Contract.TrustedDispatcher.installed(service: NotificationPoster.serverName)
            if let first = state.withLock({ $0.first }) { trusted = trusted.adding(program: first.path, namedBy: first.namedBy) }
            verdict = await trusted.check(owner: owner, on: connection)
            if case .untrusted(_, let pid, let program) = verdict {
                logger?.error("\(NotificationPostError.untrustedServer(owner: owner.rawValue, pid: pid, program: program))")
            }
        }
        if case .unknown = verdict { return verdict }
        state.withLock { state in
            if state.verdicts.count >= 64 { state.verdicts = [:] }
            state.verdicts[owner] = verdict
        }
        return verdict
    }
}
