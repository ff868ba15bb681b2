import DBus
import Logging
import Synchronization
import WaypostContract

/// How the daemon serves an exported member: declared beside each in the export table (a required
/// argument of `method`, so a member cannot be exported without one). Every call, whatever its
/// policy, counts against its connection's `Budgets.callsInFlightPerConnection`.
enum MemberPolicy: Sendable, Hashable {
    /// Acts as the registered app: takes turns, then checks that the caller's process still runs
    /// the program registration found (Dispatcher+Identity.swift) before anything is changed.
    case actsAsTheApp
    /// Any connection may call it; it only changes or reads the dispatcher's state, and takes turns
    /// with other connections' such calls (SenderTurns.swift).
    case takesTurns
    /// Any connection may call it (an opener, a desktop search); it delivers an event, awaiting
    /// apps within the launch and delivery timeouts, and runs beside the connection's other calls.
    case delivers
}

// The bound on each connection's calls in flight.
extension DispatcherService {
    func enter(_ caller: BusName) throws(DispatchError) {
        let limit = Budgets.callsInFlightPerConnection
        let admitted = callsInFlight.withLock { counts in
            let count = counts[caller, default: 0]
            if count >= limit { return false }
            counts[caller] = count + 1
            return true
        }
        if !admitted { throw .busy("\(caller) has \(limit) calls in flight", limit: limit) }
    }

    func leave(_ caller: BusName) {
        answered.add(1, ordering: .relaxed)
        callsInFlight.withLock { counts in
            let count = counts[caller, default: 1] - 1
            counts[caller] = count == 0 ? nil : count
        }
    }

    /// Logs a refusal at notice, but `Busy` at debug: it comes by the thousand in a flood, and a
    /// line each would be the flood's second cost.
    func logRefusal(_ error: DispatchError, _ line: @autoclosure () -> String) {
        if case .busy = error { logger.debug("\(line())") } else { logger.notice("\(line())") }
    }
}
