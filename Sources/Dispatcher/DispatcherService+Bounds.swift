import DBus
import Logging
import Synchronization
import WaypostContract

/// How the daemon serves an exported member, declared beside each in the export table (arguments of
/// `method` that have no default, so a member cannot be exported without them): how it is served,
/// and how many of its calls one connection may have in flight (`Budgets.CallsInFlight`).
struct MemberPolicy: Sendable, Hashable {
    enum Serving: Sendable, Hashable {
        /// Acts as the registered app: takes turns, then checks that the caller's process still runs
        /// the program registration found (Dispatcher+Identity.swift) before anything is changed.
        case actsAsTheApp
        /// Any connection may call it; it only changes or reads the dispatcher's state, and takes
        /// turns with other connections' such calls (SenderTurns.swift).
        case takesTurns
        /// Any connection may call it (an opener, a desktop search); it delivers an event, awaiting
        /// apps within the launch and delivery timeouts, and runs beside the connection's other calls.
        case delivers
    }

    let serving: Serving
    let callsInFlight: Budgets.CallsInFlight
}

/// One member's calls in flight, per connection: each member counts its own, so that a flood of
/// one (links at a hung app) leaves a connection's other members served.
final class MemberCalls: Sendable {
    let member: String
    let limit: Int
    private let counts = Mutex<[BusName: Int]>([:])

    init(_ member: Contract.Member, limit: Budgets.CallsInFlight) {
        self.member = member.name.rawValue
        self.limit = limit.rawValue
    }

    /// - Throws: `callsInFlight` naming the member and its limit when `caller` has that many.
    func enter(_ caller: BusName) throws(DispatchError) {
        let admitted = counts.withLock { counts in
            let count = counts[caller, default: 0]
            if count >= limit { return false }
            counts[caller] = count + 1
            return true
        }
        if !admitted { throw .callsInFlight(member: member, caller: caller.rawValue, limit: limit) }
    }

    func leave(_ caller: BusName) {
        counts.withLock { counts in
            let count = counts[caller, default: 1] - 1
            counts[caller] = count == 0 ? nil : count
        }
    }
}

extension DispatcherService {
    /// Logs a refusal at notice, but `Busy` at debug: it comes by the thousand in a flood, and a
    /// line each would be the flood's second cost.
    func logRefusal(_ error: DispatchError, _ line: @autoclosure () -> String) {
        switch error {
        case .busy, .callsInFlight: logger.debug("\(line())")
        default: logger.notice("\(line())")
        }
    }
}
