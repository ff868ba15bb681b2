import DBus
import Logging
import Synchronization
import WaypostContract

/// How the daemon serves an exported member, declared beside each in the export table (arguments of
/// `method` that have no default, so a member cannot be exported without them): how it is served,
/// and how many of its calls one caller, and all together, may have in flight (`Budgets.CallsInFlight`).
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

/// One member's calls in flight: each caller's (`Budgets.Caller`: its app, else its process, over
/// all its connections) and all callers' together, so that a flood of one member (links at a hung
/// app) leaves the other members served, and no one caller takes a member's every slot.
final class MemberCalls: Sendable {
    let member: String
    let limit: Budgets.CallsInFlight
    private struct Counts {
        var byCaller: [Budgets.Caller: Int] = [:]
        var all = 0
    }
    private let counts = Mutex(Counts())

    init(_ member: Contract.Member, limit: Budgets.CallsInFlight) {
        self.member = member.name.rawValue
        self.limit = limit
    }

    /// - Throws: `callsInFlight` naming the member, and the caller and its share, or every caller
    ///   and the total, whichever is full.
    func enter(_ caller: Budgets.Caller) throws(DispatchError) {
        let full: (who: String, limit: Int)? = counts.withLock { counts in
            let mine = counts.byCaller[caller, default: 0]
            if mine >= limit.share { return (caller.description, limit.share) }
            if counts.all >= limit.total { return ("every caller together", limit.total) }
            counts.byCaller[caller] = mine + 1
            counts.all += 1
            return nil
        }
        if let full { throw .callsInFlight(member: member, caller: full.who, limit: full.limit) }
    }

    func leave(_ caller: Budgets.Caller) {
        counts.withLock { counts in
            let mine = counts.byCaller[caller, default: 1] - 1
            counts.byCaller[caller] = mine == 0 ? nil : mine
            counts.all -= 1
        }
    }
}
