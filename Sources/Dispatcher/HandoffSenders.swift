import DBus
import Logging
import Synchronization
import WaypostContract

/// Who may speak for KDE Connect: where kdeconnectd is not running (GNOME with GSConnect) any
/// process may own `org.kde.kdeconnect`, and its `shareReceived` would make offers "from" any device
/// it names, or learn what is sent. So the sender is checked as clients check the dispatcher: its
/// program (`/proc/<pid>/exe`) must be the very file that an installed D-Bus service file for the
/// name starts (Debian's `/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd`). Each unique name is
/// checked once (names are never reused); a refusal is logged once, naming pid and program.
final class KDEConnectSenders: Sendable {
    private let verdicts = Mutex<[BusName: OwnerCheck]>([:])

    func check(_ sender: BusName, on connection: Connection, logger: Logger) async -> OwnerCheck {
        if let known = verdicts.withLock({ $0[sender] }) { return known }
        let trusted = Contract.TrustedDispatcher.installed(service: HandoffService.kdeConnect)
        let verdict = await trusted.check(owner: sender, on: connection)
        if case .untrusted(let owner, let pid, let program) = verdict {
            let refused = KDEConnectOwner(owner: owner.rawValue, pid: pid, program: program, expected: trusted.programs.map(\.path))
            logger.error("shares signalled while \(refused): not believed; their offers say they come from an unknown sender")
        }
        if case .unknown = verdict { return verdict }
        verdicts.withLock { verdicts in
            if verdicts.count >= 64 { verdicts = [:] }
            verdicts[sender] = verdict
        }
        return verdict
    }

    /// The owner of `org.kde.kdeconnect`, once checked: calls go to it, so that the name cannot
    /// change hands between the check and the call.
    /// - Throws: `transportAbsent` with no owner; `kdeConnectUntrusted` for one not kdeconnectd.
    func owner(on connection: Connection, logger: Logger) async throws(HandoffFailure) -> BusName {
        let owner: BusName?
        do { owner = try await connection.nameOwner(of: HandoffService.kdeConnect) } catch {
            throw .transportAbsent(.kdeconnectd, "\(error)")
        }
        guard let owner else { throw .transportAbsent(.kdeconnectd, "\(HandoffService.kdeConnect) has no owner") }
        switch await check(owner, on: connection, logger: logger) {
        case .trusted: return owner
        case .untrusted(let owner, let pid, let program):
            let expected = Contract.TrustedDispatcher.installed(service: HandoffService.kdeConnect).programs.map(\.path)
            throw .kdeConnectUntrusted(KDEConnectOwner(owner: owner.rawValue, pid: pid, program: program, expected: expected))
        case .unknown(_, let reason): throw .transportAbsent(.kdeconnectd, reason)
        }
    }
}
